"""The bulk write path (one binary COPY through psycopg's write_row): a real server stores
every field exactly as the row-by-row path does, a bad chunk is named and nothing is stored,
a closed store refuses."""

from __future__ import annotations

import numpy as np
import pytest

from ragd.errors import StoreError, UsageError
from ragd.stores import DocumentRecord
from helpers import BARE_CHUNK as BARE, FULL_CHUNK as FULL
from ragd.types import Chunk

psycopg = pytest.importorskip("psycopg")
from ragd.stores.postgres import PostgresStore  # noqa: E402
from ragd.stores.postgres_sql import WRITE_COLUMNS  # noqa: E402




def test_the_server_stores_every_field_as_the_row_by_row_path_does(pg_location):
    store = PostgresStore(pg_location)
    try:
        chunks = [FULL, BARE]
        vectors = np.array([[0.6, 0.8, 0.0], [0.0, 0.0, 1.0]], dtype=np.float32)
        record = DocumentRecord("d-ü", "h", title="T «ü» 😀", source="s'; --",
                                metadata={"k": ["v", 2, {"deep": None}], "t": "😀"},
                                ingested_at="2026-11-22T00:00:00+00:00")
        for name in ("bulk", "rows"):
            store.create_collection(name, "m", 3, {})
        assert store.upsert_documents("bulk", [(record, chunks, vectors)]) == 2
        store.upsert_document("rows", record, chunks, vectors)
        for name in ("bulk", "rows"):
            assert store.get_document(name, "d-ü") == record
            stored = list(store.iter_chunks(name))
            assert [c for c, _ in stored] == chunks
            assert np.array_equal(np.stack([v for _, v in stored]), vectors)
        cids = [store._coll(name).cid for name in ("bulk", "rows")]
        with store._conn() as conn:
            columns = ", ".join(c for c in WRITE_COLUMNS if c != "collection_id")
            differ = conn.execute(
                f"(SELECT {columns} FROM chunks_{cids[0]} EXCEPT SELECT {columns} FROM "
                f"chunks_{cids[1]}) UNION ALL (SELECT {columns} FROM chunks_{cids[1]} EXCEPT "
                f"SELECT {columns} FROM chunks_{cids[0]})").fetchall()
        assert differ == []
        assert [h.key for h in store.lexical_search("bulk", ["items"], 5)] == [("d-ü", 7)]
    finally:
        store.close()


@pytest.mark.parametrize("bulk", [True, False])
def test_a_bad_chunk_is_named_and_nothing_is_stored(pg_location, bulk):
    store = PostgresStore(pg_location)
    try:
        store.create_collection("c", "m", 3, {})
        good = (DocumentRecord("ok", "h"), [Chunk("ok", 0, "kept")], np.eye(3)[:1])
        store.upsert_documents("c", [good])
        bad_chunks = [Chunk("bad", i, "text", metadata={"i": i} if i < 600 else {"x": {1}})
                      for i in range(601)]
        bad = (DocumentRecord("bad", "h"), bad_chunks, np.ones((601, 3)))
        with pytest.raises(UsageError) as exc:
            if bulk:
                store.upsert_documents("c", [(DocumentRecord("ok", "h2"), [], np.eye(3)[:0]),
                                             bad])
            else:
                store.upsert_document("c", *bad)
        assert "'bad', chunk 600: metadata" in str(exc.value)
        assert [c.text for c, _ in store.iter_chunks("c")] == ["kept"]
        assert [d.content_hash for d in store.list_documents("c")] == ["h"]
    finally:
        store.close()


def test_a_closed_store_refuses_bulk_writes(pg_location):
    store = PostgresStore(pg_location)
    store.create_collection("c", "m", 3, {})
    store.close()
    with pytest.raises(StoreError):
        store.upsert_documents("c", [(DocumentRecord("d", "h"), [Chunk("d", 0, "x")],
                                      np.eye(3)[:1])])
