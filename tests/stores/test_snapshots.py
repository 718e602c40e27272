"""Reads in one snapshot: a store's snapshot sees one committed state however much is written
meanwhile, in-memory indexes are stamped with the version their rows have, and a cached
query result is never stored as current when a write landed while it was computed."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from ragd.stores import DocumentRecord, open_store
from ragd.types import Chunk, Filters

VECTORS = {"apple": np.array([1, 0, 0], np.float32), "banana": np.array([0, 1, 0], np.float32)}


def put(store, doc_id: str, word: str, n: int = 3) -> None:
    texts = [f"{word} paragraph {i}" for i in range(n)]
    chunks = [Chunk(doc_id=doc_id, chunk_index=i, text=t, chunk_id=f"{doc_id}-{word}-{i}",
                    section_id=f"S-{word}", tokens=3) for i, t in enumerate(texts)]
    store.upsert_document("c", DocumentRecord(doc_id, f"{word}{n}"), chunks,
                          np.stack([VECTORS[word]] * n))


@pytest.fixture
def two(store_location):
    """The store twice: ``same`` writes through the reading store object (its deltas), and
    ``other`` through a second one (as another process would)."""
    reader = open_store(store_location)
    reader.create_collection("c", "m", 3, {})
    writer = open_store(store_location)
    put(reader, "doc", "apple")
    yield reader, writer
    writer.close()
    reader.close()


@pytest.mark.parametrize("via", ["same", "other"])
def test_a_snapshot_sees_one_state_whatever_is_written_meanwhile(two, via):
    reader, other = two
    writer = reader if via == "same" else other
    reader.lexical_search("c", ["apple"], 10)  # indexes loaded before the snapshot
    with reader.snapshot("c") as snap:
        version = snap.data_version
        lexical = snap.lexical_search(["apple"], 10)
        put(writer, "doc", "banana")      # replaces every chunk of the document
        put(writer, "new", "apple", 2)
        assert writer.data_version("c") > version
        assert snap.lexical_search(["apple"], 10) == lexical
        assert snap.lexical_search(["banana"], 10) == []
        assert [h.key for h in snap.vector_search(VECTORS["apple"], 10)] == [
            ("doc", 0), ("doc", 1), ("doc", 2)]
        assert snap.find_sections(["S-apple", "S-banana"], 10) == [
            ("doc", 0), ("doc", 1), ("doc", 2)]
        texts = [s.chunk.text for s in snap.get_chunks([h.key for h in lexical]).values()]
        assert sorted(texts) == [f"apple paragraph {i}" for i in range(3)]
        assert snap.data_version == version
    # The next read is a new snapshot, and sees both writes.
    assert {h.key for h in reader.lexical_search("c", ["apple"], 10)} == {("new", 0), ("new", 1)}
    assert len(reader.lexical_search("c", ["banana"], 10)) == 3
    assert [h.key for h in reader.vector_search("c", VECTORS["banana"], 3)] == [
        ("doc", 0), ("doc", 1), ("doc", 2)]


def test_an_older_snapshot_is_served_after_a_newer_one_moved_the_index_on(two):
    reader, writer = two
    with reader.snapshot("c") as old:
        put(writer, "doc", "banana")
        with reader.snapshot("c") as new:  # loads the indexes at the newer version
            assert len(new.lexical_search(["banana"], 10)) == 3
            assert len(new.vector_search(VECTORS["banana"], 10)) == 3
        assert len(old.lexical_search(["apple"], 10)) == 3
        assert old.lexical_search(["banana"], 10) == []
        assert {h.doc_id for h in old.vector_search(VECTORS["banana"], 10)} == {"doc"}
        assert all(s.chunk.text.startswith("apple")
                   for s in old.get_chunks([("doc", i) for i in range(3)]).values())


def test_an_index_is_stamped_with_the_version_its_rows_have(tmp_path, monkeypatch):
    """A write committed right after the lexical index read its rows (here: on the reader's
    very next statement) must not leave that index stamped as current: the next search
    sees the write."""
    path = tmp_path / "s.sqlite"
    writer = open_store(path)
    writer.create_collection("c", "m", 3, {})
    put(writer, "doc", "apple")
    state = {"armed": False, "fired": False}
    real_connect = sqlite3.connect

    def connect(*args, **kwargs):
        conn = real_connect(*args, **kwargs)

        def trace(statement: str) -> None:
            if state["fired"]:
                return
            if "terms FROM chunks" in statement:
                state["armed"] = True
            elif state["armed"]:
                state["fired"] = True
                put(writer, "doc", "banana")

        conn.set_trace_callback(trace)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    reader = open_store(path)
    reader.lexical_search("c", ["banana"], 10)
    assert state["fired"], "the write was not injected: the test proves nothing"
    assert [h.key for h in reader.lexical_search("c", ["banana"], 10)] == [
        ("doc", 0), ("doc", 1), ("doc", 2)]
    assert reader.lexical_search("c", ["apple"], 10) == []
    reader.close()
    writer.close()


def test_a_cached_result_computed_before_a_write_is_not_stored_as_current(two):
    reader, writer = two
    assert reader.cache_get("c", "q", 60, 1000.0) is None  # a miss: the caller computes...
    put(writer, "doc", "banana")                            # ...while this lands
    reader.cache_put("c", "q", "computed from the apple state", 1000.0)
    assert reader.cache_get("c", "q", 60, 1000.0) is None
    reader.cache_put("c", "q", "computed from the banana state", 1000.0)
    assert reader.cache_get("c", "q", 60, 1000.0) == "computed from the banana state"


def test_a_parallel_snapshot_gives_a_second_reader_the_same_state(pg_location):
    """Postgres: while one connection of a parallel snapshot is busy, a second reader gets a
    sibling connection that imports the same snapshot (it sees nothing written since)."""
    store = open_store(pg_location)
    store.create_collection("c", "m", 3, {})
    put(store, "doc", "apple")
    with store.snapshot("c", parallel=True) as snap:
        put(store, "doc", "banana")
        with snap._connection() as busy:  # the first connection, held by "the other half"
            assert len(snap.lexical_search(["apple"], 10)) == 3  # so this is a sibling
            assert snap.lexical_search(["banana"], 10) == []
            # two connections of this store are in the read transaction now
            assert busy.execute("SELECT count(*) FROM pg_stat_activity WHERE pid <> "
                                "pg_backend_pid() AND application_name = 'ragd' AND state = "
                                "'idle in transaction'").fetchone()[0] == 1
    assert len(store.lexical_search("c", ["banana"], 10)) == 3
    store.close()


@pytest.mark.parametrize("via", ["same", "other"])
def test_an_unfiltered_lexical_search_skips_the_snapshot_only_at_the_committed_version(
        two, via, monkeypatch):
    """The SQLite store answers an unfiltered BM25 search from the view in memory when its
    version is the committed one (one statement, no snapshot); a write by this store or
    another makes it take the snapshot's way again, and the hits are the current ones."""
    reader, writer = two
    if not hasattr(reader, "_current_lexical"):
        pytest.skip("the quick path is the SQLite store's")
    assert [h.doc_id for h in reader.lexical_search("c", ["apple"], 5)] == ["doc"] * 3
    opened = []
    real = type(reader).snapshot

    def counted(self, *args, **kwargs):
        opened.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(reader), "snapshot", counted)
    assert len(reader.lexical_search("c", ["apple"], 5)) == 3 and opened == []
    put(reader if via == "same" else writer, "new", "banana")
    assert [h.doc_id for h in reader.lexical_search("c", ["banana"], 5)] == ["new"] * 3
    assert len(opened) == 1                       # the write: synced through a snapshot
    assert [h.doc_id for h in reader.lexical_search("c", ["banana"], 5)] == ["new"] * 3
    assert len(opened) == 1                       # and quick again at the new version
    # filters need the snapshot's SQL: never the quick path
    assert reader.lexical_search("c", ["banana"], 5, Filters(tags_any=("none",))) == []
    assert len(opened) == 2


def test_listing_documents_does_not_wait_behind_a_write_in_progress(tmp_path):
    """An ingest batch holds the SQLite store's write connection; a listing reads the last
    committed state meanwhile (a snapshot, as chunk_counts does) instead of waiting."""
    import threading

    store = open_store(tmp_path / "s")
    store.create_collection("c", "m", 3, {})
    put(store, "doc", "apple")
    listed: list[list[str]] = []
    with store._lock:                 # what a write holds for its whole batch
        reader = threading.Thread(target=lambda: listed.append(
            [r.doc_id for r in store.list_documents("c")]))
        reader.start()
        reader.join(timeout=10)
        assert listed == [["doc"]], "the listing waited for the write connection"
    store.close()
