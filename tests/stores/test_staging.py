"""Large documents written in batches and swapped in at once; where documents came from.

``stage_chunks`` keeps batches aside (each its own transaction, invisible to searches);
``commit_staged`` replaces the document in one transaction, or changes nothing; what a
crashed write left is cleared by the next staging of the same document. Documents record
their source file (``source_path``), listed by ``documents_from``; ``chunk_counts`` and
``document_chunks`` serve ``ragd list`` and ``ragd show``.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from ragd.errors import StoreError
from ragd.stores import DocumentRecord, open_store
from ragd.types import Chunk, Filters


def chunks(doc_id: str, word: str, n: int, start: int = 0) -> list[Chunk]:
    return [Chunk(doc_id=doc_id, chunk_index=i, text=f"{word} part {i}", chunk_id=f"{word}{i}",
                  tags=("t",), tokens=3) for i in range(start, start + n)]


def vectors(n: int) -> np.ndarray:
    return np.tile(np.array([[1, 0, 0]], np.float32), (n, 1))


@pytest.fixture
def st(store):
    store.create_collection("c", "m", 3, {})
    old = chunks("big", "apple", 4)
    store.upsert_document("c", DocumentRecord("big", "v1", source_path="/data/big.md"), old,
                          vectors(4))
    return store


def test_staged_batches_are_invisible_until_one_commit_swaps_them_in(st):
    record = DocumentRecord("big", "v2", title="Big", source_path="/data/big.md")
    st.stage_chunks("c", "job1", chunks("big", "banana", 3), vectors(3))
    st.stage_chunks("c", "job1", chunks("big", "banana", 3, start=3), vectors(3))
    # staged, not stored: searches, reads and the document row still show version 1
    assert [h.key for h in st.lexical_search("c", ["banana"], 10)] == []
    assert len(st.lexical_search("c", ["apple"], 10)) == 4
    assert st.get_document("c", "big").content_hash == "v1"
    assert st.commit_staged("c", record, "job1", 6) == 6
    assert st.lexical_search("c", ["apple"], 10) == []
    assert sorted(h.key for h in st.lexical_search("c", ["banana"], 10)) == [
        ("big", i) for i in range(6)]
    assert [s.chunk.text for s in st.document_chunks("c", "big")] == [
        f"banana part {i}" for i in range(6)]
    assert st.get_document("c", "big").version == 2
    # the tags of the swapped-in rows are indexed for filters too
    assert len(st.vector_search("c", vectors(1)[0], 10, Filters(tags_all=("t",)))) == 6


def test_a_commit_missing_staged_rows_changes_nothing(st):
    st.stage_chunks("c", "job1", chunks("big", "banana", 3), vectors(3))
    with pytest.raises(StoreError, match="3 of its 5"):
        st.commit_staged("c", DocumentRecord("big", "v2"), "job1", 5)
    assert st.get_document("c", "big").content_hash == "v1"
    assert len(st.document_chunks("c", "big")) == 4
    st.drop_staged("c", "job1")
    with pytest.raises(StoreError, match="0 of its 3"):
        st.commit_staged("c", DocumentRecord("big", "v2"), "job1", 3)


def test_what_a_crashed_staging_left_is_cleared_by_the_next_one(st):
    st.stage_chunks("c", "crashed", chunks("big", "banana", 3), vectors(3))  # never committed
    st.stage_chunks("c", "again", chunks("big", "cherry", 2), vectors(2))
    with pytest.raises(StoreError):
        st.commit_staged("c", DocumentRecord("big", "v3"), "crashed", 3)
    assert st.commit_staged("c", DocumentRecord("big", "v3"), "again", 2) == 2
    assert [s.chunk.text for s in st.document_chunks("c", "big")] == [
        "cherry part 0", "cherry part 1"]


def test_staging_refuses_bad_input_before_writing(st):
    with pytest.raises(Exception, match="shape"):
        st.stage_chunks("c", "j", chunks("big", "x", 2), vectors(3))
    with pytest.raises(Exception, match="another doc_id"):
        st.stage_chunks("c", "j", chunks("big", "x", 1) + chunks("other", "y", 1, 1),
                        vectors(2))


def test_documents_record_their_file_and_are_found_by_it(st):
    st.upsert_document("c", DocumentRecord("x", "h", source="a/x.md", source_path="/data/x.md"),
                       chunks("x", "pear", 2), vectors(2))
    assert st.get_document("c", "x").source_path == "/data/x.md"
    assert [d.doc_id for d in st.documents_from("c", "/data/x.md")] == ["x"]
    assert st.documents_from("c", "") == [] and st.documents_from("c", "/nope") == []
    st.upsert_documents("c", [(DocumentRecord("y", "h", source_path="/data/x.md"),
                               chunks("y", "fig", 1), vectors(1))])
    assert [d.doc_id for d in st.documents_from("c", "/data/x.md")] == ["x", "y"]
    assert st.chunk_counts("c") == {"big": 4, "x": 2, "y": 1}
    assert st.document_chunks("c", "missing") == []


def test_a_version_3_sqlite_store_is_migrated_keeping_its_documents(tmp_path):
    path = tmp_path / "old.sqlite"
    store = open_store(path)
    store.create_collection("c", "m", 3, {})
    store.upsert_document("c", DocumentRecord("d", "h", title="T"), chunks("d", "kiwi", 2),
                          vectors(2))
    store.close()
    conn = sqlite3.connect(path)  # back to version 3, as an older ragd left it
    conn.executescript("DROP INDEX documents_by_source; DROP TABLE chunk_staging; "
                       "ALTER TABLE documents DROP COLUMN source_path; "
                       "UPDATE ragd_meta SET value = '3' WHERE key = 'schema_version';")
    conn.close()
    store = open_store(path)
    assert store.get_document("c", "d").title == "T"
    assert store.get_document("c", "d").source_path == ""
    assert len(store.lexical_search("c", ["kiwi"], 5)) == 2
    store.stage_chunks("c", "j", chunks("d", "lime", 1), vectors(1))
    store.commit_staged("c", DocumentRecord("d", "h2", source_path="/d.md"), "j", 1)
    assert store.get_document("c", "d").source_path == "/d.md"
    store.close()
