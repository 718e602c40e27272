"""Exact top-k BM25 that skips most postings of frequent terms (MaxScore, term at a time).

Every query term carries an upper bound of what it adds to any row's score (its idf times
the largest tf part among its postings, see ``_Postings.bound``). Terms are scored in full
in descending bound order while a lower bound ``theta`` of the k-th best score is kept
(the k-th best partial score of distinct rows seen: scores only grow as terms are added).
Once the bounds of the terms left sum to less than theta, no row unseen so far can reach
the top k: the terms left are only looked up (binary search in their sorted rows) for the
rows seen whose partial score plus the bounds left still reaches theta, and rows that fall
below are dropped as theta rises. The survivors' scores are finally summed again term by
term in the query's order, the order of the exhaustive sum, so they are bit-identical to
it, and the top k (ties by key) is the same.

Comparisons carry a relative margin far above floating-point rounding (the partial sums
here are added in another order than the final ones): a row is dropped only when it is
below theta by more than rounding could explain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MARGIN = 1e-9
"""Relative slack of every pruning comparison (rounding error is ~1e-15 per addition)."""


@dataclass(frozen=True)
class TermPostings:
    """One query term: its postings per segment (rows ascending, counts), ``weight`` =
    idf * (k1 + 1), and ``bound`` >= weight * tf / (tf + norm) for each of its postings."""

    parts: tuple[tuple[np.ndarray, np.ndarray], ...]
    weight: float
    bound: float

    def contributions(self, rows: np.ndarray, tf: np.ndarray, norm: np.ndarray) -> np.ndarray:
        """BM25 weights of postings, by the exhaustive scorer's very expression."""
        return self.weight * tf / (tf + norm[rows])

    def lookup(self, cand: np.ndarray, norm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions in ``cand`` (sorted rows) holding this term, their weights)."""
        where, weights = [], []
        for rows, tf in self.parts:
            if not len(rows):
                continue
            pos = np.searchsorted(rows, cand)
            np.minimum(pos, len(rows) - 1, out=pos)
            hit = np.flatnonzero(rows[pos] == cand)
            if len(hit):
                at = pos[hit]
                where.append(hit)
                weights.append(self.contributions(cand[hit], tf[at], norm))
        if not where:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        if len(where) == 1:
            return where[0], weights[0]
        return np.concatenate(where), np.concatenate(weights)


def _below(value: np.ndarray | float, theta: float):
    """Whether ``value`` (an upper bound) is surely below ``theta`` (a lower bound)."""
    return value * (1.0 + MARGIN) < theta * (1.0 - MARGIN)


def _kth_best(rows: np.ndarray, acc: np.ndarray, limit: int) -> tuple[float, np.ndarray]:
    """The ``limit``-th best partial score of ``rows`` (distinct) and the rows reaching it."""
    values = acc[rows]
    best = np.argpartition(values, len(values) - limit)[len(values) - limit:]
    return float(values[best].min()), rows[best]


def _member(parts: tuple[tuple[np.ndarray, np.ndarray], ...], rows: np.ndarray) -> np.ndarray:
    """Which of ``rows`` appear in the sorted rows of ``parts``."""
    found = np.zeros(len(rows), dtype=bool)
    for sorted_rows, _ in parts:
        if len(sorted_rows):
            pos = np.minimum(np.searchsorted(sorted_rows, rows), len(sorted_rows) - 1)
            found |= sorted_rows[pos] == rows
    return found


def pruned_top(terms: list[TermPostings], norm: np.ndarray, n_rows: int,
               mask: np.ndarray | None, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, exact scores): a superset of the best ``limit`` rows by BM25 over ``terms``
    (in query order), including every row tied with the ``limit``-th score. ``mask``
    (over rows) keeps rows that may be returned (live, allowed); None keeps all."""
    order = sorted(range(len(terms)), key=lambda i: -terms[i].bound)
    rest = np.cumsum([terms[i].bound for i in reversed(order)])[::-1].tolist() + [0.0]
    acc = np.zeros(n_rows)
    theta, pool = 0.0, np.zeros(0, dtype=np.int64)
    seen: list[np.ndarray] = []
    done = 0
    for i in order:
        if theta > 0.0 and _below(rest[done], theta):
            break  # no row outside ``seen`` can reach the top
        term = terms[i]
        scored = []
        for rows, tf in term.parts:
            if mask is not None:
                keep = mask[rows]
                rows, tf = rows[keep], tf[keep]
            acc[rows] += term.contributions(rows, tf, norm)
            scored.append((rows, tf))
            seen.append(rows)
        done += 1
        fresh = pool[~_member(tuple(scored), pool)] if len(pool) else pool
        distinct = np.concatenate([fresh, *(r for r, _ in scored)])
        if len(distinct) >= limit:
            kth, best = _kth_best(distinct, acc, limit)
            if kth >= theta:
                theta, pool = kth, best
    if not seen:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    cand = np.concatenate(seen)
    if theta > 0.0:
        cand = cand[~_below(acc[cand] + rest[done], theta)]
    cand = np.unique(cand)
    for step in range(done, len(order)):
        term = terms[order[step]]
        where, weights = term.lookup(cand, norm)
        acc[cand[where]] += weights
        values = acc[cand]
        if len(cand) >= limit:
            theta = max(theta, float(np.partition(values, len(values) - limit)[len(values) - limit]))
        cand = cand[~_below(values + rest[step + 1], theta)]
    scores = np.zeros(len(cand))
    for term in terms:  # the query's order: the exhaustive sum's order, bit for bit
        where, weights = term.lookup(cand, norm)
        scores[where] += weights
    return cand, scores
