"""The lexical index counts a chunk's context line twice (``ragd.types.index_text``, BM25F
with the context weighted 2), in a new store and in a version-4 store once migrated."""

from __future__ import annotations

import sqlite3

import numpy as np

from ragd.analysis import pack_terms
from ragd.stores import DocumentRecord, open_store
from ragd.types import Chunk, index_text, search_text


def chunks(doc_id: str) -> list[Chunk]:
    return [Chunk(doc_id=doc_id, chunk_index=0, text="cotton export licence rules",
                  context="Cotton trade"),
            Chunk(doc_id=doc_id, chunk_index=1, text="cotton grows in warm fields here",
                  context="Farming notes")]


def build(path) -> object:
    store = open_store(path)
    store.create_collection("c", "m", 3, {})
    for doc in ("a", "b"):
        store.upsert_document("c", DocumentRecord(doc, "h"), chunks(doc),
                              np.ones((2, 3), np.float32))
    return store


def scores(store, terms: list[str]) -> dict[tuple[str, int], float]:
    return {h.key: round(h.score, 9) for h in store.lexical_search("c", terms, 10)}


def test_index_text_repeats_the_context_line():
    assert index_text("Part 736", "General prohibitions") == \
        "Part 736\n\nPart 736\n\nGeneral prohibitions"
    assert index_text("", "text only") == "text only" == search_text("", "text only")


def test_a_term_of_the_context_line_counts_twice(tmp_path):
    store = build(tmp_path / "s.sqlite")
    got = scores(store, ["cotton"])
    # "cotton" once in each chunk's text, and twice more in chunk 0's indexed context
    assert got[("a", 0)] > got[("a", 1)]
    trade = scores(store, ["trade"])
    assert set(trade) == {("a", 0), ("b", 0)}
    store.close()


def staged(store) -> None:
    """A large document's chunk staged by an unfinished write (job "j")."""
    store.stage_chunks("c", "j", [Chunk(doc_id="c", chunk_index=0, text="cotton bales",
                                        context="Trade fairs")], np.ones((1, 3), np.float32))


def test_a_version_4_store_is_reindexed_when_opened(tmp_path, monkeypatch):
    import ragd.stores.lexical_file as lexical_file

    queries = (("cotton",), ("trade", "fields"), ("farming",), ("fairs",))
    fresh = build(tmp_path / "new.sqlite")
    staged(fresh)
    fresh.commit_staged("c", DocumentRecord("c", "h"), "j", 1)
    expected = {q: scores(fresh, list(q)) for q in queries}
    fresh.close()
    path = tmp_path / "old.sqlite"
    old = build(path)
    staged(old)
    old.close()
    conn = sqlite3.connect(path)           # the context line indexed once, as version 4 did
    for table in ("chunks", "chunk_staging"):
        rows = conn.execute(f"SELECT rowid, context, text FROM {table}").fetchall()
        conn.executemany(f"UPDATE {table} SET terms = ? WHERE rowid = ?",
                         [(pack_terms(search_text(c, t)), i) for i, c, t in rows])
    conn.commit()
    conn.close()
    with monkeypatch.context() as m:       # its postings saved beside it, in format 1
        m.setattr(lexical_file, "FORMAT", 1)
        old = open_store(path)
        stale = {q: scores(old, list(q)) for q in queries}
        old.close()
    assert stale != expected and list(tmp_path.glob("old.sqlite-*.lexical"))
    conn = sqlite3.connect(path)
    conn.execute("UPDATE ragd_meta SET value = '4' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    old = open_store(path)
    try:
        old.commit_staged("c", DocumentRecord("c", "h"), "j", 1)
        assert {q: scores(old, list(q)) for q in queries} == expected
        assert sqlite3.connect(path).execute(
            "SELECT value FROM ragd_meta WHERE key = 'schema_version'").fetchone()[0] == "5"
    finally:
        old.close()


def test_a_version_1_store_gets_the_same_terms_as_a_new_one(tmp_path):
    fresh = build(tmp_path / "new.sqlite")
    expected = {q: scores(fresh, list(q)) for q in (("cotton",), ("trade", "fields"))}
    fresh.close()
    path = tmp_path / "old.sqlite"
    build(path).close()
    conn = sqlite3.connect(path)           # back to version 1: no terms, cache or staging
    conn.executescript("DROP INDEX chunks_by_section; ALTER TABLE chunks DROP COLUMN terms; "
                       "DROP TABLE query_cache; DROP INDEX documents_by_source; "
                       "DROP TABLE chunk_staging; ALTER TABLE documents DROP COLUMN source_path; "
                       "UPDATE ragd_meta SET value = '1' WHERE key = 'schema_version';")
    conn.close()
    old = open_store(path)
    try:
        assert {q: scores(old, list(q)) for q in expected} == expected
    finally:
        old.close()
