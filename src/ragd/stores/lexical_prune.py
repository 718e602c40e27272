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
LOOKUP_COST = 16
"""Binary searches of candidates cost about this many times a masked pass per posting."""
SEED_ROWS = 512
"""Rows at most whose full scores seed the k-th score bound (or 8 per result wanted)."""


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
            query = cand.astype(rows.dtype, copy=False)  # else numpy converts all of ``rows``
            pos = np.searchsorted(rows, query)
            np.minimum(pos, len(rows) - 1, out=pos)
            hit = np.flatnonzero(rows[pos] == query)
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
            query = rows.astype(sorted_rows.dtype, copy=False)
            pos = np.minimum(np.searchsorted(sorted_rows, query), len(sorted_rows) - 1)
            found |= sorted_rows[pos] == query
    return found


def _seed_theta(ranked: list[TermPostings], norm: np.ndarray, mask: np.ndarray | None,
                limit: int) -> float:
    """A lower bound of the k-th best score: the k-th best full score of a few likely rows,
    those of the terms of highest bound (the rarest, as a rule) while they are few, or the
    best-weighted postings of the first term. Each is looked up in every term, hence few.
    0.0 when they are under ``limit``."""
    budget = max(SEED_ROWS, 8 * limit)
    picked: list[np.ndarray] = []
    size = 0
    for first, term in enumerate(ranked):
        parts = [(r.astype(np.intp), tf) for r, tf in term.parts]
        if mask is not None:
            parts = [(r[mask[r]], tf[mask[r]]) for r, tf in parts]
        rows = np.concatenate([r for r, _ in parts])
        if size + len(rows) <= budget:
            picked.append(rows)
            size += len(rows)
            continue
        if first == 0:
            weights = np.concatenate([term.contributions(r, tf, norm) for r, tf in parts])
            picked.append(rows[np.argpartition(weights, len(rows) - budget)[len(rows) - budget:]])
        break
    rows = np.unique(np.concatenate(picked)) if picked else np.zeros(0, dtype=np.intp)
    if len(rows) < limit:
        return 0.0
    scores = np.zeros(len(rows))
    for term in ranked:
        where, weights = term.lookup(rows, norm)
        scores[where] += weights
    return float(np.partition(scores, len(scores) - limit)[len(scores) - limit])


def pruned_top(terms: list[TermPostings], norm: np.ndarray, n_rows: int,
               mask: np.ndarray | None, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, exact scores): a superset of the best ``limit`` rows by BM25 over ``terms``
    (in query order), including every row tied with the ``limit``-th score. ``mask``
    (over rows) keeps rows that may be returned (live, allowed); None keeps all."""
    order = sorted(range(len(terms)), key=lambda i: -terms[i].bound)
    rest = np.cumsum([terms[i].bound for i in reversed(order)])[::-1].tolist() + [0.0]
    acc = np.zeros(n_rows)
    theta = _seed_theta([terms[i] for i in order], norm, mask, limit)
    seeded = theta > 0.0
    pool = np.zeros(0, dtype=np.int64)
    seen: list[np.ndarray] = []
    done = 0
    for i in order:
        if theta > 0.0 and _below(rest[done], theta):
            break  # no row outside ``seen`` can reach the top
        term = terms[i]
        scored = []
        for rows, tf in term.parts:
            rows = rows.astype(np.intp)  # fancy indexing by int32 is several times slower
            if mask is not None:
                keep = mask[rows]
                rows, tf = rows[keep], tf[keep]
            np.add.at(acc, rows, term.contributions(rows, tf, norm))  # rows distinct
            scored.append((rows, tf))
            seen.append(rows)
        done += 1
        if seeded:
            continue  # the seed is close to the final k-th score: no need to raise it here
        fresh = pool[~_member(tuple(scored), pool)] if len(pool) else pool
        distinct = np.concatenate([fresh, *(r for r, _ in scored)])
        if len(distinct) >= limit:
            kth, best = _kth_best(distinct, acc, limit)
            if kth >= theta:
                theta, pool = kth, best
    if not seen:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    member = np.zeros(n_rows, dtype=bool)  # the candidates, as a mask (sorted for free)
    for rows in seen:
        member[rows[~_below(acc[rows] + rest[done], theta)] if theta > 0.0 else rows] = True
    cand = np.flatnonzero(member)
    for step in range(done, len(order)):
        term = terms[order[step]]
        size = sum(len(r) for r, _ in term.parts)
        if len(cand) * LOOKUP_COST < size:
            where, weights = term.lookup(cand, norm)
            np.add.at(acc, cand[where], weights)
        else:  # a pass over the term's rows against the mask beats a search per candidate
            for rows, tf in term.parts:
                rows = rows.astype(np.intp)
                hit = member[rows]
                rows, tf = rows[hit], tf[hit]
                np.add.at(acc, rows, term.contributions(rows, tf, norm))
        values = acc[cand]
        if len(cand) >= limit:
            theta = max(theta, float(np.partition(values, len(values) - limit)[len(values) - limit]))
        drop = _below(values + rest[step + 1], theta)
        member[cand[drop]] = False
        cand = cand[~drop]
    scores = np.zeros(len(cand))
    for term in terms:  # the query's order: the exhaustive sum's order, bit for bit
        where, weights = term.lookup(cand, norm)
        scores[where] += weights
    return cand, scores
