"""Exact top-k BM25 that skips most postings of frequent terms (MaxScore, term at a time).

Every query term carries an upper bound of what it adds to any row's score (its idf times
the largest tf part among its postings, see ``_Postings.bound``). Terms are scored in full
in descending bound order while a lower bound ``theta`` of the k-th best score is kept: the
k-th best full score of a few hundred rows scored in full (after each term, the rows of
best partial score). Once the bounds of the terms left sum to less than theta, no row
unseen so far can reach the top k: the terms left are only matched (binary search, or one
pass of their rows against a candidate mask) with the rows seen whose partial score plus
the bounds left still reaches theta, and rows falling below are dropped as theta rises.
The survivors' scores are finally summed again term by term in the query's order, the
order of the exhaustive sum, so they are bit-identical to it, and the top k (ties by key)
is the same.

Comparisons carry a relative margin far above floating-point rounding (the partial sums
here are added in another order than the final ones): a row is dropped only when it is
below theta by more than rounding could explain.

Not the default (``LexicalView.top(prune=True)``): measured on the SciFact-derived 1M set
it was no faster than the one-pass sum (flat scores of synthetic text leave theta low
against the bounds, and the bookkeeping costs what the skipped postings save), and slower
on small collections (docs/benchmarks.md, "Lexical query speed").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MARGIN = 1e-9
"""Relative slack of every pruning comparison (rounding error is ~1e-15 per addition)."""
LOOKUP_COST = 16
"""Binary searches of candidates cost about this many times a masked pass per posting."""
SEED_ROWS = 512
"""Rows fully scored after each term, to raise the k-th score bound (or 8 per result)..."""
REFINE_ROWS = 16_384
"""... of a term with at most this many postings (choosing among more costs more than the
bound saves), or of the first term."""


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


class _Known:
    """Rows whose full scores are known: the k-th best of them bounds the final k-th score
    from below. Fed with the best partial scores after each term scored in full (a row
    holding the rare terms is likely to rank), each looked up in every term once."""

    def __init__(self, terms: list[TermPostings], norm: np.ndarray, limit: int) -> None:
        self.terms, self.norm, self.limit = terms, norm, limit
        self.budget = max(SEED_ROWS, 8 * limit)
        self.rows = np.zeros(0, dtype=np.intp)
        self.scores = np.zeros(0)
        self.theta = 0.0

    def add(self, rows: np.ndarray, partial: np.ndarray) -> float:
        """Score the rows of best ``partial`` score among ``rows`` (distinct); new theta."""
        if len(rows) > self.budget:
            rows = rows[np.argpartition(partial, len(rows) - self.budget)[-self.budget:]]
        rows = np.setdiff1d(rows, self.rows, assume_unique=True)
        if len(rows):
            scores = np.zeros(len(rows))
            for term in self.terms:
                where, weights = term.lookup(rows, self.norm)
                scores[where] += weights
            self.rows = np.concatenate([self.rows, rows])
            self.scores = np.concatenate([self.scores, scores])
            n = len(self.scores)
            if n >= self.limit:
                self.theta = float(np.partition(self.scores, n - self.limit)[n - self.limit])
        return self.theta


def pruned_top(terms: list[TermPostings], norm: np.ndarray, n_rows: int,
               mask: np.ndarray | None, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, exact scores): a superset of the best ``limit`` rows by BM25 over ``terms``
    (in query order), including every row tied with the ``limit``-th score. ``mask``
    (over rows) keeps rows that may be returned (live, allowed); None keeps all."""
    order = sorted(range(len(terms)), key=lambda i: -terms[i].bound)
    ranked = [terms[i] for i in order]
    rest = np.cumsum([t.bound for t in reversed(ranked)])[::-1].tolist() + [0.0]
    acc = np.zeros(n_rows)
    known = _Known(ranked, norm, limit)
    theta = 0.0
    seen: list[np.ndarray] = []
    done = 0
    for term in ranked:
        if theta > 0.0 and _below(rest[done], theta):
            break  # no row outside ``seen`` can reach the top
        scored = []
        for rows, tf in term.parts:
            rows = rows.astype(np.intp)  # fancy indexing by int32 is several times slower
            if mask is not None:
                keep = mask[rows]
                rows, tf = rows[keep], tf[keep]
            np.add.at(acc, rows, term.contributions(rows, tf, norm))  # rows distinct
            scored.append(rows)
        seen.extend(scored)
        done += 1
        size = sum(len(r) for r in scored)
        if done < len(ranked) and size and (theta == 0.0 or size <= REFINE_ROWS):
            rows = np.concatenate(scored) if len(scored) > 1 else scored[0]
            theta = known.add(rows, acc[rows])
    if not seen:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    seen_rows = np.concatenate(seen) if len(seen) > 1 else seen[0]
    member = np.zeros(n_rows, dtype=bool)  # the candidates, as a mask (sorted for free)
    member[seen_rows[~_below(acc[seen_rows] + rest[done], theta)] if theta > 0.0
           else seen_rows] = True
    cand = np.flatnonzero(member)
    for step in range(done, len(ranked)):
        term = ranked[step]
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
