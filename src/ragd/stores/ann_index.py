"""Approximate vector search for the embedded store: an HNSW graph (usearch) keyed by rowid.

The graph holds a collection's unit vectors under their chunk rowids (never reused:
AUTOINCREMENT) and is saved beside the SQLite file as ``<store file>-c<id>.ann`` (usearch's
own format) with ``.ann.meta`` (:mod:`ragd.stores.array_file`: the data version it is at,
the collection it belongs to, the parameters that built it, its rowids). A saved graph is memory-mapped for searching
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
import math
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .array_file import read_arrays, write_arrays

log = logging.getLogger("ragd.store")

DEFAULT_THRESHOLD = 50_000
"""Chunks from which a collection's searches use (and, on first need, build) the graph."""
CONNECTIVITY = 32          # graph degree (HNSW M) of a new graph (16 until 2026-11-26)
EXPANSION_ADD = 64         # candidate list while building (ef_construction)
DTYPE = "f16"              # vectors in the graph: half the bytes; candidates are rescored
                           # exactly from the stored float32 embeddings
DEFAULT_EF_SEARCH = 96     # candidate list per query (ef_search) up to EF_BASE_SIZE chunks
EF_BASE_SIZE = 100_000     # ... beyond which the default grows with the graph's size:
EF_GROWTH = {16: 0.92, 32: 0.7657}
"""Per graph degree: ef = DEFAULT_EF_SEARCH * (size / EF_BASE_SIZE) ** EF_GROWTH[M] (M 16:
799 at 1M; M 32: 560 at 1M; see default_ef_search). A degree not listed takes M 16's."""
EF_MAX = 2048              # ... up to this
FORMAT = 2                 # meta: 1 had no "build" (its graphs: M 16, ef_construction 64, f16)


@dataclass(frozen=True)
class BuildParams:
    """What a graph was built with (saved in its meta file, so a graph is never taken for
    one built otherwise)."""

    connectivity: int = CONNECTIVITY
    expansion_add: int = EXPANSION_ADD
    dtype: str = DTYPE


FORMAT1_BUILD = BuildParams(16, 64, "f16")
"""The parameters every format-1 graph was built with (its meta did not say)."""


def default_ef_search(size: int, connectivity: int = CONNECTIVITY) -> int:
    """The candidate list a query gets by default on a graph of ``size`` vectors built with
    degree ``connectivity``.

    HNSW's recall at a fixed ef_search falls as the graph grows (measured on SciFact-derived
    vectors, docs/benchmarks.md: with M 16, recall@10 0.978 at 100k but 0.830 at 1M with
    ef_search 96, 0.95 at 1M taking 640-800; with M 32, 0.984 at 100k, and at 1M 0.950 /
    0.954 / 0.956 with ef_search 400 / 500 / 560), so past :data:`EF_BASE_SIZE` the default
    grows as a power of the size, the exponent fitted per degree to the list reaching 0.95
    with a margin at 1M; below it stays :data:`DEFAULT_EF_SEARCH`. Never more than
    :data:`EF_MAX`."""
    if size <= EF_BASE_SIZE:
        return DEFAULT_EF_SEARCH
    growth = EF_GROWTH.get(connectivity, EF_GROWTH[16])
    grown = DEFAULT_EF_SEARCH * math.pow(size / EF_BASE_SIZE, growth)
    return min(EF_MAX, int(math.ceil(grown)))


def ann_paths(store_path: Path, cid: int) -> tuple[Path, Path, Path]:
    """(graph, meta, off-marker) files of collection ``cid``."""
    base = f"{store_path}-c{cid}"
    return Path(base + ".ann"), Path(base + ".ann.meta"), Path(base + ".ann-off")


def _new_index(dims: int, params: BuildParams) -> Any:
    from usearch.index import Index
    return Index(ndim=dims, metric="cos", dtype=params.dtype, connectivity=params.connectivity,
                 expansion_add=params.expansion_add, expansion_search=DEFAULT_EF_SEARCH)


