"""Names a question gives to parts of documents, and whether a passage carries them.

Pure functions the answer checks (:mod:`.gates`) read: a question naming something the
retrieved passages never mention asks about what the collection does not hold.
"""

from __future__ import annotations

import re

from ..text import STOPWORDS

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


_TITLE_NOUNS = frozenset({"act", "acts", "directive", "directives", "regulation", "regulations",
                          "framework", "convention", "treaty", "agreement", "protocol",
                          "ordinance", "code", "law", "bill", "charter", "pact"})
"""Nouns that end the title of an instrument ("... Medicines Act", "... Framework")."""
_JOINERS = frozenset({"of", "and", "for", "on", "the", "in", "to", "&"})
_CONTINUE = frozenset({"of", "on"})
"""Joiners that go on with a title after its noun ("Code of Federal Regulations",
"Convention on ..."); any other ends it ("the ... Directive and the ... Framework")."""
CASED_SHARE = 0.5
"""Above this share of its small words ("the", "is", "for" ...) capitalised, a question is
written in capitals or title case, and its case names nothing."""
_BREAK = re.compile(r"[,;:?!()\[\]\"“”]|\.(?=\s|$)")


def _capital(token: str) -> bool:
    return token[:1].isupper()


def _acronym(token: str) -> bool:
    letters = [c for c in token if c.isalpha()]
    return bool(letters) and all(c.isupper() for c in letters) and len(letters) <= 6


def named_titles(question: str) -> list[str]:
    """The titles of instruments a question names, as written ("What would the proposed EU
    Critical Medicines Act require?" → ["Critical Medicines Act"]).

    A title is a run of capitalised words (joined by "of", "and", "&" ...) up to its last
    title noun (Act, Directive, Regulation(s), Framework, Code, ...), with at least one
    capitalised word before that noun. A sentence's first word is capitalised by grammar, so
    it never starts a title; a leading short form ("EU", "US", "FD&C") is dropped when words
    are left before the noun, as documents often write the title without it. A question
    written in capitals or title case (its small words capitalised) names none this way.
    """
    small = [w for w in question.split()[1:] if w.lower().strip(",.;:?!") in STOPWORDS]
    if small and sum(_capital(w) for w in small) > CASED_SHARE * len(small):
        return []                   # written in capitals or title case: case tells nothing
    out: list[str] = []
    start = 0
    for cut in [*_BREAK.finditer(question), None]:
        end = cut.start() if cut else len(question)
        opens = not question[:start].rstrip() or question[:start].rstrip()[-1] in ".?!:"
        run: list[str] = []
        for i, token in enumerate(question[start:end].split() + [""]):
            if token and _capital(token) and not (i == 0 and opens):
                run.append(token)
            elif token and run and token.lower() in _JOINERS and not (
                    run[-1].lower() in _TITLE_NOUNS and token.lower() not in _CONTINUE):
                run.append(token)
            else:
                title = _title(run)
                if title:
                    out.append(title)
                run = []
        start = cut.end() if cut else end
    return list(dict.fromkeys(out))


def _title(run: list[str]) -> str | None:
    last = max((i for i, t in enumerate(run) if t.lower() in _TITLE_NOUNS), default=-1)
    if last < 1:
        return None
    words = run[:last + 1]
    while words and words[0].lower() in _JOINERS:
        words = words[1:]
    short = words
    while len(short) > 2 and _acronym(short[0]) and short[0].lower() not in _TITLE_NOUNS:
        short = short[1:]
        while len(short) > 1 and short[0].lower() in _JOINERS:
            short = short[1:]
    if len(short) < 2 or not any(_capital(t) for t in short[:-1]):
        return None
    return " ".join(short)


def _flat(text: str) -> str:
    """Lower case, words only, a plural's "s" dropped: how titles are compared."""
    return " " + " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss")
                          else w for w in re.findall(r"[a-z0-9]+", text.lower())) + " "


def mentions_title(title: str, text: str) -> bool:
    """Whether ``text`` names the title, whatever its case, spacing or punctuation."""
    return _flat(title) in _flat(text)
