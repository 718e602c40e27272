"""A store on a file this process cannot write: searches work (opened ``mode=ro``), writes
are refused with an error that says so, and nothing stored is touched."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import make_read_only, make_writable
from ragd.stores import DocumentRecord, ReadOnlyStoreError, open_store
from ragd.types import Chunk


@pytest.fixture
def read_only_store(tmp_path):
    folder = tmp_path / "store"
    store = open_store(folder)
    store.create_collection("c", "m", 2, {})
    chunk = Chunk(doc_id="d", chunk_index=0, text="apple pie", chunk_id="x", tokens=2)
    store.upsert_document("c", DocumentRecord("d", "h"), [chunk],
                          np.array([[1, 0]], np.float32))
    store.close()
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["ragd.sqlite"]  # the WAL files are gone once closed
    locked = make_read_only([*files, folder])
    yield folder
    make_writable(locked)


def test_a_read_only_store_serves_searches_and_refuses_writes(read_only_store):
    store = open_store(read_only_store)
    assert "not writable" in store.read_only
    assert [h.key for h in store.lexical_search("c", ["apple"], 5)] == [("d", 0)]
    assert [h.key for h in store.vector_search("c", np.array([1, 0], np.float32), 5)] == [
        ("d", 0)]
    with pytest.raises(ReadOnlyStoreError, match="read-only.*cannot write"):
        store.delete_document("c", "d")
    with pytest.raises(ReadOnlyStoreError):
        store.create_collection("other", "m", 2, {})
    store.cache_put("c", "k", "v", 0.0)  # the query cache goes without, silently
    assert store.get_document("c", "d") is not None
    store.close()


# -- PostgreSQL: a server or session that refuses writes (a read replica) ----------------------

def _read_only_url(url: str) -> str:
    """The same store through sessions whose transactions are read-only by default: what a
    hot-standby replica imposes (a standby also reports pg_is_in_recovery())."""
    from helpers import with_store_options

    return with_store_options(url, options="-c default_transaction_read_only=on")


def test_a_postgres_replica_serves_searches_and_refuses_writes(pg_location):
    writer = open_store(pg_location)
    writer.create_collection("c", "m", 2, {})
    chunk = Chunk(doc_id="d", chunk_index=0, text="apple pie", chunk_id="x", tokens=2)
    writer.upsert_document("c", DocumentRecord("d", "h"), [chunk],
                           np.array([[1, 0]], np.float32))
    replica = open_store(_read_only_url(pg_location))
    try:
        assert "read-only" in replica.read_only
        assert replica.server.schema_version == writer.server.schema_version
        assert [h.key for h in replica.lexical_search("c", ["apple"], 5)] == [("d", 0)]
        assert [h.key for h in replica.vector_search("c", np.array([1, 0], np.float32), 5)] == [
            ("d", 0)]
        assert replica.data_version("c") == writer.data_version("c")
        with pytest.raises(ReadOnlyStoreError, match="read-only.*cannot write"):
            replica.delete_document("c", "d")
        with pytest.raises(ReadOnlyStoreError):
            replica.create_collection("other", "m", 2, {})
        replica.cache_put("c", "k", "v", 0.0)  # the query cache goes without, silently
        assert replica.cache_get("c", "k", 60.0, 0.0) is None
        # nothing stored was touched; the writer still writes
        assert writer.delete_document("c", "d") is True
    finally:
        replica.close()
        writer.close()


def test_a_replica_never_migrates_and_names_what_to_do(pg_location):
    from ragd.errors import StoreError
    from ragd.stores.postgres import SCHEMA_VERSION

    with pytest.raises(StoreError, match="holds no ragd store.*ragd store init"):
        open_store(_read_only_url(pg_location))  # an empty schema is not created
    open_store(pg_location).close()                # the primary migrates it
    import psycopg

    from ragd.stores.postgres_schema import parse_store_url

    conninfo, options, _ = parse_store_url(pg_location)
    with psycopg.connect(conninfo, autocommit=True) as conn:  # the primary is behind
        conn.execute(f'DELETE FROM "{options.schema}".schema_version WHERE version = %s',
                     (SCHEMA_VERSION,))
    with pytest.raises(StoreError, match=f"version {SCHEMA_VERSION - 1}.*migrate it on the primary"):
        open_store(_read_only_url(pg_location))