def build_params_of(meta: dict[str, Any]) -> BuildParams | None:
    """The parameters a saved graph's meta says built it; None for a format this code does
    not know (the graph is then rebuilt, never misread)."""
    if meta.get("format") == 1:
        return FORMAT1_BUILD
    build = meta.get("build")
    if meta.get("format") != FORMAT or not isinstance(build, dict):
        return None
    try:
        return BuildParams(int(build["connectivity"]), int(build["expansion_add"]),
                           str(build["dtype"]))
    except (KeyError, TypeError, ValueError):
        return None


class AnnIndex:
    """One collection's HNSW graph at one data version. Thread-safe (one lock: a search
    never sees a graph half changed)."""

    def __init__(self, dims: int, path: Path, ident: dict[str, Any], index: Any,
                 rowids: np.ndarray, version: int, viewed: bool,
                 params: BuildParams = BuildParams()) -> None:
        self.dims, self.path, self.ident, self.params = dims, path, ident, params
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

    @property
    def ef_search(self) -> int:
        """The default candidate list of a query on this graph (:func:`default_ef_search`)."""
        return default_ef_search(self.size, self.params.connectivity)

    @classmethod
    def build(cls, dims: int, path: Path, ident: dict[str, Any], version: int,
              rowids: np.ndarray, matrix: np.ndarray,
              params: BuildParams = BuildParams()) -> "AnnIndex":
        """A graph of ``matrix``'s rows (``rowids`` ascending), built single-threaded."""
        index = _new_index(dims, params)
        if len(rowids):
            index.add(rowids.astype(np.uint64), np.ascontiguousarray(matrix, np.float32),
                      threads=1, copy=True)
        return cls(dims, path, ident, index, np.asarray(rowids, np.int64), version, False,
                   params)

    @classmethod
    def open(cls, dims: int, path: Path, meta_path: Path, ident: dict[str, Any]
             ) -> "AnnIndex | None":
        """The saved graph, memory-mapped; None when there is none for this collection (or
        its two files do not belong together)."""
        found = read_arrays(meta_path)
        if found is None or not path.exists():
            return None
        meta, arrays = found
        params = build_params_of(meta)
        if (params is None or meta.get("collection") != ident
                or meta.get("dims") != dims or meta.get("bytes") != path.stat().st_size):
            return None
        from usearch.index import Index
        try:
            index = Index.restore(str(path), view=True)
        except Exception as exc:  # a damaged file: rebuilt when next needed
            log.warning("cannot open the vector index %s: %s", path, exc)
            return None
        rowids = np.array(arrays["rowids"], dtype=np.int64)
        if (index is None or len(index) != len(rowids)
                or index.connectivity != params.connectivity):
            return None
        return cls(dims, path, ident, index, rowids, int(meta["version"]), True, params)

    def save(self, meta_path: Path) -> bool:
        """Write the graph and its meta file; False when they cannot be written."""
        with self.lock:
            tmp = self.path.with_name(self.path.name + ".tmp")
            try:
                self.index.save(str(tmp))
                tmp.replace(self.path)
                write_arrays(meta_path, {"format": FORMAT, "collection": self.ident,
                                         "dims": self.dims, "version": self.version,
                                         "build": asdict(self.params),
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
        candidate list for this query (default :attr:`ef_search`, by the graph's size; at
        least ``count``)."""
        with self.lock:
            if not len(self.rowids) or count <= 0:
                return []
            ef = max(int(ef_search or self.ef_search), count)
            if self.index.expansion_search != ef:
                self.index.expansion_search = ef
            found = self.index.search(np.asarray(query, np.float32), min(count, self.size),
                                      threads=1)
            keys, dist = np.asarray(found.keys), np.asarray(found.distances)
        return [(int(k), 1.0 - float(d)) for k, d in zip(keys, dist)]
