"""In-memory BM25 over a collection's packed term frequencies (the embedded lexical index).

Each chunk row stores its analysed terms (``ragd.analysis.pack_terms``). On
first use the rows are turned into postings (CSR: term → rows, counts); later
writes of this process are applied as a small delta segment plus a dead-row
mask, and a write from elsewhere (or a delta grown too big) triggers a full
reload. Scoring is BM25 with Lucene's idf, ``k1`` and ``b`` configurable, and
collection-wide statistics (N, df, average length) over live rows only, so an
incrementally updated index scores exactly like a freshly loaded one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..analysis import unpack_terms
from .topk import top_rows

DEFAULT_K1 = 1.2
DEFAULT_B = 0.75


@dataclass
class LexicalDelta:
    """One committed write: rows removed (by rowid) and rows added with their packed terms."""

    version: int
    removed: np.ndarray
    added_rowids: np.ndarray
    added_keys: list[tuple[str, int]]
    added_terms: list[bytes]


class _Postings:
    """CSR postings of a run of rows: sorted term hashes, row indices and counts per term."""

    def __init__(self, blobs: list[bytes], offset: int = 0) -> None:
        parts = [unpack_terms(b) for b in blobs]
        sizes = np.array([len(h) for h, _ in parts], dtype=np.int64)
        hashes = np.concatenate([h for h, _ in parts]) if parts else np.zeros(0, np.int64)
        counts = np.concatenate([c for _, c in parts]) if parts else np.zeros(0, np.uint16)
        local = np.repeat(np.arange(len(parts), dtype=np.int64), sizes)
        self.lengths = np.bincount(local, weights=counts, minlength=len(parts)).astype(np.float64)
        # One stable sort groups the postings by term with rows ascending inside each term
        # (np.unique with return_inverse plus an argsort of the inverse sorted twice).
        order = np.argsort(hashes, kind="stable")
        grouped = hashes[order]
        starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if len(grouped) \
            else np.zeros(0, dtype=np.int64)
        self.terms = grouped[starts]
        self.indptr = np.append(starts, len(grouped)).astype(np.int64)
        self.rows = local[order] + offset
        self.tf = counts[order].astype(np.float64)

    def get(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        i = int(np.searchsorted(self.terms, term))
        if i == len(self.terms) or self.terms[i] != term:
            return self.rows[:0], self.tf[:0]
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return self.rows[lo:hi], self.tf[lo:hi]


@dataclass
class LexicalIndex:
    """BM25 postings of one collection: a main segment, a delta segment and a live mask."""

    version: int = -1
    rowids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    keys: list[tuple[str, int]] = field(default_factory=list)
    alive: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    pending: list[LexicalDelta] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._main = _Postings([])
        self._delta_terms: list[bytes] = []
        self._delta = _Postings([])
        self._lengths = np.zeros(0, dtype=np.float64)
        self._generation = 0          # bumped whenever rows or liveness change
        self._norm_key: tuple = ()
        self._n_live, self._norm = 0, np.zeros(0, dtype=np.float64)

    def load(self, version: int, rowids: np.ndarray, keys: list[tuple[str, int]],
             terms: list[bytes]) -> None:
        """Replace everything with these rows (rowids ascending)."""
        self.version, self.rowids, self.keys = version, rowids, list(keys)
        self.alive = np.ones(len(keys), dtype=bool)
        self._main = _Postings(terms)
        self._delta_terms, self._delta = [], _Postings([], len(keys))
        self._lengths = self._main.lengths
        self._generation += 1
        self.pending.clear()

    def record(self, delta: LexicalDelta) -> None:
        """Remember a committed write (nothing while unloaded: the next search loads)."""
        if self.version >= 0:
            self.pending.append(delta)

    def sync(self, db_version: int) -> bool:
        """Apply pending deltas up to ``db_version``; False when a reload is needed."""
        if self.version == db_version:
            self.pending.clear()
            return True
        chain = sorted((d for d in self.pending if d.version > self.version),
                       key=lambda d: d.version)
        if self.version < 0 or [d.version for d in chain] != list(
                range(self.version + 1, db_version + 1)):
            return False
        added = sum(len(d.added_keys) for d in chain) + len(self._delta_terms)
        if added > max(1024, len(self._main.lengths) // 4):
            return False
        main_rows = len(self._main.lengths)
        for d in chain:
            dead = np.isin(self.rowids, d.removed)
            self.alive[dead] = False
            self.rowids = np.concatenate([self.rowids, d.added_rowids])
            self.keys.extend(d.added_keys)
            self.alive = np.concatenate([self.alive, np.ones(len(d.added_keys), dtype=bool)])
            self._delta_terms.extend(d.added_terms)
        self._delta = _Postings(self._delta_terms, main_rows)
        self._lengths = np.concatenate([self._main.lengths, self._delta.lengths])
        self.version = db_version
        self._generation += 1
        self.pending.clear()
        return True

    def _norms(self, k1: float, b: float) -> tuple[int, np.ndarray]:
        """Live row count and each row's BM25 length norm, kept until the rows change."""
        key = (self._generation, k1, b)
        if self._norm_key != key:
            n_live = int(self.alive.sum())
            avgdl = (float(self._lengths[self.alive].sum()) / n_live if n_live else 0.0) or 1.0
            self._n_live, self._norm = n_live, k1 * (1.0 - b + b * self._lengths / avgdl)
            self._norm_key = key
        return self._n_live, self._norm

    def top(self, terms: list[int], limit: int, allowed: np.ndarray | None = None,
            k1: float = DEFAULT_K1, b: float = DEFAULT_B
            ) -> list[tuple[tuple[str, int], float]]:
        """Best ``limit`` live rows by BM25 for the query's term hashes (each counted once)."""
        if not terms or limit <= 0:
            return []
        n_live, norm = self._norms(k1, b)
        if n_live == 0:
            return []
        all_alive = n_live == len(self.alive)
        hit_rows: list[np.ndarray] = []
        hit_weights: list[np.ndarray] = []
        for term in dict.fromkeys(terms):
            (rows, tf), (d_rows, d_tf) = self._main.get(term), self._delta.get(term)
            if len(d_rows):
                rows, tf = np.concatenate([rows, d_rows]), np.concatenate([tf, d_tf])
            if not all_alive:
                live = self.alive[rows]
                rows, tf = rows[live], tf[live]
            df = len(rows)
            if df == 0:
                continue
            idf = np.log(1.0 + (n_live - df + 0.5) / (df + 0.5))
            hit_rows.append(rows)
            hit_weights.append(idf * (k1 + 1.0) * tf / (tf + norm[rows]))
        if not hit_rows:
            return []
        # One scatter-add over all terms' postings (BM25 weights are > 0, so a row
        # scores > 0 exactly when it holds a query term).
        scores = np.bincount(np.concatenate(hit_rows), weights=np.concatenate(hit_weights),
                             minlength=len(self.keys))
        candidate = scores > 0
        if allowed is not None:
            candidate &= np.isin(self.rowids, allowed)
        return top_rows(scores, np.flatnonzero(candidate), self.keys, limit)
