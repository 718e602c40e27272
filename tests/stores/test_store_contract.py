"""The Store protocol's behaviour, held to one contract on every backend."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import inject_write_failure
from ragd.errors import (EmbedModelMismatchError, InvalidDocumentError, StoreError,
                         UnknownCollectionError, UsageError)
from ragd.stores import DocumentRecord, open_store
from ragd.types import Chunk, Filters


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def write(store, doc_id: str, texts: list[str], vectors: list[np.ndarray], *, tags=(),
          metadata=None, digest="h1", collection="c") -> list[Chunk]:
    chunks = [Chunk(doc_id=doc_id, chunk_index=i, text=t, tags=tags, metadata=metadata or {},
                    context=f"ctx {doc_id}", tokens=len(t.split()), start_offset=0,
                    end_offset=len(t), section_id=f"S-{doc_id}", kind="chunk")
              for i, t in enumerate(texts)]
    store.upsert_document(collection, DocumentRecord(doc_id=doc_id, content_hash=digest,
                                                     title=f"Title {doc_id}"),
                          chunks, np.stack(vectors) if vectors else np.zeros((0, 3), np.float32))
    return chunks


@pytest.fixture
def coll(store):
    store.create_collection("c", "test-model", 3, {"note": "x"})
    return store


def test_collection_binding_and_errors(coll):
    info = coll.get_collection("c")
    assert (info.embed_model, info.embed_dims, dict(info.config)) == ("test-model", 3, {"note": "x"})
    assert coll.create_collection("c", "test-model", 3, {}).name == "c"  # same model: reopened
    with pytest.raises(EmbedModelMismatchError) as exc:
        coll.create_collection("c", "other-model", 5, {})
    assert "test-model" in str(exc.value) and "other-model" in str(exc.value)
    with pytest.raises(UnknownCollectionError) as exc:
        coll.get_collection("nope")
    assert "'nope'" in str(exc.value) and "c" in str(exc.value)
    assert [c.name for c in coll.list_collections()] == ["c"]


def test_round_trip_keeps_every_field(coll):
    chunks = write(coll, "d1", ["alpha beta", "gamma"], [unit(1, 0, 0), unit(0, 1, 0)],
                   tags=("x", "y"), metadata={"year": 2020, "lang": "en"})
    got = coll.get_chunks("c", [("d1", 0), ("d1", 1), ("missing", 0)])
    assert set(got) == {("d1", 0), ("d1", 1)}
    assert got[("d1", 0)].chunk == chunks[0]
    assert got[("d1", 1)].title == "Title d1"
    rows = list(coll.iter_chunks("c"))
    assert [c for c, _ in rows] == chunks
    assert np.array_equal(rows[1][1], unit(0, 1, 0))
    record = coll.get_document("c", "d1")
    assert (record.content_hash, record.version, record.title) == ("h1", 1, "Title d1")


def test_replace_is_atomic_and_versions(coll):
    write(coll, "d1", ["one", "two", "three"], [unit(1, 0, 0)] * 3)
    write(coll, "d1", ["uno"], [unit(0, 1, 0)], digest="h2")
    assert [c.text for c, _ in coll.iter_chunks("c")] == ["uno"]
    assert coll.get_document("c", "d1").version == 2
    assert coll.stats("c")["chunks"] == 1


def test_failure_mid_write_keeps_previous_version(coll):
    write(coll, "d1", ["old text one", "old text two"], [unit(1, 0, 0), unit(0, 1, 0)])
    coll.vector_search("c", unit(1, 0, 0), 5)  # load the vector cache first
    inject_write_failure(coll, "BOOM")
    with pytest.raises(StoreError):
        write(coll, "d1", ["new one", "new two", "new BOOM three"],
              [unit(0, 0, 1)] * 3, digest="h2")
    assert [c.text for c, _ in coll.iter_chunks("c")] == ["old text one", "old text two"]
    assert coll.get_document("c", "d1").content_hash == "h1"
    assert [h.key for h in coll.vector_search("c", unit(0, 0, 1), 5)] == [("d1", 0), ("d1", 1)]
    assert [h.doc_id for h in coll.lexical_search("c", ["new"], 5)] == []
    assert [h.key for h in coll.lexical_search("c", ["old"], 5)] == [("d1", 0), ("d1", 1)]


def test_bulk_writes_are_all_or_nothing(coll):
    def item(doc_id, texts, vector, digest):
        chunks = [Chunk(doc_id=doc_id, chunk_index=i, text=t) for i, t in enumerate(texts)]
        return DocumentRecord(doc_id, digest), chunks, np.tile(vector, (len(texts), 1))

    assert coll.upsert_documents("c", [item("a", ["old apple"], unit(1, 0, 0), "h1")]) == 1
    coll.vector_search("c", unit(1, 0, 0), 5)  # load the caches first
    coll.lexical_search("c", ["apple"], 5)
    inject_write_failure(coll, "BOOM")
    with pytest.raises(StoreError):
        coll.upsert_documents("c", [item("a", ["new apple"], unit(0, 1, 0), "h2"),
                                    item("b", ["BOOM banana"], unit(0, 0, 1), "h2")])
    with pytest.raises(UsageError):  # refused before anything is written
        coll.upsert_documents("c", [item("a", ["new apple"], unit(0, 1, 0), "h2"),
                                    (DocumentRecord("b", "h2"), [Chunk("b", 0, "x")],
                                     np.zeros((2, 3), np.float32))])
    with pytest.raises(UsageError):
        coll.upsert_documents("c", [item("a", ["x"], unit(0, 1, 0), "h2"),
                                    item("a", ["y"], unit(0, 1, 0), "h3")])
    assert [c.text for c, _ in coll.iter_chunks("c")] == ["old apple"]
    assert coll.get_document("c", "a").content_hash == "h1"
    assert [h.key for h in coll.lexical_search("c", ["new"], 5)] == []
    assert coll.upsert_documents("c", [item("a", ["new apple", "more"], unit(0, 1, 0), "h3"),
                                       item("c", ["cherry"], unit(0, 0, 1), "h3")]) == 3
    assert [(c.doc_id, c.text) for c, _ in coll.iter_chunks("c")] == [
        ("a", "new apple"), ("a", "more"), ("c", "cherry")]
    assert coll.get_document("c", "a").version == 2
    assert [h.key for h in coll.vector_search("c", unit(0, 0, 1), 1)] == [("c", 0)]
    assert [h.key for h in coll.lexical_search("c", ["apple"], 5)] == [("a", 0)]
    assert coll.upsert_documents("c", []) == 0


def test_delete_removes_from_every_index(coll):
    write(coll, "a", ["apple pie"], [unit(1, 0, 0)])
    write(coll, "b", ["banana split"], [unit(0, 1, 0)])
    coll.vector_search("c", unit(1, 0, 0), 5)
    assert coll.delete_document("c", "a") is True
    assert coll.delete_document("c", "a") is False
    assert [h.doc_id for h in coll.vector_search("c", unit(1, 0, 0), 5)] == ["b"]
    assert coll.lexical_search("c", ["apple"], 5) == []
    assert coll.get_document("c", "a") is None


def test_vector_search_is_exact_and_breaks_ties_by_key(coll):
    rng = np.random.default_rng(7)
    vectors = {f"d{i:02d}": unit(*rng.normal(size=3)) for i in range(30)}
    for doc_id, v in vectors.items():
        write(coll, doc_id, [f"text {doc_id}"], [v])
    vectors["tie-b"] = vectors["tie-a"] = unit(1, 1, 1)
    write(coll, "tie-b", ["same"], [unit(1, 1, 1)])
    write(coll, "tie-a", ["same"], [unit(1, 1, 1)])
    q = unit(0.3, -0.2, 0.9)
    hits = coll.vector_search("c", q, 10)
    all_scores = sorted(((float(v @ q), k) for k, v in vectors.items()),
                        key=lambda s: (-s[0], s[1]))
    assert [h.doc_id for h in hits] == [k for _, k in all_scores[:10]]
    tied = coll.vector_search("c", unit(1, 1, 1), 2)
    assert [h.doc_id for h in tied] == ["tie-a", "tie-b"]


def test_cosines_of_named_chunks_equal_the_vector_searchs_scores(coll):
    rng = np.random.default_rng(11)
    for i in range(12):
        write(coll, f"d{i:02d}", [f"text {i}", f"more {i}"],
              [unit(*rng.normal(size=3)), unit(*rng.normal(size=3))])
    q = unit(0.5, -0.1, 0.8)
    scored = {h.key: h.score for h in coll.vector_search("c", q, 24)}
    keys = [("d03", 1), ("d07", 0), ("d11", 1), ("missing", 0), ("d03", 9)]
    with coll.snapshot("c") as snap:
        got = snap.cosines(q, keys)
        assert snap.cosines(q, []) == {}
        with pytest.raises(UsageError):
            snap.cosines(unit(1, 0), keys[:1])        # another dimension
    assert set(got) == {("d03", 1), ("d07", 0), ("d11", 1)}     # missing keys left out
    for key, cosine in got.items():
        assert cosine == pytest.approx(scored[key], abs=1e-5)


def test_cache_follows_own_and_foreign_writes(coll, store_location):
    write(coll, "a", ["apple"], [unit(1, 0, 0)])
    assert [h.doc_id for h in coll.vector_search("c", unit(0, 1, 0), 5)] == ["a"]
    write(coll, "b", ["banana"], [unit(0, 1, 0)])  # own write: delta applied lazily
    assert coll.vector_search("c", unit(0, 1, 0), 1)[0].doc_id == "b"
    other = open_store(store_location)
    try:
        write(other, "z", ["zebra"], [unit(0, 0, 1)])  # another handle: full reload
        other.delete_document("c", "b")
    finally:
        other.close()
    assert [h.doc_id for h in coll.vector_search("c", unit(0, 0, 1), 5)] == ["z", "a"]


def test_lexical_terms_are_literal(coll):
    write(coll, "a", ['He said "export AND licence" NEAR the col:value'], [unit(1, 0, 0)])
    for terms in (['"'], ["AND"], ["NEAR"], ["col:value"], ["*"], ["a\"b"], ["(", ")"]):
        coll.lexical_search("c", terms, 5)  # must not raise on any FTS syntax
    assert [h.doc_id for h in coll.lexical_search("c", ["NEAR"], 5)] == ["a"]
    assert [h.doc_id for h in coll.lexical_search("c", ["col:value"], 5)] == ["a"]


@pytest.fixture
def filtered(coll):
    docs = {
        "p1": (("red", "fruit"), {"kind": "apple", "year": 2020, "ok": True}),
        "p2": (("red",), {"kind": "cherry", "year": 2021, "ok": False}),
        "p3": (("green", "fruit"), {"kind": "apple", "year": 2020.5, "note": None}),
        "p4": ((), {"kind": "it's \"quoted\" %; -- ' OR 1=1", "year": 2020}),
    }
    for i, (doc_id, (tags, meta)) in enumerate(docs.items()):
        write(coll, doc_id, [f"fruit text {doc_id}"], [unit(1, i, 0)], tags=tags, metadata=meta)
    return coll


@pytest.mark.parametrize("filters, expected", [
    (Filters(tags_any=("red",)), ["p1", "p2"]),
    (Filters(tags_any=("green", "red")), ["p1", "p2", "p3"]),
    (Filters(tags_all=("red", "fruit")), ["p1"]),
    (Filters(tags_all=("fruit",), tags_any=("green",)), ["p3"]),
    (Filters(metadata={"kind": "apple"}), ["p1", "p3"]),
    (Filters(metadata={"kind": "apple", "year": 2020}), ["p1"]),
    (Filters(metadata={"year": 2020.5}), ["p3"]),
    (Filters(metadata={"ok": True}), ["p1"]),
    (Filters(metadata={"ok": False}), ["p2"]),
    (Filters(metadata={"note": None}), ["p3"]),
    (Filters(metadata={"kind": "it's \"quoted\" %; -- ' OR 1=1"}), ["p4"]),
    (Filters(metadata={"kind": "' OR 1=1"}), []),
    (Filters(metadata={"kind": "%"}), []),
    (Filters(tags_any=("' OR 1=1 --",)), []),
    (Filters(metadata={"no\"such'key": 1}), []),
])
def test_filters_in_both_searches(filtered, filters, expected):
    vector = sorted(h.doc_id for h in filtered.vector_search("c", unit(1, 1, 0), 10, filters))
    lexical = sorted(h.doc_id for h in filtered.lexical_search("c", ["fruit"], 10, filters))
    assert vector == expected
    assert lexical == expected


def test_selective_filter_still_returns_k(coll):
    items = []
    for i in range(300):            # one bulk write: the store's own path for many documents
        tags = ("rare",) if i % 100 == 0 else ("common",)
        chunk = Chunk(doc_id=f"d{i:03d}", chunk_index=0, text=f"common words {i}", tags=tags,
                      context=f"ctx d{i:03d}", tokens=3, start_offset=0, end_offset=15,
                      section_id=f"S-d{i:03d}", kind="chunk")
        items.append((DocumentRecord(doc_id=f"d{i:03d}", content_hash="h1"), [chunk],
                      np.stack([unit(1, i % 7, i % 5)])))
    assert coll.upsert_documents("c", items) == 300
    hits = coll.vector_search("c", unit(1, 0, 0), 3, Filters(tags_any=("rare",)))
    assert sorted(h.doc_id for h in hits) == ["d000", "d100", "d200"]
    lex = coll.lexical_search("c", ["common"], 3, Filters(tags_any=("rare",)))
    assert len(lex) == 3


def test_bad_writes_are_refused_before_anything_changes(coll):
    write(coll, "d1", ["keep me"], [unit(1, 0, 0)])
    bad = [Chunk(doc_id="d1", chunk_index=0, text="x")]
    with pytest.raises(Exception) as exc:
        coll.upsert_document("c", DocumentRecord("d1", "h9"), bad, np.zeros((1, 5), np.float32))
    assert "shape" in str(exc.value)
    with pytest.raises(Exception):
        coll.upsert_document("c", DocumentRecord("d1", "h9"),
                             [Chunk(doc_id="other", chunk_index=0, text="x")],
                             np.zeros((1, 3), np.float32))
    assert [c.text for c, _ in coll.iter_chunks("c")] == ["keep me"]


def test_data_version_counts_committed_writes_only(coll):
    before = coll.data_version("c")
    write(coll, "d1", ["one"], [unit(1, 0, 0)])
    after_write = coll.data_version("c")
    assert after_write > before
    with pytest.raises(InvalidDocumentError):
        write(coll, "d2", ["two"], [unit(0, 1, 0)], metadata={"k": "\x00"})
    assert coll.data_version("c") == after_write
    assert coll.delete_document("c", "d1")
    assert coll.data_version("c") > after_write


@pytest.mark.parametrize("record, chunk, field", [
    (dict(), dict(text="nul\x00byte"), "text"),
    (dict(), dict(tags=("ok", "t\x00")), "tags"),
    (dict(), dict(metadata={"k": ["v\x00"]}), "metadata"),
    (dict(), dict(page=2 ** 31), "page"),
    (dict(title="a\x00b"), dict(), "title"),
    (dict(metadata={"k\x00": 1}), dict(), "metadata"),
])
def test_a_value_no_store_holds_is_refused_alike_on_both_backends(coll, record, chunk, field):
    """One rule on both backends: a NUL (or a lone surrogate, or an integer over 32 bits)
    is an InvalidDocumentError naming its field, before anything is written, whether the
    document comes whole or staged."""
    write(coll, "d1", ["keep me"], [unit(1, 0, 0)])
    rec = DocumentRecord(**{"doc_id": "d1", "content_hash": "h9", **record})
    bad = [Chunk(**{"doc_id": "d1", "chunk_index": 0, "text": "x", **chunk})]
    vectors = unit(1, 0, 0)[None]
    with pytest.raises(InvalidDocumentError) as exc:
        coll.upsert_document("c", rec, bad, vectors)
    assert exc.value.field == field and "'d1'" in str(exc.value)
    with pytest.raises(InvalidDocumentError) as exc:
        if chunk:
            coll.stage_chunks("c", "job-1", bad, vectors)
        else:
            coll.commit_staged("c", rec, "job-1", 0)
    assert exc.value.field == field
    assert [c.text for c, _ in coll.iter_chunks("c")] == ["keep me"]
    assert coll.get_document("c", "d1").content_hash == "h1"


@pytest.fixture
def typed(coll):
    """Values that look alike but differ in JSON type: the backends must agree on them."""
    docs = {
        "int": {"year": 2020, "flag": 1, "n": 0},
        "real": {"year": 2020.0, "flag": 1.5, "n": 0.0},
        "bool": {"year": "2020", "flag": True, "n": False},
        "list": {"year": [2020], "flag": {"a": 1, "b": [1, 2]}, "n": None},
    }
    for i, (doc_id, meta) in enumerate(docs.items()):
        write(coll, doc_id, [f"typed text {doc_id}"], [unit(1, i, 1)], metadata=meta)
    return coll


@pytest.mark.parametrize("metadata, expected", [
    ({"year": 2020}, ["int"]),          # an integer matches a stored integer only
    ({"year": 2020.0}, ["int"]),        # an integral float is that integer (SQLite's rule)
    ({"year": "2020"}, ["bool"]),       # a string never matches a number
    ({"flag": 1}, ["int"]),             # 1 is not true
    ({"flag": True}, ["bool"]),         # and true is not 1
    ({"flag": 1.5}, ["real"]),
    ({"n": 0}, ["int"]),
    ({"n": False}, ["bool"]),
    ({"n": None}, ["list"]),            # null matches an explicit null only
    ({"year": [2020]}, ["list"]),       # lists and objects: equal as JSON, not contained
    ({"flag": {"a": 1, "b": [1, 2]}}, ["list"]),
    ({"flag": {"a": 1}}, []),
    ({"year": []}, []),
    ({"missing": None}, []),
])
def test_metadata_filters_respect_json_types(typed, metadata, expected):
    filters = Filters(metadata=metadata)
    assert sorted(h.doc_id for h in typed.vector_search("c", unit(1, 1, 1), 10, filters)) \
        == expected
    assert sorted(h.doc_id for h in typed.lexical_search("c", ["typed"], 10, filters)) \
        == expected


HOSTILE = ["it's", 'say "hi"', "100%", "a;b", "x -- y", "' OR 1=1", "' OR '1'='1' --",
           "%_\\", "'); DROP TABLE documents; --"]


def test_hostile_values_are_matched_literally(coll):
    for i, value in enumerate(HOSTILE):
        write(coll, f"h{i}", [f"hostile {value}"], [unit(1, i, 0)], tags=(value,),
              metadata={"v": value, value: "key"})
    write(coll, "plain", ["hostile plain"], [unit(0, 0, 1)], tags=("plain",),
          metadata={"v": "plain"})
    for i, value in enumerate(HOSTILE):
        for filters in (Filters(tags_any=(value,)), Filters(tags_all=(value,)),
                        Filters(metadata={"v": value}), Filters(metadata={value: "key"})):
            assert [h.doc_id for h in coll.vector_search("c", unit(1, 0, 0), 20, filters)] \
                == [f"h{i}"], (value, filters)
            assert [h.doc_id for h in coll.lexical_search("c", ["hostile"], 20, filters)] \
                == [f"h{i}"], (value, filters)
        assert coll.lexical_search("c", [value], 20, Filters(tags_any=("plain",))) == []
    assert coll.find_sections("c", HOSTILE, 20) == []
    assert coll.stats("c")["documents"] == len(HOSTILE) + 1  # nothing was dropped


def test_lexical_terms_with_sql_and_query_syntax_match_only_words(coll):
    write(coll, "a", ["export licence for items"], [unit(1, 0, 0)])
    write(coll, "b", ["nothing relevant"], [unit(0, 1, 0)])
    for terms in (["' OR 1=1 --"], ["%"], ["licence & !items"], ["a:*"], ["<->"], [";"],
                  ["\\"], ["''"]):
        hits = coll.lexical_search("c", terms, 5)
        assert all(h.doc_id == "a" for h in hits), terms  # no operator reached the engine
    assert [h.doc_id for h in coll.lexical_search("c", ["' OR 1=1 --", "items"], 5)] == ["a"]


def test_query_cache_lives_until_its_ttl_or_the_next_write(coll):
    """The cache every process shares: a value is returned while younger than the caller's
    time to live and no write happened to the collection since; another collection's
    writes leave it alone."""
    coll.create_collection("other", "test-model", 3, {})
    coll.cache_put("c", "k1", '{"v": 1}', now=100.0)
    assert coll.cache_get("c", "k1", max_age=10, now=105.0) == '{"v": 1}'
    assert coll.cache_get("c", "k1", max_age=10, now=111.0) is None  # too old
    assert coll.cache_get("c", "k2", max_age=10, now=105.0) is None  # never stored
    assert coll.cache_get("other", "k1", max_age=10, now=105.0) is None  # per collection
    write(coll, "d-other", ["x"], [unit(1, 0, 0)], collection="other")
    assert coll.cache_get("c", "k1", max_age=10, now=105.0) == '{"v": 1}'
    coll.cache_put("c", "k1", '{"v": 2}', now=106.0)  # a newer value replaces it
    assert coll.cache_get("c", "k1", max_age=10, now=107.0) == '{"v": 2}'
    write(coll, "d1", ["alpha"], [unit(1, 0, 0)])  # any write to the collection invalidates
    assert coll.cache_get("c", "k1", max_age=10, now=107.0) is None
    coll.cache_put("c", "k1", '{"v": 3}', now=108.0)
    assert coll.delete_document("c", "d1")
    assert coll.cache_get("c", "k1", max_age=10, now=108.0) is None


def _vector_items(rng, n: int, dims: int, prefix: str = "v"):
    centres = rng.normal(size=(8, dims))
    vectors = centres[rng.integers(0, 8, n)] + 0.4 * rng.normal(size=(n, dims))
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    return [(DocumentRecord(f"{prefix}{i:04d}", "h"), [Chunk(f"{prefix}{i:04d}", 0, "text")],
             vectors[i:i + 1]) for i in range(n)], vectors


def test_vector_index_is_behind_the_protocol_with_one_meaning(store):
    """build / drop the approximate index, and the per-query exact/approximate choice, mean
    the same on both backends: an approximate search follows writes and deletes, exact=True
    is the exact ranking, and a dropped index leaves exact searches."""
    dims = 16
    store.create_collection("v", "test-model", dims, {})
    rng = np.random.default_rng(11)
    items, vectors = _vector_items(rng, 300, dims)
    store.upsert_documents("v", items)
    store.build_vector_index("v")
    for q in vectors[[3, 77, 150]] + 0.1:
        q = (q / np.linalg.norm(q)).astype(np.float32)
        exact = store.vector_search("v", q, 10, exact=True)
        want = sorted(((float(v @ q), f"v{i:04d}") for i, v in enumerate(vectors)),
                      key=lambda s: (-s[0], s[1]))[:10]
        assert [h.doc_id for h in exact] == [d for _, d in want]
        approx = store.vector_search("v", q, 10, exact=False, ef_search=300)
        assert [h.doc_id for h in approx] == [h.doc_id for h in exact]
        assert [h.score for h in approx] == pytest.approx([h.score for h in exact], abs=1e-5)
    q = unit(*rng.normal(size=dims))
    write(store, "new", ["fresh"], [q], collection="v")  # a write after the build
    assert store.vector_search("v", q, 1, exact=False)[0].doc_id == "new"
    assert store.vector_search("v", q, 1)[0].doc_id == "new"
    store.delete_document("v", "new")
    assert "new" not in [h.doc_id for h in store.vector_search("v", q, 10, exact=False)]
    store.drop_vector_index("v")
    assert [h.doc_id for h in store.vector_search("v", q, 10)] == \
        [h.doc_id for h in store.vector_search("v", q, 10, exact=True)]
    store.build_vector_index("v")  # a rebuild after a drop works alike
    assert store.vector_search("v", vectors[5], 1, exact=False)[0].doc_id == "v0005"


def test_a_lookup_by_an_id_holding_nul_finds_nothing(coll):
    """No stored value holds a NUL (writes refuse them), so a lookup by one finds nothing
    on both backends, instead of a server error on PostgreSQL."""
    write(coll, "a", ["apple"], [unit(1, 0, 0)])
    assert coll.get_document("c", "a\x00") is None
    assert coll.document_chunks("c", "a\x00") == []
    assert coll.delete_document("c", "a\x00") is False
    assert coll.get_chunks("c", [("a\x00", 0), ("a", 0)]).keys() == {("a", 0)}
    assert coll.find_sections("c", ["S-a\x00", "S-a"], 5) == [("a", 0)]
    assert coll.documents_from("c", "/x\x00") == []
    assert coll.get_document("c", "a") is not None


def test_refresh_lexical_leaves_exactly_bm25_over_what_is_left(coll):
    """After a bulk load and deletes too few for a store to re-weigh on its own (2 documents
    of 12, whose longer chunks move the average length by 8 %), ``refresh_lexical`` brings
    the lexical index up to date: its scores equal those of a collection that only ever held
    the remaining documents (on Postgres they differ without it)."""
    coll.create_collection("fresh", "test-model", 3, {})
    texts = {f"d{i:02d}": [f"apple banana cherry w{i}", f"banana date fig w{i}"]
             for i in range(1, 11)}
    texts.update({f"d{i:02d}": [f"apple banana cherry long x{i} y{i}",
                                f"banana date fig long x{i} y{i}"] for i in (11, 12)})
    vectors = [unit(1, 0, 0), unit(0, 1, 0)]
    for doc_id, t in texts.items():
        write(coll, doc_id, t, vectors)
    coll.refresh_lexical("c")  # after the bulk load
    assert len(coll.lexical_search("c", ["apple", "cherry"], 20)) == 12
    for doc_id in ("d11", "d12"):
        assert coll.delete_document("c", doc_id)
    for doc_id in sorted(texts)[:10]:
        write(coll, doc_id, texts[doc_id], vectors, collection="fresh")
    coll.refresh_lexical("c")  # after the deletes
    for terms in (["apple", "cherry"], ["banana"], ["date", "w5"]):
        got = coll.lexical_search("c", terms, 20)
        want = coll.lexical_search("fresh", terms, 20)
        assert [(h.doc_id, h.chunk_index) for h in got] == [(h.doc_id, h.chunk_index)
                                                            for h in want]
        assert np.allclose([h.score for h in got], [h.score for h in want], rtol=1e-5)
    with pytest.raises(UnknownCollectionError):
        coll.refresh_lexical("nope")
