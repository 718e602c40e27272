"""Exact, deterministic top-k selection over a score array."""

from __future__ import annotations

from typing import Sequence

import numpy as np


def top_rows(scores: np.ndarray, rows: np.ndarray, keys: Sequence[tuple[str, int]],
             limit: int) -> list[tuple[tuple[str, int], float]]:
    """The best ``limit`` of ``rows`` by ``scores[rows]``, ties by key ascending.

    Every row scoring at least the limit-th score is considered before the
    cut, so ties at the boundary are broken by key, not by position.
    """
    if rows.size == 0 or limit <= 0:
        return []
    values = scores[rows]
    if values.size > limit:
        kth = np.partition(values, values.size - limit)[values.size - limit]
        sel = rows[values >= kth]
    else:
        sel = rows
    ranked = sorted(((float(scores[i]), keys[i]) for i in sel), key=lambda sk: (-sk[0], sk[1]))
    return [(key, score) for score, key in ranked[:limit]]
