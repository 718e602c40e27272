"""The embedded store's BM25 postings persisted beside the SQLite file, memory-mapped back.

A full build of a collection's postings (the first search of a store without the file, or
a reload after many writes) is saved to ``<store file>-c<collection id>.lexical``
(:mod:`ragd.stores.array_file`). The next process maps it instead of rebuilding: the
file's rows are checked against the rows the reader's snapshot holds, by rowid (never
reused: AUTOINCREMENT), so it is right whoever wrote since. Rows deleted since are masked
dead; rows added since (rowid above the file's last) form a delta segment built from their
packed terms. When those outgrow a quarter of the file, the postings are rebuilt and
saved again. Scores are those of a fresh build: the same postings, and the collection-wide
statistics (N, df, average length) over live rows only.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .array_file import ChainedKeys, PackedKeys, read_arrays, write_arrays
from .lexical_index import LexicalView, _Postings

log = logging.getLogger("ragd.store")
FORMAT = 2  # 2: the context line counted twice (store schema 5)
Rows = Callable[[str, tuple], list[tuple]]


@lru_cache(maxsize=256)
def segment_path(store_path: Path, cid: int) -> Path:
    """The file beside the store (asked for at every search: remembered)."""
    return Path(f"{store_path}-c{cid}.lexical")


def too_stale(n_rows: int, dead: int, added: int) -> bool:
    """Whether a rebuild beats a segment with ``dead`` masked rows and ``added`` delta rows."""
    limit = max(1024, n_rows // 4)
    return added > limit or dead > limit


def save_view(path: Path, view: LexicalView, collection: dict[str, Any]) -> bool:
    """Persist a freshly built view (no delta, every row alive); False when it cannot be
    written (a read-only directory, a full disk: the index then lives in memory only)."""
    keys = PackedKeys.pack(view.keys)
    arrays = {**view.main.arrays(), "rowids": view.rowids, "key_blob": keys.blob,
              "key_offsets": keys.offsets, "key_indexes": keys.indexes}
    meta = {"format": FORMAT, "version": view.version, "collection": collection,
            "max_rowid": int(view.rowids.max()) if len(view.rowids) else 0}
    try:
        write_arrays(path, meta, arrays)
        return True
    except OSError as exc:
        log.warning("cannot save the lexical index to %s: %s", path, exc)
        return False


def open_view(path: Path, cid: int, version: int, collection: dict[str, Any], rows: Rows
              ) -> tuple[LexicalView, list[bytes]] | None:
    """The view of ``version`` from the saved segment and the rows written since (read with
    ``rows``, the reader's snapshot), with the packed terms of its delta rows; None when
    there is no usable file (missing, of another collection, newer than the snapshot, or
    stale enough that a rebuild is better)."""
    found = read_arrays(path)
    if found is None:
        return None
    meta, a = found
    if (meta.get("format") != FORMAT or meta.get("collection") != collection
            or int(meta.get("version", -1)) > version):
        return None
    main = _Postings.from_arrays(a["terms"], a["indptr"], a["rows"], a["tf"], a["lengths"])
    rowids = a["rowids"]
    keys = PackedKeys(a["key_blob"], a["key_offsets"], a["key_indexes"])
    n = len(rowids)
    if int(meta["version"]) == version:
        return LexicalView(version, rowids, ChainedKeys(keys), np.ones(n, dtype=bool), main,
                           _Postings([], n), main.lengths), []
    live = np.array([r[0] for r in rows("SELECT id FROM chunks WHERE collection_id = ?",
                                        (cid,))], dtype=np.int64)
    alive = np.isin(rowids, live)
    added = int((live > int(meta["max_rowid"])).sum())
    if too_stale(n, n - int(alive.sum()), added):
        return None
    new = rows("SELECT id, doc_id, chunk_index, terms FROM chunks WHERE collection_id = ? "
               "AND id > ? ORDER BY id", (cid, int(meta["max_rowid"])))
    terms = [r[3] for r in new]
    delta = _Postings(terms, n)
    view = LexicalView(version, np.concatenate([rowids, [r[0] for r in new]]).astype(np.int64),
                       ChainedKeys(keys, [(r[1], int(r[2])) for r in new]),
                       np.concatenate([alive, np.ones(len(new), dtype=bool)]), main, delta,
                       np.concatenate([main.lengths, delta.lengths]))
    return view, terms
