"""Token-counted packing of uncuttable units, for chunkers that count with a counter.

The Markdown chunker cuts at headings and blocks and counts with the policy's
counter (words, or the embedding model's tokenizer when ``counter = "model"``).
A *unit* is a span of the source that is never cut further: a block, a
sentence, or a piece of one that was too long (cut at word boundaries, or
hard-cut when a word alone is too big). ``pack`` groups consecutive units
greedily under a token target and a character limit.

Token counts are taken once per unit (one batched call) and summed: exact for
words and for WordPiece, whose pre-tokenizer never joins across whitespace or
punctuation, and it keeps chunking linear.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..types import Chunk, ChunkPolicy

__all__ = ["TokenCounter", "Unit", "build_units", "make_chunks", "pack", "strip_span",
           "word_counts"]

TokenCounter = Callable[[Sequence[str]], list[int]]
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Unit:
    """An uncuttable span ``[start, end)`` of the source with its token count.

    ``origin`` is the index of the sentence/segment/block it comes from. A unit
    with a ``prefix`` (a repeated table header) shows it when it opens a chunk.
    A unit that is not ``joinable`` (a character slice of a word, glued to the
    slice before it) only ever opens a chunk: glued slices do not add up in tokens.
    """

    start: int
    end: int
    tokens: int
    origin: int
    prefix: str = ""
    prefix_tokens: int = 0
    joinable: bool = True


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow ``[start, end)`` so that it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def pack(units: Sequence[Unit], target: int, max_chars: int) -> list[tuple[int, int]]:
    """Greedy packing: inclusive ``(first, last)`` unit ranges, one per chunk, no overlap.

    A chunk takes units while the token sum stays <= ``target`` and its span
    (plus the first unit's prefix) <= ``max_chars``. A unit that is not
    ``joinable`` always opens a new chunk.
    """
    n = len(units)
    acc = [0]
    for u in units:
        acc.append(acc[-1] + u.tokens)

    def fits(i: int, j: int) -> bool:
        head = units[i]
        extra_t, extra_c = (head.prefix_tokens, len(head.prefix) + 1) if head.prefix else (0, 0)
        return (acc[j + 1] - acc[i] + extra_t <= target
                and units[j].end - head.start + extra_c <= max_chars)

    ranges: list[tuple[int, int]] = []
    i = 0
    while i < n:
        j = i
        while j + 1 < n and units[j + 1].joinable and fits(i, j + 1):
            j += 1
        ranges.append((i, j))
        i = j + 1
    return ranges


def build_units(text: str, spans: Sequence[tuple[int, int]], origins: Sequence[int],
                policy: ChunkPolicy, count_tokens: TokenCounter) -> list[Unit]:
    """Units for ``spans`` (counted in one batch); an over-long span becomes pieces.

    A span over ``max_chars`` is cut anyway, so it is never tokenised whole.
    """
    limit, max_chars = policy.target_tokens, policy.char_limit
    short = [k for k, (s, e) in enumerate(spans) if e - s <= max_chars]
    counts = [limit + 1] * len(spans)
    for k, n in zip(short, count_tokens([text[spans[k][0]:spans[k][1]] for k in short])):
        counts[k] = n
    long = [k for k, (s, e) in enumerate(spans) if counts[k] > limit or e - s > max_chars]
    split = _split_long(text, [(spans[k], origins[k]) for k in long], policy, count_tokens)
    pieces = {k: split[item] for item, k in enumerate(long) if item in split}
    out: list[Unit] = []
    for k, ((s, e), origin, n) in enumerate(zip(spans, origins, counts)):
        out.extend(pieces.get(k) or [Unit(s, e, n, origin)])
    return out


def _split_long(text: str, items: Sequence[tuple[tuple[int, int], int]], policy: ChunkPolicy,
                count_tokens: TokenCounter) -> dict[int, list[Unit]]:
    """Cut over-long spans into pieces at word boundaries, packed greedily.

    Words are first grouped into short runs (about ``target/8`` tokens) so the
    token counter sees few, not hundreds of thousands of, strings; a run over
    the target falls back to its words, a word over it to character slices.
    """
    if not items:
        return {}
    run_chars = max(1, min(policy.char_limit, policy.target_tokens // 2))
    runs: list[_Piece] = []
    for item, ((s, e), _) in enumerate(items):
        runs.extend((a, b, item, glued)
                    for a, b, glued in _runs(text, s, e, run_chars, policy.char_limit))
    by_item: dict[int, list[Unit]] = {}
    for start, end, item, glued, n in _refine(text, runs, policy.target_tokens, count_tokens):
        by_item.setdefault(item, []).append(
            Unit(start, end, n, items[item][1], joinable=not glued))
    return {item: [Unit(ws[i].start, ws[j].end, sum(w.tokens for w in ws[i:j + 1]), ws[i].origin,
                        joinable=ws[i].joinable)
                   for i, j in pack(ws, policy.target_tokens, policy.char_limit)]
            for item, ws in by_item.items()}


_Piece = tuple[int, int, int, bool]  # (start, end, item, glued to the piece before)


def _runs(text: str, start: int, end: int, run_chars: int, max_chars: int
          ) -> list[tuple[int, int, bool]]:
    """Runs of whole words of at most ``run_chars`` (a longer word alone, cut at ``max_chars``)."""
    out: list[tuple[int, int, bool]] = []
    for m in _WORD.finditer(text, start, end):
        a, b = m.span()
        if out and b - out[-1][0] <= run_chars:
            out[-1] = (out[-1][0], b, out[-1][2])
        elif b - a <= max_chars:
            out.append((a, b, False))
        else:
            out.extend((c, min(c + max_chars, b), c > a) for c in range(a, b, max_chars))
    return out


def _refine(text: str, pieces: list[_Piece], target: int, count_tokens: TokenCounter
            ) -> list[tuple[int, int, int, bool, int]]:
    """Count pieces in one batch; re-cut any piece over ``target`` tokens until all fit.

    A piece with whitespace is cut into its words; a single word into about
    ``tokens / target`` equal character slices. Each round recounts in one batch.
    """
    counts = count_tokens([text[s:e] for s, e, _, _ in pieces])
    done = [(*p, n) for p, n in zip(pieces, counts)]
    while True:
        cuts: dict[int, list[_Piece]] = {}
        for k, (s, e, it, glued, n) in enumerate(done):
            if n <= target or e - s < 2:
                continue
            words = [(a, b, glued and a == s) for a, b in
                     (m.span() for m in _WORD.finditer(text, s, e))]
            if len(words) < 2:
                step = math.ceil((e - s) / min(e - s, max(2, math.ceil(n / target))))
                words = [(a, min(a + step, e), glued or a > s) for a in range(s, e, step)]
            cuts[k] = [(a, b, it, g) for a, b, g in words]
        if not cuts:
            return done
        flat = [c for parts in cuts.values() for c in parts]
        recount = iter(count_tokens([text[c[0]:c[1]] for c in flat]))
        new: list[tuple[int, int, int, bool, int]] = []
        for k, piece in enumerate(done):
            if k in cuts:
                new.extend((*c, next(recount)) for c in cuts[k])
            else:
                new.append(piece)
        done = new


def word_counts(texts: Sequence[str]) -> list[int]:
    """Whitespace-delimited words per text: the model-independent token of every policy."""
    return [len(t.split()) for t in texts]


def make_chunks(doc_id: str, pieces: Sequence[tuple[str, int, int, str, Mapping[str, Any]]],
                tags: Sequence[str], metadata: Mapping[str, Any] | None) -> list[Chunk]:
    """Chunks from ``(text, start, end, context, chunk_metadata)``; ``tokens`` counts words.

    The caller's ``metadata`` is the base; the chunker's own keys win on a clash.
    """
    base = dict(metadata or {})
    return [Chunk(doc_id=doc_id, chunk_index=i, text=body, context=ctx, tags=tuple(tags),
                  metadata={**base, **meta}, tokens=len(body.split()), start_offset=s,
                  end_offset=e, kind="chunk")
            for i, (body, s, e, ctx, meta) in enumerate(pieces)]
