"""The embedded store's HNSW graph: chosen above the size threshold, persisted, followed
across processes, deterministic, and turned off by drop_vector_index."""

from __future__ import annotations

import numpy as np

from ragd.stores import DocumentRecord, open_store
from ragd.stores.ann_index import ann_paths
from ragd.types import Chunk

DIMS = 16


def fill(store, rng, start: int, n: int) -> np.ndarray:
    centres = np.random.default_rng(0).normal(size=(6, DIMS))
    v = centres[rng.integers(0, 6, n)] + 0.5 * rng.normal(size=(n, DIMS))
    v = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
    store.upsert_documents("c", [(DocumentRecord(f"d{start + i:05d}", "h"),
                                  [Chunk(f"d{start + i:05d}", 0, "t")], v[i:i + 1])
                                 for i in range(n)])
    return v


def recall(store, queries, k=10) -> float:
    got = [len({h.key for h in store.vector_search("c", q, k)}
               & {h.key for h in store.vector_search("c", q, k, exact=True)}) for q in queries]
    return sum(got) / (k * len(queries))


def test_threshold_builds_the_graph_once_and_a_reopen_maps_it(tmp_path):
    rng = np.random.default_rng(1)
    store = open_store(tmp_path)
    store.create_collection("c", "m", DIMS, {"ann_threshold": 1000})
    fill(store, rng, 0, 998)
    q = fill(store, rng, 998, 1)[0]
    graph, meta, _ = ann_paths(store.path, 1)
    store.vector_search("c", q, 5)
    assert not graph.exists()  # 999 chunks: below the threshold, exact
    fill(store, rng, 999, 1)
    store.vector_search("c", q, 5)
    assert graph.exists() and meta.exists()
    assert store.stats("c")["vector_index"]["chunks"] == 1000
    store.close()
    store = open_store(tmp_path)
    queries = fill(store, rng, 2000, 20)  # a write to a mapped graph loads it whole first
    assert recall(store, queries) >= 0.95
    assert store.vector_search("c", queries[0], 1)[0].doc_id == "d02000"
    store.close()


def test_foreign_writes_and_deletes_are_caught_up(tmp_path):
    rng = np.random.default_rng(2)
    store = open_store(tmp_path)
    store.create_collection("c", "m", DIMS, {"ann_threshold": 100})
    v = fill(store, rng, 0, 300)
    store.vector_search("c", v[0], 5)  # built
    other = open_store(tmp_path)
    other.delete_document("c", "d00000")
    w = fill(other, rng, 300, 5)
    other.close()
    hits = store.vector_search("c", v[0], 10)
    assert "d00000" not in [h.doc_id for h in hits]
    assert store.vector_search("c", w[2], 1)[0].doc_id == "d00302"
    assert store.stats("c")["vector_index"]["chunks"] == 304
    store.close()


def test_same_rows_give_the_same_graph_results(tmp_path):
    results = []
    for run in range(2):
        rng = np.random.default_rng(4)
        store = open_store(tmp_path / str(run))
        store.create_collection("c", "m", DIMS, {})
        v = fill(store, rng, 0, 500)
        store.build_vector_index("c")
        results.append([[(h.key, h.score) for h in store.vector_search("c", q, 10, ef_search=16)]
                        for q in v[:30]])
        store.close()
    assert results[0] == results[1]


def test_drop_turns_the_automatic_choice_off_until_a_build(tmp_path):
    rng = np.random.default_rng(3)
    store = open_store(tmp_path)
    store.create_collection("c", "m", DIMS, {"ann_threshold": 10})
    v = fill(store, rng, 0, 50)
    store.vector_search("c", v[0], 5)
    graph, _, off = ann_paths(store.path, 1)
    assert graph.exists()
    store.drop_vector_index("c")
    store.vector_search("c", v[0], 5)
    assert not graph.exists() and off.exists() and store.stats("c")["vector_index"] == {}
    store.build_vector_index("c")
    assert graph.exists() and not off.exists()
    store.close()
