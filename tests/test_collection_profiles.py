"""A collection records the profile it was created with, like its embedder."""

from __future__ import annotations

import numpy as np
import pytest

from ragd import open_collection
from ragd.collection import recorded_profile
from ragd.errors import ProfileMismatchError
from ragd.profiles import load_profile
from ragd.stores import open_store


def test_a_new_collection_records_its_profile_and_reopens_under_it(store_location, toy):
    coll = open_collection(store_location, "r", toy, create=True, profile="ear")
    recorded = recorded_profile(coll.info)
    assert recorded == {"name": "ear", "hash": load_profile("ear").content_hash,
                        "source": "builtin"}
    coll.close()
    again = open_collection(store_location, "r")
    assert again.profile.name == "ear" and again.plan.scheme == "cfr"
    again.close()


def test_opening_under_another_profile_names_both(store_location, toy):
    open_collection(store_location, "r", toy, create=True, profile="rules").close()
    with pytest.raises(ProfileMismatchError, match="created with profile 'rules', not 'ear'"):
        open_collection(store_location, "r", profile="ear")
    assert open_collection(store_location, "r", profile="rules").profile.name == "rules"


def test_a_collection_from_before_profiles_works_as_default(store_location, toy):
    """Collections created by earlier versions carry no profile in their config: they are
    opened as ``default`` (and only under it)."""
    store = open_store(store_location)
    store.create_collection("old", toy.name, toy.dims, {"embedder": toy.spec()})
    coll = open_collection(store, "old")
    assert coll.profile.name == "default" and coll.plan.scheme == "heading"
    assert open_collection(store, "old", profile="default").profile.name == "default"
    with pytest.raises(ProfileMismatchError, match="created with profile 'default', not 'ear'"):
        open_collection(store, "old", profile="ear")
    store.close()


def test_a_path_profile_is_found_again_from_the_collection(tmp_path, toy):
    path = tmp_path / "mine.toml"
    path.write_text('extends = "ear"\n[retrieval]\nk = 4\n')
    open_collection(tmp_path / "s", "m", toy, create=True, profile=str(path)).close()
    coll = open_collection(tmp_path / "s", "m")
    assert coll.profile.name == "mine" and coll.plan.k == 4
    coll.close()
    path.unlink()
    with pytest.raises(Exception, match="cannot be loaded now"):
        open_collection(tmp_path / "s", "m")


class _Counting:
    """Wraps an embedder, counting its query embeddings."""

    def __init__(self, inner):
        self.inner, self.queries = inner, 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed_query(self, text):
        self.queries += 1
        return self.inner.embed_query(text)


def test_a_query_vector_is_embedded_once_and_equals_a_fresh_one(tmp_path, toy):
    from ragd import ingest
    from ragd.answer import answer

    doc = tmp_path / "doc.md"
    doc.write_text("# Licenses\n\nA license is required to export encryption items.\n")
    coll = open_collection(tmp_path / "s", "q", toy, create=True)
    ingest([doc], coll)
    counting = _Counting(toy)
    coll.embedder = counting
    vector = coll.embed_query("export license")
    assert np.array_equal(vector, toy.embed_query("export license"))
    assert not vector.flags.writeable
    assert coll.embed_query("export license") is vector and counting.queries == 1
    question = "Is a license required to export encryption items?"
    remembered = answer(question, coll)
    assert counting.queries == 2   # retrieval and the sentences' similarity share one
    coll.QUERY_MEMO = 0            # nothing remembered: the same answer, two embeddings
    coll._queries.clear()
    fresh = answer(question, coll)
    assert counting.queries == 4

    def same(a):
        data = a.to_dict()
        data["trace"].pop("timings_ms")
        return data
    assert remembered.status == "answered" and same(remembered) == same(fresh)
    del coll.QUERY_MEMO
    coll.embedder = toy            # another embedder is asked afresh
    assert coll.embed_query("export license") is not vector
    for i in range(coll.QUERY_MEMO + 1):
        coll.embed_query(f"query {i}")
    assert len(coll._queries) == coll.QUERY_MEMO
    coll.close()


class _CountingPassages(_Counting):
    """Also counts the texts embedded as documents."""

    def __init__(self, inner):
        super().__init__(inner)
        self.passages = 0

    def embed_documents(self, texts):
        self.passages += len(texts)
        return self.inner.embed_documents(texts)


def test_passage_vectors_are_remembered_and_change_no_answer(tmp_path, toy):
    """The extractive path embeds its evidence's sentences; asked again, it embeds none,
    and the answer is the same as with nothing remembered."""
    from ragd import ingest
    from ragd.answer import answer

    doc = tmp_path / "doc.md"
    doc.write_text("# Licenses\n\nA license is required to export encryption items. "
                   "Red apples are not items. Logs are retained for 30 days.\n")
    coll = open_collection(tmp_path / "s", "p", toy, create=True)
    ingest([doc], coll)
    counting = _CountingPassages(toy)
    coll.embedder = counting
    question = "Is a license required to export encryption items?"

    def same(a):
        data = a.to_dict()
        data["trace"].pop("timings_ms")
        return data

    first = answer(question, coll)
    embedded = counting.passages
    assert first.status == "answered" and embedded > 0
    again = answer(question, coll)
    assert counting.passages == embedded and same(again) == same(first)
    coll._passages.clear()
    coll.PASSAGE_MEMO = 0          # nothing remembered: the same answer, embedded afresh
    fresh = answer(question, coll)
    assert counting.passages == 2 * embedded and same(fresh) == same(first)
    del coll.PASSAGE_MEMO
    vectors = coll.embed_passages(["red apple", "green banana", "red apple"])
    assert vectors.shape == (3, toy.dims) and np.array_equal(vectors[0], vectors[2])
    assert np.array_equal(vectors, toy.embed_documents(["red apple", "green banana",
                                                        "red apple"]))
    assert coll.embed_passages([]).shape == (0, toy.dims)
    coll.PASSAGE_MEMO = 2
    coll.embed_passages(["a", "b", "c"])
    assert len(coll._passages) == 2
    coll.close()
