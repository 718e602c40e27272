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


def test_a_version_4_store_is_reindexed_when_opened(tmp_path):
    fresh = build(tmp_path / "new.sqlite")
    expected = {q: scores(fresh, list(q)) for q in (("cotton",), ("trade", "fields"), ("farming",))}
    fresh.close()
    path = tmp_path / "old.sqlite"
    build(path).close()
    conn = sqlite3.connect(path)           # back to version 4: the context line indexed once
    rows = conn.execute("SELECT id, context, text FROM chunks").fetchall()
    conn.executemany("UPDATE chunks SET terms = ? WHERE id = ?",
                     [(pack_terms(search_text(c, t)), i) for i, c, t in rows])
    conn.execute("UPDATE ragd_meta SET value = '4' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    for side in tmp_path.glob("old.sqlite-*.lexical"):
        side.unlink()
    old = open_store(path)
    try:
        assert {q: scores(old, list(q)) for q in expected} == expected
        assert sqlite3.connect(path).execute(
            "SELECT value FROM ragd_meta WHERE key = 'schema_version'").fetchone()[0] == "5"
    finally:
        old.close()
