"""The shape of a sentence of evidence: a definition, a heading, or the tail of a cut one.

Pure functions over one sentence's text (and the analysed terms of its passage's labels),
used by the extractive path to tell a statement that can answer from the text around it.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..analysis import analyze


_CONTINUES = re.compile(r"^\s*(?:[,;:)\]]|\d[\d.]*\s*,\s)")


def fragment(sentence: str) -> bool:
    """The tail of a sentence cut by a passage boundary: it starts in lower case, with
    punctuation that closes or continues a clause, or with a number followed by a comma
    ("20, 1997, as amended at ..." — the rest of a date or a list)."""
    first = sentence.lstrip()[:1]
    return (first.isalpha() and first.islower()) or bool(_CONTINUES.match(sentence))


_DEFINE_Q = re.compile(
    r"^\s*(?:what\s+(?:is|are)\s+(?:meant\s+by\s+)?|define\s+|definition\s+of\s+|"
    r"what\s+does\s+(?P<mean>.+?)\s+(?:mean|stand\s+for)\b|"
    r"how\s+(?:does|do)\s+.+?\s+define\s+|how\s+(?:is|are)\s+(?P<how>.+?)\s+defined\b)"
    r"(?P<rest>.*)$", re.I)
_QUALIFIER = re.compile(r"\s+(?:under|according\s+to|in|per|as\s+defined\s+(?:in|by)|by|"
                        r"within|for\s+the\s+purposes?\s+of)\s+.*$", re.I)
_DEFINES = re.compile(r"^\s*(?:\(?[a-z0-9]{1,4}[.)]\s*)?"
                      r"(?:for\s+(?:the\s+)?purposes?\s+of\s+[^,]{1,80},\s*)?"
                      r"(?:the\s+(?:terms?|expressions?|words?)\s+)?"
                      r"(?P<head>.{0,120}?)\s*(?:\([^)]{1,20}\)\s*)?"
                      r"(?:(?<![^\W\d_])(?:means|shall\s+mean|is\s+defined\s+as|refers\s+to|"
                      r"includes|include|is|are)|:|–|—|-)\s", re.I)


def definition_subject(question: str) -> list[str]:
    """The analysed terms of what a definitional question asks to define ("What is an
    electronic signature under 21 CFR Part 11?" -> electron, signatur), else []."""
    m = _DEFINE_Q.match(question.strip())
    if not m:
        return []
    subject = m.group("mean") or m.group("how") or m.group("rest")
    subject = re.sub(r"^(?:an?|the)\s+", "", subject.strip().rstrip("?. "), flags=re.I)
    subject = _QUALIFIER.sub("", subject)
    subject = re.sub(r"\([^)]*\)", " ", subject)
    return analyze(subject)


def defines(sentence: str, subject: Sequence[str]) -> bool:
    """Whether a sentence reads as a definition of ``subject`` ("Electronic signature means
    ...", "(7) Electronic signature means ...", "Design space: The multidimensional ...",
    "For purposes of this document, the term OOS results includes ...")."""
    if not subject:
        return False
    m = _DEFINES.match(sentence)
    if not m:
        return False
    head = analyze(m.group("head"))
    return bool(head) and set(subject) <= set(head) and len(head) <= len(subject) + 4


def is_heading(sentence: str, label: set[str] = frozenset(), first: bool = False) -> bool:
    """A heading, citation header or title line rather than a statement: short, a Markdown
    heading, made mostly of references and numbers, or (a line of at most 12 words, or the
    passage's ``first`` line at any length: "Section 89. Act done in good faith for benefit
    of child ...") only words of the passage's own heading or title (``label``)."""
    words = sentence.split()
    if len(words) < 4 or sentence.lstrip().startswith("#"):
        return True
    letters = sum(ch.isalpha() for ch in sentence)
    if letters < 0.55 * len(sentence.replace(" ", "")):
        return True
    terms = set(analyze(sentence))
    return bool(label) and (len(words) <= 12 or first) and bool(terms) and terms <= label
