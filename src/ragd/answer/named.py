"""Names a question gives to parts of documents, and whether a passage carries them.

Pure functions the answer checks (:mod:`.gates`) read: a question naming something the
retrieved passages never mention asks about what the collection does not hold.
"""

from __future__ import annotations

import re

_PART_NOUNS = ("annex", "appendix", "chapter", "article", "schedule", "part", "supplement",
               "attachment", "exhibit", "volume")
_ROMAN = r"x{0,3}(?:ix|iv|v?i{0,3})(?<=[ivx])"     # i to xxxix, never empty
_NAMED_PART = re.compile(r"\b(?P<noun>" + "|".join(_PART_NOUNS) + r")\s+(?:no\.?\s*)?"
                         r"(?P<number>\d{1,4}[a-z]?|" + _ROMAN + r")\b(?![.(]?\d)", re.I)


def named_parts(question: str) -> list[tuple[str, str]]:
    """The numbered parts a question names, as (noun, number) in lower case ("EU GMP Annex
    23" → ("annex", "23")); a number that goes on ("Part 11.3", "Article 5(2)") is a
    reference into the part, read by citation schemes, not a name."""
    return list(dict.fromkeys((m.group("noun").lower(), m.group("number").lower())
                              for m in _NAMED_PART.finditer(question)))


def mentions_part(noun: str, number: str, text: str) -> bool:
    """Whether ``text`` names the part: "Annex 23", "ANNEX 23", "annex_23", "annex23"."""
    flat = re.sub(r"[_\-/]+", " ", text)
    digits = number.lstrip("0") or "0"
    return bool(re.search(rf"(?<![a-z]){noun}\s*(?:no\.?\s*)?0*{re.escape(digits)}"
                          r"(?![0-9a-z])", flat, re.I))
