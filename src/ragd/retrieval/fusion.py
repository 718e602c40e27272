"""Fusion of ranked candidate lists: reciprocal rank fusion, and weighted sums of each list's
scores min-max normalised or standardised (z-scores).

Pure functions. A list's order is its ranking (rank 1 = first). The fused
candidate keeps the per-list scores and ranks the inputs carried, and gets
the fused ``score`` and a 1-based ``rank``; ties break by (doc_id, chunk_index).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

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


def _weights(named: Named, params: Mapping[str, Any]) -> dict[str, float]:
    """Each list's weight by name: ``params["weights"]`` (names or positions), default 1."""
    weights = params.get("weights") or {}
    if not isinstance(weights, Mapping):
        weights = {str(i): w for i, w in enumerate(weights)}
    unknown = set(weights) - {name for name, _ in named}
    if unknown:
        raise UsageError(f"weights name unknown candidate lists: {', '.join(sorted(unknown))}")
    return {name: float(weights.get(name, 1.0)) for name, _ in named}


def _z_scores(values: Sequence[float]) -> tuple[list[float], float]:
    """Each score's distance from the list's mean in standard deviations (all equal: 0),
    and the floor an absent candidate gets: the list's lowest z-score."""
    arr = np.asarray(values, dtype=np.float64)
    std = float(arr.std())
    z = (arr - arr.mean()) / std if std > 0 else np.zeros_like(arr)
    return [float(v) for v in z], float(z.min())


def _normalised_sum(named: Named, params: Mapping[str, Any],
                    normalise: Callable[[Sequence[float]], tuple[list[float], float]]
                    ) -> Scored:
    """score = Σ weight × normalised score over the lists; a list a candidate is absent
    from adds weight × that list's floor (what ``normalise`` says an unseen score is)."""
    base: dict[tuple[str, int], Candidate] = {}
    per_list: list[tuple[float, dict[tuple[str, int], float], float]] = []
    weights = _weights(named, params)
    for name, lst in named:
        if not lst:
            continue
        norms, floor = normalise([c.score for c in lst])
        seen: dict[tuple[str, int], float] = {}
        for cand, norm in zip(lst, norms):
            base[cand.key] = _merge(base[cand.key], cand) if cand.key in base else cand
            seen.setdefault(cand.key, norm)
        per_list.append((weights[name], seen, floor))
    scored = {key: sum(w * seen.get(key, floor) for w, seen, floor in per_list)
              for key in base}
    return scored, base


@FUSION.register("weighted")
def _weighted(named: Named, params: Mapping[str, Any]) -> Scored:
    """Each list's scores min-max normalised to [0, 1] (all equal: 1), score = Σ weight ×
    normalised score; ``params["weights"]`` maps list names (or positions) to weights."""
    return _normalised_sum(named, params, lambda v: (_min_max(v), 0.0))


@FUSION.register("zscore")
def _zscore(named: Named, params: Mapping[str, Any]) -> Scored:
    """Each list's scores as z-scores over the list, score = Σ weight × z; a list a
    candidate is absent from adds weight × that list's lowest z (it scored no better)."""
    return _normalised_sum(named, params, _z_scores)


def fuse(candidate_sets: CandidateSets, method: str = "rrf",
         params: Mapping[str, Any] | None = None) -> list[Candidate]:
    """Fuse ranked lists into one with the fusion method registered as ``method``.

    ``rrf``: score = Σ 1 / (k + rank), ``params["k"]`` default 60.
    ``weighted``: each list's scores min-max normalised to [0, 1] (all equal → 1),
    score = Σ weight × normalised score; a list a candidate is absent from adds 0.
    ``zscore``: each list's scores standardised over the list (``(s − mean) / sd``, the
    population deviation; all equal → 0), score = Σ weight × z; a list a candidate is
    absent from adds weight × that list's lowest z (it scored no better than its last).
    Unlike RRF it keeps how far apart the scores are; unlike min-max, one outlier does
    not squash the rest of a list. ``params["weights"]`` maps list names (or positions)
    to weights, default 1 each (``weighted`` and ``zscore``).
    """
    scored, base = FUSION.get(method)(_named(candidate_sets), dict(params or {}))
    return rank_candidates(scored, base)
