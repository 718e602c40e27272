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


def _pending_pages(store: PostgresStore, cid: int) -> dict[str, int]:
    """Pages each GIN index of the collection had pending (merging them as it counts)."""
    with store._conn() as conn:
        return {name: int(pages) for name, pages in conn.execute(
            "SELECT c.relname, gin_clean_pending_list(i.indexrelid) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
            "WHERE a.amname = 'gin' AND i.indrelid IN (%s::regclass, %s::regclass) "
            "ORDER BY c.relname", (f"chunks_{cid}", f"bm25_{cid}")).fetchall()}


def test_writes_leave_the_gin_indexes_merged(pg_location):
    """A GIN index keeps inserts in a pending list that each search reads whole until it
    is merged; the store merges it once it has written SETTLE_ROWS chunks since it last
    did, and when it closes."""
    from ragd.stores.postgres_write import SETTLE_ROWS

    store = PostgresStore(pg_location)
    try:
        store.create_collection("c", "m", 3, {})
        cid = store._coll("c").cid
        words = "export licence item control destination country party end user".split()
        items = [(DocumentRecord(f"d{i}", "h"),
                  [Chunk(f"d{i}", j, " ".join(words[(i + j + k) % 9] + str(k) for k in range(40)),
                         tags=(f"t{i}",), metadata={"n": i}) for j in range(3)],
                  np.eye(3)[[0, 1, 2]].astype(np.float32)) for i in range(100)]
        assert 3 * len(items) >= SETTLE_ROWS
        store.upsert_documents("c", items)       # 300 chunks: merged at once
        pending = _pending_pages(store, cid)
        assert len(pending) == 4 and set(pending.values()) == {0}, pending
        store.upsert_document("c", *items[0])    # 3 chunks: left pending for now
        assert _pending_pages(store, cid)[f"chunks_{cid}_tsv"] > 0
        store.upsert_document("c", *items[1])
    finally:
        store.close()                            # ... and merged when the store closes
    store = PostgresStore(pg_location)
    try:
        assert set(_pending_pages(store, cid).values()) == {0}
        with store._conn() as conn:   # rows written past the store: entries pend
            conn.execute(f"CREATE TEMP TABLE x AS SELECT * FROM chunks_{cid}")
            conn.execute("UPDATE x SET chunk_index = chunk_index + 100")
            conn.execute(f"INSERT INTO chunks_{cid} SELECT * FROM x")
        assert _pending_pages(store, cid)[f"chunks_{cid}_tsv"] > 0
    finally:
        store.close()


def test_a_writer_that_does_not_own_the_indexes_still_writes(pg_location, caplog):
    """Merging pending GIN entries needs the indexes' owner; a role with only the rights to
    write leaves them to autovacuum, says so once, and its writes go through."""
    import uuid
    from urllib.parse import urlsplit, urlunsplit

    from psycopg import sql

    from ragd.stores.postgres_write import SETTLE_ROWS

    owner = PostgresStore(pg_location)
    role = sql.Identifier(f"w_{uuid.uuid4().hex[:12]}")
    try:
        owner.create_collection("c", "m", 3, {})
        with owner._conn() as conn:
            schema = sql.Identifier(conn.execute("SELECT current_schema()").fetchone()[0])
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
            database = sql.Identifier(conn.execute("SELECT current_database()").fetchone()[0])
            for grant in ("GRANT CREATE ON DATABASE {d} TO {r}", "GRANT ALL ON SCHEMA {s} TO {r}",
                          "GRANT ALL ON ALL TABLES IN SCHEMA {s} TO {r}",
                          "GRANT ALL ON ALL SEQUENCES IN SCHEMA {s} TO {r}"):
                conn.execute(sql.SQL(grant).format(d=database, s=schema, r=role))
        parts = urlsplit(pg_location)
        host = parts.netloc.rpartition("@")[2]
        writer = PostgresStore(urlunsplit(parts._replace(
            netloc=f"{role.as_string(None).strip(chr(34))}@{host}")))
        doc = (DocumentRecord("d", "h"), [Chunk("d", 0, "export licence")],
               np.eye(3)[:1].astype(np.float32))
        many = [(DocumentRecord(f"m{i}", "h"), [Chunk(f"m{i}", 0, "item")],
                 np.eye(3)[:1].astype(np.float32)) for i in range(SETTLE_ROWS)]
        with caplog.at_level("WARNING", logger="ragd.store"):
            try:
                writer.upsert_documents("c", [doc])
                writer.upsert_documents("c", many)       # enough to merge: denied
                writer.upsert_document("c", *doc)
                assert [h.key for h in writer.lexical_search("c", ["licence"], 5)] == [("d", 0)]
            finally:
                writer.close()                           # (asks no more)
        warned = [r for r in caplog.records if "autovacuum" in r.getMessage()]
        assert len(warned) == 1
    finally:
        with owner._conn() as conn:
            conn.execute(sql.SQL("DROP OWNED BY {}").format(role))
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(role))
        owner.close()


def test_closing_with_the_server_gone_skips_the_merge(pg_location, caplog, monkeypatch):
    """A store with writes left to merge closes without error, and without waiting on the
    pool, when no connection can be had (the merge is autovacuum's then)."""
    from psycopg_pool import PoolTimeout

    store = PostgresStore(pg_location)
    store.create_collection("c", "m", 3, {})
    store.upsert_document("c", DocumentRecord("d", "h"), [Chunk("d", 0, "export licence")],
                          np.eye(3)[:1].astype(np.float32))
    asked: list[float | None] = []

    def gone(timeout=None):
        asked.append(timeout)
        raise PoolTimeout("no connection")
    monkeypatch.setattr(store._pool, "connection", gone)
    with caplog.at_level("WARNING", logger="ragd.store"):
        store.close()
    assert asked and all(t is not None and t <= 5 for t in asked)
    assert any("not merged on close" in r.getMessage() for r in caplog.records)
