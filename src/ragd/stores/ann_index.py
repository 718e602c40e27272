"""Approximate vector search for the embedded store: an HNSW graph (usearch) keyed by rowid.

The graph holds a collection's unit vectors under their chunk rowids (never reused:
AUTOINCREMENT) and is saved beside the SQLite file as ``<store file>-c<id>.ann`` (usearch's
own format) with ``.ann.meta`` (:mod:`ragd.stores.array_file`: the data version it is at,
the collection it belongs to, its rowids). A saved graph is memory-mapped for searching
(opening costs nothing, pages load as the search walks them); the first write to apply
loads it whole, since a mapped graph cannot change.

It follows the store: this process's writes are applied as they commit (removed rowids
out, added rows in), and a data version they do not explain (another process wrote) is
caught up from the rows themselves (rowids gone are removed, rowids above the graph's
last are added). Built single-threaded, in rowid order, so the same rows give the same
graph and the same results on every run.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import numpy as np

from .array_file import read_arrays, write_arrays

log = logging.getLogger("ragd.store")

DEFAULT_THRESHOLD = 50_000
"""Chunks from which a collection's searches use (and, on first need, build) the graph."""
CONNECTIVITY = 16          # graph degree (HNSW M)
EXPANSION_ADD = 64         # candidate list while building (ef_construction)
DEFAULT_EF_SEARCH = 96     # candidate list per query (ef_search), raised to the count asked
DTYPE = "f16"              # vectors in the graph: half the bytes; candidates are rescored
                           # exactly from the stored float32 embeddings
FORMAT = 1


def ann_paths(store_path: Path, cid: int) -> tuple[Path, Path, Path]:
    """(graph, meta, off-marker) files of collection ``cid``."""
    base = f"{store_path}-c{cid}"
    return Path(base + ".ann"), Path(base + ".ann.meta"), Path(base + ".ann-off")


def _new_index(dims: int) -> Any:
    from usearch.index import Index
    return Index(ndim=dims, metric="cos", dtype=DTYPE, connectivity=CONNECTIVITY,
                 expansion_add=EXPANSION_ADD, expansion_search=DEFAULT_EF_SEARCH)


class AnnIndex:
    """One collection's HNSW graph at one data version. Thread-safe (one lock: a search
    never sees a graph half changed)."""

    def __init__(self, dims: int, path: Path, ident: dict[str, Any], index: Any,
                 rowids: np.ndarray, version: int, viewed: bool) -> None:
        self.dims, self.path, self.ident = dims, path, ident
        self.index, self.rowids, self.version = index, rowids, version
        self.viewed = viewed
        self.dirty = False
        self.lock = threading.RLock()

    @property
    def max_rowid(self) -> int:
        return int(self.rowids[-1]) if len(self.rowids) else 0

    @property
    def size(self) -> int:
        return len(self.rowids)

    @classmethod
    def build(cls, dims: int, path: Path, ident: dict[str, Any], version: int,
              rowids: np.ndarray, matrix: np.ndarray) -> "AnnIndex":
        """A graph of ``matrix``'s rows (``rowids`` ascending), built single-threaded."""
        index = _new_index(dims)
        if len(rowids):
            index.add(rowids.astype(np.uint64), np.ascontiguousarray(matrix, np.float32),
                      threads=1, copy=True)
        return cls(dims, path, ident, index, np.asarray(rowids, np.int64), version, False)

    @classmethod
    def open(cls, dims: int, path: Path, meta_path: Path, ident: dict[str, Any]
             ) -> "AnnIndex | None":
        """The saved graph, memory-mapped; None when there is none for this collection (or
        its two files do not belong together)."""
        found = read_arrays(meta_path)
        if found is None or not path.exists():
            return None
        meta, arrays = found
        if (meta.get("format") != FORMAT or meta.get("collection") != ident
                or meta.get("dims") != dims or meta.get("bytes") != path.stat().st_size):
            return None
        from usearch.index import Index
        try:
            index = Index.restore(str(path), view=True)
        except Exception as exc:  # a damaged file: rebuilt when next needed
            log.warning("cannot open the vector index %s: %s", path, exc)
            return None
        rowids = np.array(arrays["rowids"], dtype=np.int64)
        if index is None or len(index) != len(rowids):
            return None
        return cls(dims, path, ident, index, rowids, int(meta["version"]), True)

    def save(self, meta_path: Path) -> bool:
        """Write the graph and its meta file; False when they cannot be written."""
        with self.lock:
            tmp = self.path.with_name(self.path.name + ".tmp")
            try:
                self.index.save(str(tmp))
                tmp.replace(self.path)
                write_arrays(meta_path, {"format": FORMAT, "collection": self.ident,
                                         "dims": self.dims, "version": self.version,
                                         "bytes": self.path.stat().st_size},
                             {"rowids": self.rowids})
            except (OSError, RuntimeError) as exc:
                log.warning("cannot save the vector index to %s: %s", self.path, exc)
                tmp.unlink(missing_ok=True)
                return False
            self.dirty = False
            return True

    def _mutable(self) -> None:
        if self.viewed:  # a mapped graph cannot change: load it whole first
            from usearch.index import Index
            self.index = Index.restore(str(self.path), view=False)
            self.viewed = False

    def apply(self, version: int, removed: np.ndarray, added_rowids: np.ndarray,
              added_vectors: np.ndarray) -> bool:
        """Apply the committed write that made ``version``; False (nothing changed) when the
        graph is not at the version just before it."""
        with self.lock:
            if version != self.version + 1:
                return False
            self._change(version, removed, added_rowids, added_vectors)
            return True

    def catch_up(self, version: int, live: np.ndarray, new_rowids: np.ndarray,
                 new_vectors: np.ndarray) -> None:
        """Bring the graph to ``version``, whose rows are ``live`` (rowids); the rows above
        the graph's last rowid are ``new_rowids`` with ``new_vectors``."""
        with self.lock:
            gone = self.rowids[~np.isin(self.rowids, live)]
            self._change(version, gone, new_rowids, new_vectors)

    def _change(self, version: int, removed: np.ndarray, added: np.ndarray,
                vectors: np.ndarray) -> None:
        removed = self.rowids[np.isin(self.rowids, removed)]
        keep = ~np.isin(added, removed)
        added, vectors = added[keep], vectors[keep]
        if len(removed) or len(added):
            self._mutable()
            if len(removed):
                self.index.remove(removed.astype(np.uint64))
            if len(added):
                self.index.add(added.astype(np.uint64), np.ascontiguousarray(vectors, np.float32),
                               threads=1, copy=True)
            rows = np.concatenate([self.rowids[~np.isin(self.rowids, removed)], added])
            self.rowids = np.sort(rows)
            self.dirty = True
        self.version = version

    def search(self, query: np.ndarray, count: int, ef_search: int | None = None
               ) -> list[tuple[int, float]]:
        """Up to ``count`` (rowid, approximate cosine) pairs, nearest first; ``ef_search``: the
        candidate list for this query (default :data:`DEFAULT_EF_SEARCH`, at least
        ``count``)."""
        with self.lock:
            if not len(self.rowids) or count <= 0:
                return []
            ef = max(int(ef_search or DEFAULT_EF_SEARCH), count)
            if self.index.expansion_search != ef:
                self.index.expansion_search = ef
            found = self.index.search(np.asarray(query, np.float32), min(count, self.size),
                                      threads=1)
            keys, dist = np.asarray(found.keys), np.asarray(found.distances)
        return [(int(k), 1.0 - float(d)) for k, d in zip(keys, dist)]
