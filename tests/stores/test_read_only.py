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
