"""Maximal marginal relevance: a relevant and diverse subset of ranked candidates.

Pure and deterministic. Greedy: the next pick maximises
``λ · relevance(c) − (1 − λ) · max_{s picked} similarity(c, s)``, relevance min-max
normalised over the candidates (all equal: 1). Ties break by the input order (the
ranking, itself tied by ``(doc_id, chunk_index)``). ``λ = 1`` keeps the ranking; ``λ = 0``
only spreads. The default similarity is the Jaccard overlap of the passages' analysed
terms (no model call; near-duplicates, such as one text published in two PDFs, score
near 1); any other ``similarity(a, b) -> float`` may be passed.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from ..analysis import analyze
from ..types import Candidate

T = TypeVar("T")


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def select(items: Sequence[T], relevance: Sequence[float], k: int, lam: float,
           similarity: Callable[[int, int], float]) -> list[int]:
    """Indices of the ``k`` items MMR picks, in pick order (see the module doc)."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"mmr lambda must be within [0, 1], got {lam}")
    n = len(items)
    if n == 0 or k <= 0:
        return []
    lo, hi = min(relevance), max(relevance)
    rel = [1.0 if hi == lo else (r - lo) / (hi - lo) for r in relevance]
    picked: list[int] = []
    nearest = [0.0] * n            # max similarity to anything picked so far
    left = list(range(n))
    while left and len(picked) < k:
        best = max(left, key=lambda i: (lam * rel[i] - (1 - lam) * nearest[i], -i))
        picked.append(best)
        left.remove(best)
        for i in left:
            nearest[i] = max(nearest[i], similarity(i, best))
    return picked


def mmr(candidates: Sequence[Candidate], k: int, lam: float = 0.6,
        relevance: Sequence[float] | None = None,
        similarity: Callable[[Candidate, Candidate], float] | None = None) -> list[Candidate]:
    """The ``k`` candidates MMR picks, in pick order, ranks renumbered from 1.

    ``relevance`` defaults to each candidate's ``score``; ``similarity`` to the Jaccard
    overlap of analysed terms."""
    rel = [float(c.score) for c in candidates] if relevance is None else list(relevance)
    if len(rel) != len(candidates):
        raise ValueError("one relevance per candidate")
    if similarity is None:
        terms = [set(analyze(c.text)) for c in candidates]
        sim = lambda i, j: jaccard(terms[i], terms[j])  # noqa: E731
    else:
        sim = lambda i, j: float(similarity(candidates[i], candidates[j]))  # noqa: E731
    order = select(candidates, rel, k, lam, sim)
    return [candidates[i].evolve(rank=r) for r, i in enumerate(order, start=1)]
