"""The embedded store's approximate vector index (a mixin of :class:`~ragd.stores.sqlite.SQLiteStore`).

Which search a query gets (the Store protocol's ``exact`` keyword, the same meaning on
PostgreSQL): ``exact=True`` scans every vector; ``exact=False`` uses the collection's
HNSW graph (:mod:`ragd.stores.ann_index`) when it has one, never building it; the default
(``None``) uses the graph when there is one, and builds it first once the collection holds
at least ``ann_threshold`` chunks (collection config; :data:`DEFAULT_THRESHOLD`) unless
:meth:`drop_vector_index` turned it off. A filtered search, or a snapshot older than the
graph, is exact. ``ef_search`` widens (or narrows) the graph's candidate list for one query.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from .ann_index import DEFAULT_THRESHOLD, AnnIndex, ann_paths
from .base import Hit
from .vector_cache import Delta

if TYPE_CHECKING:
    from .sqlite_read import SQLiteSnapshot

log = logging.getLogger("ragd.store")
_OVERFETCH = 16  # graph results beyond k, so that ties at the cut are broken by key


def _ident(info: Any) -> dict[str, Any]:
    return {"name": info.name, "created_at": info.created_at}


class SQLiteVectorIndex:
    """HNSW graphs of the store's large collections: built, opened, kept in sync, saved."""

    _anns: dict[int, AnnIndex]
    _sizes: dict[int, tuple[int, int]]

    def build_vector_index(self, collection: str) -> None:
        """(Re)build the collection's graph from its rows and save it (turning the automatic
        choice back on after :meth:`drop_vector_index`)."""
        self._writable()
        with self.snapshot(collection) as snap:
            ann_paths(self.path, snap._cid)[2].unlink(missing_ok=True)
            with snap._lock, self._cache_lock:
                self._ann_build(snap)

    def drop_vector_index(self, collection: str) -> None:
        """Delete the collection's graph; its searches are exact until
        :meth:`build_vector_index` (the size threshold no longer builds it)."""
        self._writable()
        cid = self._cid(collection)
        graph, meta, off = ann_paths(self.path, cid)
        with self._cache_lock:
            self._anns.pop(cid, None)
            off.touch()
            graph.unlink(missing_ok=True)
            meta.unlink(missing_ok=True)

    def _ann_build(self, snap: "SQLiteSnapshot") -> AnnIndex:
        """Build and save the graph at the snapshot's version (the cache lock held)."""
        started = time.perf_counter()
        rows = snap._rows("SELECT id, embedding FROM chunks WHERE collection_id = ? ORDER BY id",
                          (snap._cid,))
        rowids = np.array([r[0] for r in rows], dtype=np.int64)
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(
            len(rows), snap.info.embed_dims)
        del rows
        graph, meta, _ = ann_paths(self.path, snap._cid)
        ann = AnnIndex.build(snap.info.embed_dims, graph, _ident(snap.info), snap.data_version,
                             rowids, matrix)
        ann.save(meta)
        self._anns[snap._cid] = ann
        log.info("built the vector index of %r (%d chunks) in %.1f s", snap.collection,
                 len(rowids), time.perf_counter() - started)
        return ann

    def _ann_for(self, snap: "SQLiteSnapshot", exact: bool | None) -> AnnIndex | None:
        """The graph to search at the snapshot's version, if any (the cache lock held)."""
        cid, version = snap._cid, snap.data_version
        ann = self._anns.get(cid)
        graph, meta, off = ann_paths(self.path, cid)
        if ann is None:
            ann = AnnIndex.open(snap.info.embed_dims, graph, meta, _ident(snap.info))
            if ann is not None:
                self._anns[cid] = ann
        if ann is None:
            if exact is False or self.read_only or off.exists():
                return None
            threshold = int(snap.info.config.get("ann_threshold", DEFAULT_THRESHOLD))
            if self._chunk_count(snap) < threshold:
                return None
            return self._ann_build(snap)
        if ann.version < version:
            live = np.array([r[0] for r in snap._rows(
                "SELECT id FROM chunks WHERE collection_id = ?", (cid,))], dtype=np.int64)
            new = snap._rows("SELECT id, embedding FROM chunks WHERE collection_id = ? AND "
                             "id > ? ORDER BY id", (cid, ann.max_rowid))
            vectors = np.frombuffer(b"".join(r[1] for r in new), dtype=np.float32).reshape(
                len(new), snap.info.embed_dims)
            ann.catch_up(version, live, np.array([r[0] for r in new], dtype=np.int64), vectors)
            if ann.dirty and not self.read_only:
                ann.save(meta)
        return ann if ann.version == version else None

    def _chunk_count(self, snap: "SQLiteSnapshot") -> int:
        seen = self._sizes.get(snap._cid)
        if seen is None or seen[0] != snap.data_version:
            n = int(snap._rows("SELECT count(*) FROM chunks WHERE collection_id = ?",
                               (snap._cid,))[0][0])
            seen = self._sizes[snap._cid] = (snap.data_version, n)
        return seen[1]

    def _ann_hits(self, snap: "SQLiteSnapshot", query: np.ndarray, limit: int,
                  exact: bool | None, ef_search: int | None) -> list[Hit] | None:
        """The graph's top ``limit`` as hits, or None when this search is to be exact."""
        with snap._lock, self._cache_lock:
            ann = self._ann_for(snap, exact)
        if ann is None:
            return None
        found = ann.search(query, limit + _OVERFETCH, ef_search)
        if not found:
            return []
        # The candidates' keys and float32 embeddings, read in the snapshot (so a row it does
        # not hold is dropped), rescored exactly: scores are cosines as an exact search
        # gives them, and ties break by key.
        with snap._lock:
            rows = snap._rows(f"SELECT doc_id, chunk_index, embedding FROM chunks WHERE id IN "
                              f"({','.join('?' * len(found))})", [rowid for rowid, _ in found])
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(
            len(rows), snap.info.embed_dims)
        scores = matrix @ np.asarray(query, dtype=np.float32)
        ranked = sorted(((float(s), (r[0], int(r[1]))) for s, r in zip(scores, rows)),
                        key=lambda sk: (-sk[0], sk[1]))
        return [Hit(k[0], k[1], s) for s, k in ranked[:limit]]

    def _ann_record(self, cid: int, delta: Delta) -> None:
        """Apply a committed write to the collection's graph (the cache lock held)."""
        ann = self._anns.get(cid)
        if ann is not None:
            ann.apply(delta.version, delta.removed, delta.added_rowids, delta.added_vectors)

    def _ann_close(self) -> None:
        """Save the graphs this process changed (close)."""
        for cid, ann in self._anns.items():
            if ann.dirty and not self.read_only:
                ann.save(ann_paths(self.path, cid)[1])
        self._anns.clear()

    def _ann_stats(self, cid: int) -> dict[str, Any]:
        ann = self._anns.get(cid)
        if ann is None:
            graph = ann_paths(self.path, cid)[0]
            return {"kind": "hnsw", "library": "usearch", "saved": graph.exists()} \
                if graph.exists() else {}
        return {"kind": "hnsw", "library": "usearch", "chunks": ann.size,
                "data_version": ann.version, "connectivity": ann.params.connectivity,
                "expansion_add": ann.params.expansion_add, "dtype": ann.params.dtype,
                "ef_search": ann.ef_search}
