"""Answer validators: every emitted sentence cites evidence it was given, and says only
what that evidence says.

A sentence is kept when each of its citations is a fact of this answer, it is not a
repeat, and it is supported by its cited facts: it is a quote of one of them
(whitespace aside), or at least ``threshold`` of its content terms occur in them and
every number it states occurs in them too. The rest are dropped with a reason
(``no_citation``, ``unknown_citation``, ``duplicate``, ``unsupported``,
``unsupported_number``, ``max_sentences``; for a model's sentences also ``fragment`` and
``off_question``).
"""

from __future__ import annotations

import re
from typing import Sequence

from ..analysis import analyze
from .types import Dropped, Fact, Sentence

MAX_SENTENCES = 6
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _normal(text: str) -> str:
    return " ".join(text.split())


def supported(sentence: str, quotes: Sequence[str], threshold: float) -> str | None:
    """None when ``sentence`` is supported by ``quotes``, else the reason it is not."""
    text = _normal(sentence)
    if not text:
        return "unsupported"
    if any(text in _normal(q) for q in quotes):
        return None
    joined = " ".join(quotes)
    numbers = set(_NUMBER.findall(joined))
    if any(n not in numbers for n in _NUMBER.findall(text)):
        return "unsupported_number"
    terms = set(analyze(text))
    if not terms:
        return "unsupported"
    have = set(analyze(joined))
    return None if len(terms & have) / len(terms) >= threshold else "unsupported"


def check_sentences(proposed: Sequence[Sentence], facts: Sequence[Fact], threshold: float,
                    max_sentences: int = MAX_SENTENCES,
                    question_terms: Sequence[str] | None = None
                    ) -> tuple[list[Sentence], list[Dropped]]:
    """(kept, dropped): the sentences that pass every check, in order, and the others.

    With ``question_terms`` (sentences a model wrote, not ones chosen by their relevance),
    a sentence must also be a statement (three words or more: ``fragment``) about the
    question (sharing a content term with it: ``off_question``): a quote of a passage
    that told the model what to say is still not an answer."""
    by_key = {f.key: f for f in facts}
    kept: list[Sentence] = []
    dropped: list[Dropped] = []
    seen: set[str] = set()
    for s in proposed:
        keys = tuple(e.key for e in s.citations)
        reason, validator = None, ""
        if not s.citations:
            reason, validator = "no_citation", "cited"
        elif any(k not in by_key or by_key[k].evidence.chunk_id != e.chunk_id
                 for k, e in zip(keys, s.citations)):
            reason, validator = "unknown_citation", "cited"
        elif _normal(s.text).lower() in seen:
            reason, validator = "duplicate", "distinct"
        elif question_terms is not None and len(s.text.split()) < 3:
            reason, validator = "fragment", "on_question"
        elif question_terms is not None and not set(question_terms) & set(analyze(s.text)):
            reason, validator = "off_question", "on_question"
        else:
            reason = supported(s.text, [by_key[k].quote for k in keys], threshold)
            validator = "supported"
            if reason is None and len(kept) >= max_sentences:
                reason, validator = "max_sentences", "limit"
        if reason:
            dropped.append(Dropped(s.text, keys, reason, validator))
        else:
            kept.append(s)
            seen.add(_normal(s.text).lower())
    return kept, dropped
