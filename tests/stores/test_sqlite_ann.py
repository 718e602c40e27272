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


def test_default_ef_search_grows_with_the_graph_size():
    from ragd.stores.ann_index import (DEFAULT_EF_SEARCH, EF_BASE_SIZE, EF_MAX,
                                       default_ef_search)

    assert default_ef_search(0) == default_ef_search(EF_BASE_SIZE) == DEFAULT_EF_SEARCH
    sizes = [EF_BASE_SIZE, 200_000, 500_000, 1_000_000, 10_000_000, 10**9]
    efs = [default_ef_search(n) for n in sizes]
    assert efs == sorted(efs) and efs[1] > DEFAULT_EF_SEARCH  # grows past the base size
    assert efs[-1] == EF_MAX  # and is bounded
    assert all(isinstance(ef, int) for ef in efs)
    # a denser graph needs a shorter list for the same recall (measured at 1M: M 32 at 560
    # reaches what M 16 reaches at 799); a degree without its own growth takes M 16's
    assert default_ef_search(1_000_000, 16) == 799
    assert default_ef_search(1_000_000, 32) == 560
    assert default_ef_search(1_000_000, 24) == default_ef_search(1_000_000, 16)
    assert default_ef_search(EF_BASE_SIZE, 32) == DEFAULT_EF_SEARCH


def test_an_old_m16_graph_keeps_its_own_default_list(tmp_path, monkeypatch):
    """New graphs are built with M 32; a graph built with M 16 (format 1, or format 2 that
    says so) is mapped as it is and searched with M 16's longer default list."""
    from ragd.stores import ann_index

    monkeypatch.setattr(ann_index, "EF_BASE_SIZE", 100)  # a 300-chunk graph is "large"
    store, v = _graph_store(tmp_path)
    assert store.stats("c")["vector_index"]["connectivity"] == 32
    assert store._anns[1].ef_search == ann_index.default_ef_search(300, 32)
    store.close()
    graph, meta, _ = ann_paths(tmp_path / "ragd.sqlite", 1)
    ann_index_old = ann_index.AnnIndex.build(
        DIMS, graph, {}, 0, np.arange(1, 301, dtype=np.int64), v[:300],
        ann_index.BuildParams(16, 64, "f16"))
    assert ann_index_old.ef_search == ann_index.default_ef_search(300, 16)
    assert ann_index.default_ef_search(300, 16) > ann_index.default_ef_search(300, 32)


def _graph_store(tmp_path, n=300):
    store = open_store(tmp_path)
    store.create_collection("c", "m", DIMS, {"ann_threshold": 100})
    v = fill(store, np.random.default_rng(5), 0, n)
    store.vector_search("c", v[0], 5)  # builds and saves the graph
    return store, v


def _rewrite_meta(path, change):
    from ragd.stores.array_file import read_arrays, write_arrays

    meta, arrays = read_arrays(path)
    meta, rowids = dict(meta), np.array(arrays["rowids"])
    change(meta)
    write_arrays(path, meta, {"rowids": rowids})


def test_the_meta_records_the_build_parameters(tmp_path):
    from ragd.stores.ann_index import BuildParams, default_ef_search
    from ragd.stores.array_file import read_arrays

    store, _ = _graph_store(tmp_path)
    meta = read_arrays(ann_paths(store.path, 1)[1])[0]
    params = BuildParams()
    assert meta["format"] == 2
    assert meta["build"] == {"connectivity": params.connectivity,
                             "expansion_add": params.expansion_add, "dtype": params.dtype}
    stats = store.stats("c")["vector_index"]
    assert stats["connectivity"] == params.connectivity
    assert stats["ef_search"] == default_ef_search(300)
    store.close()


def test_a_format_1_graph_still_loads_as_built_by_the_old_parameters(tmp_path, monkeypatch):
    from ragd.stores import ann_index
    from ragd.stores.ann_index import FORMAT1_BUILD

    build = ann_index.AnnIndex.build.__func__
    monkeypatch.setattr(ann_index.AnnIndex, "build", classmethod(
        lambda cls, *args: build(cls, *args, params=FORMAT1_BUILD)))
    store, v = _graph_store(tmp_path)  # an M 16 graph, as every format-1 graph was
    monkeypatch.undo()
    expected = [h.key for h in store.vector_search("c", v[1], 10)]
    store.close()
    graph, meta, _ = ann_paths(tmp_path / "ragd.sqlite", 1)

    def as_format_1(m):
        m["format"] = 1
        del m["build"]
    _rewrite_meta(meta, as_format_1)
    stamp = graph.stat().st_mtime_ns
    store = open_store(tmp_path)
    assert [h.key for h in store.vector_search("c", v[1], 10)] == expected
    stats = store.stats("c")["vector_index"]
    assert stats["connectivity"] == FORMAT1_BUILD.connectivity
    assert stats["expansion_add"] == FORMAT1_BUILD.expansion_add
    assert graph.stat().st_mtime_ns == stamp  # mapped as it was, not rebuilt
    store.close()


def test_a_graph_whose_meta_cannot_be_trusted_is_rebuilt(tmp_path):
    from ragd.stores.ann_index import FORMAT
    from ragd.stores.array_file import read_arrays

    store, v = _graph_store(tmp_path)
    store.close()
    graph, meta, _ = ann_paths(tmp_path / "ragd.sqlite", 1)
    for change in (lambda m: m.update(format=99),  # a format from a newer ragd
                   lambda m: m["build"].update(connectivity=m["build"]["connectivity"] + 8),
                   lambda m: m.pop("build")):  # format 2 without its parameters
        _rewrite_meta(meta, change)
        stamp = graph.stat().st_mtime_ns
        store = open_store(tmp_path)
        assert store.vector_search("c", v[2], 1)[0].doc_id == "d00002"
        assert graph.stat().st_mtime_ns != stamp  # rebuilt and saved again
        assert read_arrays(meta)[0]["format"] == FORMAT
        store.close()


def test_a_query_gets_the_default_ef_search_of_the_graph_size_unless_it_asks(tmp_path,
                                                                            monkeypatch):
    from ragd.stores import ann_index

    monkeypatch.setattr(ann_index, "EF_BASE_SIZE", 100)  # a 300-chunk graph is "large"
    store, v = _graph_store(tmp_path)
    ann = store._anns[1]
    expected = ann_index.default_ef_search(300)
    assert expected > ann_index.DEFAULT_EF_SEARCH and ann.ef_search == expected
    store.vector_search("c", v[0], 10)
    assert ann.index.expansion_search == expected
    store.vector_search("c", v[0], 10, ef_search=40)
    assert ann.index.expansion_search == 40
    assert store.stats("c")["vector_index"]["ef_search"] == expected
    store.close()
