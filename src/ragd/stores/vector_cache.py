"""In-memory matrix of a collection's embeddings for exact cosine search with numpy.

The cache is loaded once, then kept in sync with the store's own writes by
applying their deltas lazily (at the next search), so bulk ingestion never
copies the matrix per document. A write from another process shows as a
data-version jump the deltas cannot explain, and triggers a full reload.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .topk import top_rows

RECENT_VIEWS = 4
"""Views of the last few versions kept, for a reader whose snapshot is a little older than
the cache (another reader moved it on meanwhile)."""


@dataclass
class Delta:
    """One committed write: rows removed (by rowid) and rows added."""

    version: int
    removed: np.ndarray
    added_rowids: np.ndarray
    added_keys: list[tuple[str, int]]
    added_vectors: np.ndarray


@dataclass
class VectorCache:
    """Rows of one collection: rowids, (doc_id, chunk_index) keys and unit vectors."""

    dims: int
    version: int = -1
    rowids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    keys: list[tuple[str, int]] = field(default_factory=list)
    matrix: np.ndarray | None = None
    pending: list[Delta] = field(default_factory=list)

    recent: dict[int, "VectorView"] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.matrix is None:
            self.matrix = np.zeros((0, self.dims), dtype=np.float32)

    def load(self, version: int, rowids: np.ndarray, keys: list[tuple[str, int]],
             matrix: np.ndarray) -> None:
        self.recent.clear()
        self._set(version, rowids, keys, matrix)
        self.pending.clear()

    def _set(self, version: int, rowids: np.ndarray, keys: list[tuple[str, int]],
             matrix: np.ndarray) -> None:
        self.version, self.rowids, self.keys, self.matrix = version, rowids, keys, matrix
        if version >= 0:
            self.recent[version] = self.view()
            for old in sorted(self.recent)[:-RECENT_VIEWS]:
                del self.recent[old]

    def record(self, delta: Delta) -> None:
        """Remember a committed write; applied at the next :meth:`sync`.

        An unloaded cache records nothing (the next search loads it whole), and
        once the pending rows outgrow the cache itself, a reload is cheaper.
        """
        if self.version < 0:
            return
        self.pending.append(delta)
        if sum(len(d.added_keys) for d in self.pending) > max(len(self.keys), 1024):
            self.load(-1, np.zeros(0, dtype=np.int64), [], np.zeros((0, self.dims), np.float32))

    def sync(self, db_version: int) -> bool:
        """Bring the cache to ``db_version`` from pending deltas; False if it cannot."""
        if self.version == db_version:
            self.pending = [d for d in self.pending if d.version > db_version]
            return True
        chain = [d for d in self.pending if self.version < d.version <= db_version]
        chain.sort(key=lambda d: d.version)
        expected = list(range(self.version + 1, db_version + 1))
        if self.version < 0 or [d.version for d in chain] != expected:
            return False
        # Rowids are never reused (AUTOINCREMENT), so all deltas apply in one pass.
        removed = np.concatenate([d.removed for d in chain])
        add_ids = np.concatenate([d.added_rowids for d in chain])
        add_keys = [k for d in chain for k in d.added_keys]
        add_vecs = np.concatenate([d.added_vectors for d in chain])
        keep = ~np.isin(self.rowids, removed)
        keep_new = ~np.isin(add_ids, removed)
        self._set(
            db_version,
            np.concatenate([self.rowids[keep], add_ids[keep_new]]),
            [k for k, ok in zip(self.keys, keep) if ok]
            + [k for k, ok in zip(add_keys, keep_new) if ok],
            np.concatenate([self.matrix[keep], add_vecs[keep_new]]),
        )
        self.pending = [d for d in self.pending if d.version > db_version]
        return True

    def view(self) -> "VectorView":
        """The current rows as an immutable snapshot, searchable without the store's lock
        (loads and syncs replace the arrays, never modify them in place)."""
        return VectorView(self.rowids, self.keys, self.matrix, self.version)

    def view_at(self, version: int) -> "VectorView | None":
        """The view of exactly ``version``, if it is the current one or a recent one."""
        return self.view() if self.version == version else self.recent.get(version)


@dataclass(frozen=True)
class VectorView:
    """A snapshot of a cache's rows: rowids, keys and unit vectors."""

    rowids: np.ndarray
    keys: list[tuple[str, int]]
    matrix: np.ndarray
    version: int = -1

    def top(self, query: np.ndarray, limit: int, allowed: np.ndarray | None = None
            ) -> list[tuple[tuple[str, int], float]]:
        """Best ``limit`` rows by dot product with ``query`` (unit vectors: cosine);
        only rows whose rowid is in ``allowed`` when it is given."""
        query = np.asarray(query, dtype=np.float32)
        if allowed is None:
            return top_rows(self.matrix @ query, np.arange(len(self.keys)), self.keys, limit)
        rows = np.flatnonzero(np.isin(self.rowids, allowed))
        scores = np.zeros(len(self.keys), dtype=np.float32)
        scores[rows] = self.matrix[rows] @ query
        return top_rows(scores, rows, self.keys, limit)
