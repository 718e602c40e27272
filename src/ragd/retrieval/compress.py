"""The compress block: sentence windows of each candidate around the query's terms.

Pure: for every candidate, the sentences that contain query terms (matched on
a shared stem-like prefix, so "invalidated" finds "invalidation") are taken
with ``window`` neighbours on each side, strongest first, until ``max_chars``;
windows are returned in text order with their character spans.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..chunking import split_sentences
from ..text import query_terms, words
from ..types import Candidate

DEFAULT_POLICY = {"window": 1, "max_chars": 600}
_ELLIPSIS = " … "


def _matches(word: str, term: str) -> bool:
    if word == term:
        return True
    shorter = min(len(word), len(term))
    if shorter < 5:
        return False
    common = 0
    for a, b in zip(word, term):
        if a != b:
            break
        common += 1
    return common >= max(5, shorter - 3)


def _matched_terms(sentence: str, terms: Sequence[str]) -> set[str]:
    found = set()
    for word in set(words(sentence)):
        for term in terms:
            if _matches(word, term):
                found.add(term)
    return found


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 1)
    return text[:cut if cut > limit // 2 else limit - 1].rstrip() + "…"


def compress_one(query_terms_: Sequence[str], text: str, window: int,
                 max_chars: int) -> tuple[list[tuple[int, int]], list[str]]:
    """Spans of ``text`` to keep and the terms they matched."""
    spans = split_sentences(text) or ([(0, len(text))] if text.strip() else [])
    if not spans:
        return [], []
    hits = [(len(m), i, m) for i, (s, e) in enumerate(spans)
            if (m := _matched_terms(text[s:e], query_terms_))]
    hits.sort(key=lambda h: (-h[0], h[1]))
    chosen: set[int] = set()
    matched: set[str] = set()
    for _, i, terms in hits or [(0, 0, set())]:
        extra = {j for j in range(max(0, i - window), min(len(spans), i + window + 1))} - chosen
        size = sum(spans[j][1] - spans[j][0] + 1 for j in chosen | extra)
        if chosen and size > max_chars:
            continue
        chosen |= extra
        matched |= terms
    # Merge adjacent sentences into contiguous spans.
    merged: list[tuple[int, int]] = []
    for j in sorted(chosen):
        start, end = spans[j]
        if merged and j - 1 in chosen:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged, sorted(matched)


def compress(query: str, candidates: Sequence[Candidate],
             policy: Mapping[str, Any] | None = None) -> list[dict]:
    """For each candidate, its sentence windows around ``query``'s terms.

    ``policy``: ``window`` (sentences each side, default 1), ``max_chars``
    (budget per candidate, default 600). Each result has the candidate's ids,
    rank and score, ``spans`` ([start, end) offsets into its text), ``text``
    (the windows joined by " … ") and ``matched_terms``.
    """
    settings = {**DEFAULT_POLICY, **dict(policy or {})}
    window, max_chars = int(settings["window"]), int(settings["max_chars"])
    terms = query_terms(query)
    results = []
    for c in candidates:
        spans, matched = compress_one(terms, c.text, window, max_chars)
        text = _clip(_ELLIPSIS.join(c.text[s:e] for s, e in spans), max_chars)
        results.append({"doc_id": c.doc_id, "chunk_index": c.chunk_index,
                        "chunk_id": c.chunk_id, "rank": c.rank, "score": c.score,
                        "title": c.title, "context": c.context, "section_id": c.section_id,
                        "spans": [list(s) for s in spans], "text": text,
                        "matched_terms": matched})
    return results
