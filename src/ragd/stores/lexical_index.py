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
from typing import Sequence

import numpy as np

from ..analysis import unpack_terms
from . import lexical_kernel
from .array_file import ChainedKeys, take_keys
from .lexical_prune import TermPostings, pruned_top
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
    """CSR postings of a run of rows: sorted term hashes, row indices and counts per term
    (and, for pruned searches, each term's largest BM25 tf part, found when first asked)."""

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
        self._bounds: dict[tuple[float, float, float], dict[int, float]] = {}

    @classmethod
    def from_arrays(cls, terms: np.ndarray, indptr: np.ndarray, rows: np.ndarray,
                    tf: np.ndarray, lengths: np.ndarray) -> "_Postings":
        """Postings from arrays saved by :meth:`arrays` (memory-mapped ones will do)."""
        self = cls.__new__(cls)
        self.terms, self.indptr, self.rows, self.tf, self.lengths = (terms, indptr, rows, tf,
                                                                     lengths)
        self._bounds = {}
        return self

    def arrays(self) -> dict[str, np.ndarray]:
        """The postings as compact arrays (rows int32, counts uint16: exactly the same
        values, half the bytes or less)."""
        return {"terms": self.terms, "indptr": self.indptr,
                "rows": self.rows.astype(np.int32), "tf": self.tf.astype(np.uint16),
                "lengths": self.lengths}

    def find(self, term: int) -> int:
        """The index of ``term`` in :attr:`terms`, or -1."""
        i = int(np.searchsorted(self.terms, term))
        return i if i < len(self.terms) and self.terms[i] == term else -1

    def at(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows and counts of the term at index ``i`` (-1: none)."""
        if i < 0:
            return self.rows[:0], self.tf[:0]
        lo, hi = self.indptr[i], self.indptr[i + 1]
        return self.rows[lo:hi], self.tf[lo:hi]

    def get(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        return self.at(self.find(term))

    def spans(self, hashes: np.ndarray) -> tuple[list[int], list[int], list[int]]:
        """Per term hash: its index (-1: absent) and the start and end of its postings."""
        if not len(self.terms):
            return [-1] * len(hashes), [0] * len(hashes), [0] * len(hashes)
        i = np.minimum(np.searchsorted(self.terms, hashes), len(self.terms) - 1)
        held = self.terms[i] == hashes
        return (np.where(held, i, -1).tolist(), self.indptr[i].tolist(),
                self.indptr[i + 1].tolist())

    def span_arrays(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per term hash, the start and end of its postings (equal when absent)."""
        i = np.minimum(np.searchsorted(self.terms, hashes), len(self.terms) - 1)
        held = self.terms[i] == hashes
        lo = np.where(held, self.indptr[i], 0)
        return lo, np.where(held, self.indptr[i + 1], 0)

    def bound(self, i: int, k1: float, b: float, avgdl: float, norm: np.ndarray) -> float:
        """The largest ``tf / (tf + norm[row])`` over the postings of term ``i`` at average
        length ``avgdl`` (``norm``: the view's length norms for it), remembered."""
        cache = self._bounds.get((k1, b, avgdl))
        if cache is None:
            if len(self._bounds) >= 4:  # older averages (writes since) are not asked again
                self._bounds.clear()
            cache = self._bounds[(k1, b, avgdl)] = {}
        found = cache.get(i)
        if found is None:
            rows, tf = self.at(i)
            found = cache[i] = float(np.max(tf / (tf + norm[rows])))
        return found


@dataclass
class LexicalView:
    """The index as of one data version: immutable, so a search scores it without a lock
    while the index moves on (loads and syncs build new arrays, never change these)."""

    version: int
    rowids: np.ndarray
    keys: Sequence[tuple[str, int]]
    alive: np.ndarray
    main: _Postings
    delta: _Postings
    lengths: np.ndarray
    _norms: dict = field(default_factory=dict, repr=False)

    def norms(self, k1: float, b: float) -> tuple[int, np.ndarray]:
        """Live row count and each row's BM25 length norm (computed once per k1, b)."""
        n_live, norm, _ = self._stats(k1, b)
        return n_live, norm

    def _stats(self, k1: float, b: float) -> tuple[int, np.ndarray, float]:
        found = self._norms.get((k1, b))
        if found is None:
            n_live = int(self.alive.sum())
            avgdl = (float(self.lengths[self.alive].sum()) / n_live if n_live else 0.0) or 1.0
            found = self._norms[(k1, b)] = (n_live, k1 * (1.0 - b + b * self.lengths / avgdl),
                                            avgdl)
        return found

    def top(self, terms: list[int], limit: int, allowed: np.ndarray | None = None,
            k1: float = DEFAULT_K1, b: float = DEFAULT_B, prune: bool = False,
            compiled: bool | None = None) -> list[tuple[tuple[str, int], float]]:
        """Best ``limit`` live rows by BM25 for the query's term hashes (each counted once).

        Every posting of the query's terms is weighed in one pass: a compiled loop
        (:mod:`.lexical_kernel`) when ``RAGD_LEXICAL_KERNEL`` has it loaded, else
        vectorised numpy; ``compiled`` True or False forces one (benchmarks, tests). The
        result is the same to the bit. ``prune`` scores term at a time instead, skipping
        postings that cannot reach the top (:mod:`.lexical_prune`): the same result again,
        but measured no faster on the 1M-chunk benchmark set (docs/benchmarks.md), hence
        not the default."""
        if not terms or limit <= 0:
            return []
        n_live, norm, avgdl = self._stats(k1, b)
        if n_live == 0:
            return []
        all_alive = n_live == len(self.alive)
        mask = self.alive if not all_alive else None
        if allowed is not None:
            mask = np.isin(self.rowids, allowed) & (self.alive if mask is None else mask)
        if prune or compiled is False:
            fast = None
        elif compiled:
            fast = lexical_kernel.load()
            if fast is None:
                raise RuntimeError("the compiled BM25 loop needs numba, which does not import")
        else:
            fast = lexical_kernel.kernel(len(self.main.rows) + len(self.delta.rows))
        if fast is not None:
            return self._top_compiled(fast, terms, limit, n_live, norm, all_alive, mask, k1)
        found = self._find(terms)
        if not found:
            return []
        if not prune:
            return self._top_all(found, limit, n_live, norm, all_alive, mask, k1)
        query = []
        for i, j, parts in found:
            df = (sum(len(r) for r, _ in parts) if all_alive
                  else sum(int(np.count_nonzero(self.alive[r])) for r, _ in parts))
            if df == 0:
                continue
            weight = np.log(1.0 + (n_live - df + 0.5) / (df + 0.5)) * (k1 + 1.0)
            tf_part = max(seg.bound(x, k1, b, avgdl, norm)
                          for seg, x in ((self.main, i), (self.delta, j)) if x >= 0)
            query.append(TermPostings(parts, weight, weight * tf_part * (1.0 + 1e-12)))
        rows, scores = pruned_top(query, norm, len(self.keys), mask, limit)
        dense = np.zeros(len(self.keys))
        dense[rows] = scores
        return top_rows(dense, rows, self.keys, limit)

    def _find(self, terms: list[int]) -> list[tuple[int, int, tuple]]:
        """(index in main, index in delta, postings per segment) of each distinct query term
        held (one vectorised search per segment: per term, numpy calls cost more)."""
        hashes = np.fromiter(dict.fromkeys(terms), dtype=np.int64)
        segments = [(seg, seg.spans(hashes)) for seg in (self.main, self.delta)
                    if len(seg.terms)]
        found = []
        for t in range(len(hashes)):
            at = [-1, -1]
            parts = []
            for k, (seg, (idx, lo, hi)) in enumerate(segments):
                if idx[t] >= 0:
                    at[k if seg is self.main else 1] = idx[t]
                    parts.append((seg.rows[lo[t]:hi[t]], seg.tf[lo[t]:hi[t]]))
            if parts:
                found.append((at[0], at[1], tuple(parts)))
        return found

    def _top_compiled(self, fast: lexical_kernel.Kernel, terms: list[int], limit: int,
                      n_live: int, norm: np.ndarray, all_alive: bool, mask: np.ndarray | None,
                      k1: float) -> list[tuple[tuple[str, int], float]]:
        """:meth:`_top_all`'s very sum and cut, in compiled loops (:mod:`.lexical_kernel`):
        the same df array through the same numpy expression for the term weights, then
        the postings added in the same order."""
        hashes = np.fromiter(dict.fromkeys(terms), dtype=np.int64)
        parts, lens = lexical_kernel.query_spans(
            fast, [(seg.terms, seg.indptr, seg.rows, seg.tf) for seg in (self.main, self.delta)
                   if len(seg.terms)], hashes, None if all_alive else self.alive)
        if not lens.any():
            return []
        df = lens.astype(np.float64)
        idf = np.log(1.0 + (n_live - df + 0.5) / (df + 0.5))
        weight = idf * (k1 + 1.0)
        rows, scores = lexical_kernel.top_candidates(
            fast, parts, weight, norm, len(self.keys), None if all_alive else self.alive, mask,
            limit)
        ranked = sorted(zip(scores.tolist(), take_keys(self.keys, rows)),
                        key=lambda sk: (-sk[0], sk[1]))
        return [(key, score) for score, key in ranked[:limit]]

    def _top_all(self, found: list, limit: int, n_live: int, norm: np.ndarray,
                 all_alive: bool, mask: np.ndarray | None, k1: float
                 ) -> list[tuple[tuple[str, int], float]]:
        """Every posting of every query term summed (the reference the pruning must equal),
        all terms at once: each posting's weight by the same expression, in term order."""
        lens = np.array([sum(len(r) for r, _ in parts) for _, _, parts in found])
        rows = np.concatenate([r for _, _, parts in found for r, _ in parts]).astype(np.intp)
        tf = np.concatenate([t for _, _, parts in found for _, t in parts])
        if not all_alive:
            live = self.alive[rows]
            lens = np.add.reduceat(live.astype(np.int64), np.cumsum(lens) - lens)
            rows, tf = rows[live], tf[live]
        if not len(rows):
            return []
        df = lens.astype(np.float64)
        idf = np.log(1.0 + (n_live - df + 0.5) / (df + 0.5))
        weights = np.repeat(idf * (k1 + 1.0), lens) * tf / (tf + norm[rows])
        # One scatter-add over all terms' postings (BM25 weights are > 0, so a row
        # scores > 0 exactly when it holds a query term).
        scores = np.bincount(rows, weights=weights, minlength=len(self.keys))
        candidate = scores > 0
        if mask is not None:
            candidate &= mask
        rows = np.flatnonzero(candidate)
        if len(rows) > limit:  # the rows reaching the limit-th score (ties kept), first
            values = scores[rows]
            rows = rows[values >= np.partition(values, len(rows) - limit)[len(rows) - limit]]
        return top_rows(scores, rows, self.keys, limit)


def _empty_view() -> LexicalView:
    none = _Postings([])
    return LexicalView(-1, np.zeros(0, dtype=np.int64), [], np.zeros(0, dtype=bool), none, none,
                       np.zeros(0, dtype=np.float64))


RECENT_VIEWS = 4
"""Views of the last few versions kept, for a reader whose snapshot is a little older than
the index (another reader moved it on meanwhile)."""


class LexicalIndex:
    """BM25 postings of one collection: a main segment, a delta segment and a live mask.

    Not thread-safe: the store serialises :meth:`load`, :meth:`record` and :meth:`sync`;
    searches score a :class:`LexicalView`, which never changes.
    """

    def __init__(self) -> None:
        self.pending: list[LexicalDelta] = []
        self._view = _empty_view()
        self._delta_terms: list[bytes] = []
        self._recent: dict[int, LexicalView] = {}

    @property
    def version(self) -> int:
        return self._view.version

    def view(self) -> LexicalView:
        return self._view

    def view_at(self, version: int) -> LexicalView | None:
        """The view of exactly ``version``, if it is the current one or a recent one."""
        return self._view if self._view.version == version else self._recent.get(version)

    def _set(self, view: LexicalView) -> None:
        self._view = view
        self._recent[view.version] = view
        for old in sorted(self._recent)[:-RECENT_VIEWS]:
            del self._recent[old]

    def load(self, version: int, rowids: np.ndarray, keys: list[tuple[str, int]],
             terms: list[bytes]) -> None:
        """Replace everything with these rows (rowids ascending), as of ``version``."""
        main = _Postings(terms)
        self._recent.clear()
        self._delta_terms = []
        self._set(LexicalView(version, rowids, list(keys), np.ones(len(keys), dtype=bool), main,
                              _Postings([], len(keys)), main.lengths))
        self.pending.clear()

    def load_view(self, view: LexicalView, delta_terms: list[bytes]) -> None:
        """Replace everything with ``view`` (a persisted segment, plus ``delta_terms``: the
        packed terms of the rows of its delta segment, in order)."""
        self._recent.clear()
        self._delta_terms = list(delta_terms)
        self._set(view)
        self.pending.clear()

    def record(self, delta: LexicalDelta) -> None:
        """Remember a committed write (nothing while unloaded: the next search loads)."""
        if self.version >= 0:
            self.pending.append(delta)

    def sync(self, db_version: int) -> bool:
        """Move to ``db_version`` by the pending deltas; False when a reload is needed
        (a version they do not explain, or a delta grown too big)."""
        view = self._view
        if view.version == db_version:
            self.pending = [d for d in self.pending if d.version > db_version]
            return True
        chain = sorted((d for d in self.pending if view.version < d.version <= db_version),
                       key=lambda d: d.version)
        if view.version < 0 or [d.version for d in chain] != list(
                range(view.version + 1, db_version + 1)):
            return False
        added = sum(len(d.added_keys) for d in chain) + len(self._delta_terms)
        if added > max(1024, len(view.main.lengths) // 4):
            return False
        alive, rowids = view.alive.copy(), view.rowids
        new_keys: list[tuple[str, int]] = []
        delta_terms = list(self._delta_terms)
        for d in chain:
            alive[np.isin(rowids, d.removed)] = False
            rowids = np.concatenate([rowids, d.added_rowids])
            new_keys.extend(d.added_keys)
            alive = np.concatenate([alive, np.ones(len(d.added_keys), dtype=bool)])
            delta_terms.extend(d.added_terms)
        keys = (view.keys.plus(new_keys) if isinstance(view.keys, ChainedKeys)
                else ChainedKeys(view.keys, new_keys))
        delta = _Postings(delta_terms, len(view.main.lengths))
        self._delta_terms = delta_terms
        self._set(LexicalView(db_version, rowids, keys, alive, view.main, delta,
                              np.concatenate([view.main.lengths, delta.lengths])))
        self.pending = [d for d in self.pending if d.version > db_version]
        return True

    def top(self, terms: list[int], limit: int, allowed: np.ndarray | None = None,
            k1: float = DEFAULT_K1, b: float = DEFAULT_B
            ) -> list[tuple[tuple[str, int], float]]:
        """:meth:`LexicalView.top` on the current view."""
        return self._view.top(terms, limit, allowed, k1, b)

