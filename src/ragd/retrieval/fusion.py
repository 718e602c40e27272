"""Fusion of ranked candidate lists: reciprocal rank fusion and weighted min-max fusion.

Pure functions. A list's order is its ranking (rank 1 = first). The fused
candidate keeps the per-list scores and ranks the inputs carried, and gets
the fused ``score`` and a 1-based ``rank``; ties break by (doc_id, chunk_index).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ..errors import UsageError
from ..registry import Registry
from ..types import Candidate

DEFAULT_RRF_K = 60
_PER_LIST_FIELDS = ("vector_score", "vector_rank", "lexical_score", "lexical_rank")

CandidateSets = Mapping[str, Sequence[Candidate]] | Sequence[Sequence[Candidate]]


def _named(candidate_sets: CandidateSets) -> list[tuple[str, Sequence[Candidate]]]:
    if isinstance(candidate_sets, Mapping):
        return [(str(name), lst) for name, lst in candidate_sets.items()]
    return [(str(i), lst) for i, lst in enumerate(candidate_sets)]


def _merge(first: Candidate, other: Candidate) -> Candidate:
    """``first`` with the per-list scores it lacks taken from ``other``."""
    updates = {f: getattr(other, f) for f in _PER_LIST_FIELDS
               if getattr(first, f) is None and getattr(other, f) is not None}
    return first.evolve(**updates) if updates else first


def rank_candidates(scored: Mapping[tuple[str, int], float],
                    base: Mapping[tuple[str, int], Candidate]) -> list[Candidate]:
    """Candidates ordered by score (desc), ties by key, with ``score`` and ``rank`` set."""
    order = sorted(scored, key=lambda key: (-scored[key], key))
    return [base[key].evolve(score=float(scored[key]), rank=i + 1)
            for i, key in enumerate(order)]


def _min_max(values: Sequence[float]) -> list[float]:
    lo, hi = min(values), max(values)
    if hi == lo:
        return [1.0] * len(values)
    return [(v - lo) / (hi - lo) for v in values]


Named = list[tuple[str, Sequence[Candidate]]]
Scored = tuple[dict[tuple[str, int], float], dict[tuple[str, int], Candidate]]
FusionFn = Callable[[Named, Mapping[str, Any]], Scored]

FUSION: Registry[FusionFn] = Registry("fusion method")
"""Fusion methods by name: ``fn(named_lists, params) -> (scores by key, candidate by key)``."""


@FUSION.register("rrf")
def _rrf(named: Named, params: Mapping[str, Any]) -> Scored:
    """score = Σ 1 / (k + rank), ``params["k"]`` default 60."""
    base: dict[tuple[str, int], Candidate] = {}
    scored: dict[tuple[str, int], float] = {}
    k = float(params.get("k", DEFAULT_RRF_K))
    if k < 0:
        raise UsageError(f"rrf k must be >= 0, got {k}")
    for _, lst in named:
        for pos, cand in enumerate(lst):
            base[cand.key] = _merge(base[cand.key], cand) if cand.key in base else cand
            scored[cand.key] = scored.get(cand.key, 0.0) + 1.0 / (k + pos + 1)
    return scored, base


@FUSION.register("weighted")
def _weighted(named: Named, params: Mapping[str, Any]) -> Scored:
    """Each list's scores min-max normalised to [0, 1] (all equal: 1), score = Σ weight ×
    normalised score; ``params["weights"]`` maps list names (or positions) to weights."""
    base: dict[tuple[str, int], Candidate] = {}
    scored: dict[tuple[str, int], float] = {}
    weights = params.get("weights") or {}
    if not isinstance(weights, Mapping):
        weights = {str(i): w for i, w in enumerate(weights)}
    unknown = set(weights) - {name for name, _ in named}
    if unknown:
        raise UsageError(f"weights name unknown candidate lists: {', '.join(sorted(unknown))}")
    for name, lst in named:
        if not lst:
            continue
        weight = float(weights.get(name, 1.0))
        for cand, norm in zip(lst, _min_max([c.score for c in lst])):
            base[cand.key] = _merge(base[cand.key], cand) if cand.key in base else cand
            scored[cand.key] = scored.get(cand.key, 0.0) + weight * norm
    return scored, base


def fuse(candidate_sets: CandidateSets, method: str = "rrf",
         params: Mapping[str, Any] | None = None) -> list[Candidate]:
    """Fuse ranked lists into one with the fusion method registered as ``method``.

    ``rrf``: score = Σ 1 / (k + rank), ``params["k"]`` default 60.
    ``weighted``: each list's scores min-max normalised to [0, 1] (all equal → 1),
    score = Σ weight × normalised score; a list a candidate is absent from adds 0.
    ``params["weights"]`` maps list names (or positions) to weights, default 1 each.
    """
    scored, base = FUSION.get(method)(_named(candidate_sets), dict(params or {}))
    return rank_candidates(scored, base)
