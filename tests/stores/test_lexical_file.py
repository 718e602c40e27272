"""The persisted BM25 postings: a reopened store ranks exactly as a fresh in-memory build,
whoever wrote since, and the file is rebuilt when it grows stale."""

from __future__ import annotations

import numpy as np

from ragd.stores import DocumentRecord, open_store
from ragd.stores.lexical_file import segment_path
from ragd.stores.lexical_index import LexicalIndex
from ragd.types import Chunk

WORDS = ("alpha beta gamma delta epsilon zeta theta iota kappa lambda export licence "
         "cheating theft property").split()
QUERIES = [["alpha", "theta"], ["export", "licence", "kappa"], ["theft"], ["zeta", "iota"]]


def put(store, rng, doc_id: str, n: int = 3) -> None:
    chunks = [Chunk(doc_id, i, " ".join(rng.choice(WORDS, int(rng.integers(3, 15)))))
              for i in range(n)]
    store.upsert_document("c", DocumentRecord(doc_id, "h"), chunks,
                          rng.normal(size=(n, 3)).astype(np.float32))


def saved_store(tmp_path, rng, documents: int) -> None:
    """A store of ``documents`` random documents whose postings were saved by a search."""
    store = open_store(tmp_path)
    store.create_collection("c", "m", 3, {})
    for i in range(documents):
        put(store, rng, f"d{i:03d}")
    store.lexical_search("c", ["alpha"], 5)
    store.close()


def fresh_index(store) -> LexicalIndex:
    """A BM25 index built in memory from the stored rows: the reference."""
    rows = store._conn.execute("SELECT id, doc_id, chunk_index, terms FROM chunks ORDER BY id"
                               ).fetchall()
    index = LexicalIndex()
    index.load(0, np.array([r[0] for r in rows]), [(r[1], r[2]) for r in rows],
               [r[3] for r in rows])
    return index


def fresh_ranking(store, terms, limit=20):
    """The ranking of :func:`fresh_index`, the reference."""
    from ragd.analysis import query_analyze, term_hash
    return fresh_index(store).top([term_hash(t) for t in query_analyze(terms)], limit)


def ranking(store, terms, limit=20):
    return [(h.key, h.score) for h in store.lexical_search("c", terms, limit)]


def test_reopened_store_maps_the_saved_postings_and_ranks_identically(tmp_path):
    rng = np.random.default_rng(3)
    store = open_store(tmp_path)
    store.create_collection("c", "m", 3, {})
    for i in range(60):
        put(store, rng, f"d{i:03d}")
    before = [ranking(store, q) for q in QUERIES]
    path = segment_path(store.path, 1)
    assert path.exists()
    store.close()
    store = open_store(tmp_path)
    assert [ranking(store, q) for q in QUERIES] == before  # mapped, not rebuilt
    view = store._lexical[1].view()
    assert not view.main.rows.flags.owndata and not view.main.rows.flags.writeable
    assert [ranking(store, q) for q in QUERIES] == [fresh_ranking(store, q) for q in QUERIES]
    store.close()


def test_writes_and_deletes_from_another_process_are_seen_exactly(tmp_path):
    rng = np.random.default_rng(5)
    saved_store(tmp_path, rng, 60)
    other = open_store(tmp_path)  # writes without ever loading the index
    other.delete_document("c", "d007")
    put(other, rng, "d010")  # replaced: old rows dead, new rows in the delta
    put(other, rng, "n001")
    other.close()
    store = open_store(tmp_path)
    got = [ranking(store, q) for q in QUERIES]
    assert got == [fresh_ranking(store, q) for q in QUERIES]
    assert all(k[0] != "d007" for r in got for k, _ in r)
    assert len(store._lexical[1].view().delta.lengths) == 6  # not rebuilt: a small delta
    store.close()


def test_a_stale_file_is_rebuilt_and_a_dropped_collection_leaves_none(tmp_path):
    rng = np.random.default_rng(9)
    saved_store(tmp_path, rng, 10)
    other = open_store(tmp_path)
    for i in range(10, 500):  # far more rows than the file holds
        put(other, rng, f"d{i:03d}")
    other.close()
    store = open_store(tmp_path)
    got = [ranking(store, q) for q in QUERIES]
    assert got == [fresh_ranking(store, q) for q in QUERIES]
    assert len(store._lexical[1].view().delta.lengths) == 0  # rebuilt whole, and saved
    path = segment_path(store.path, 1)
    assert path.exists()
    store.drop_collection("c")
    assert not path.exists()
    store.close()


def test_pruned_search_over_the_mapped_file_ranks_like_a_fresh_build(tmp_path):
    from ragd.analysis import query_analyze, term_hash
    rng = np.random.default_rng(17)
    saved_store(tmp_path, rng, 80)
    other = open_store(tmp_path)
    other.delete_document("c", "d003")
    put(other, rng, "n001")
    other.close()
    store = open_store(tmp_path)
    fresh = fresh_index(store)
    store.lexical_search("c", ["alpha"], 5)
    view = store._lexical[1].view()
    assert len(view.delta.lengths) and not view.main.rows.flags.owndata  # mapped, a delta
    for limit in (1, 5, 40):
        for q in QUERIES:
            hashes = [term_hash(t) for t in query_analyze(q)]
            want = fresh.view().top(hashes, limit)
            assert ranking(store, q, limit) == want
            assert view.top(hashes, limit, prune=True) == want
    store.close()
