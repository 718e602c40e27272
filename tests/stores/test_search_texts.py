"""The embedded store's snapshot lists every chunk's indexed text (for the word vocabulary)."""

from __future__ import annotations

from ragd import Document
from ragd.collection import open_collection
from ragd.ingest.pipeline import ingest_documents
from ragd.stores import open_store


def test_search_texts_are_the_chunks_indexed_texts_of_this_snapshot(tmp_path, toy):
    store = open_store(str(tmp_path / "store"))
    coll = open_collection(store, "test", toy, create=True)
    ingest_documents([Document("a", "Alpha text.", title="A"), Document("b", "Beta text.")],
                     coll)
    with store.snapshot("test") as snap:
        texts = snap.search_texts()
        ingest_documents([Document("c", "Gamma text.")], coll)   # after the snapshot began
        assert snap.search_texts() == texts
    chunks = sorted((c for c, _ in store.iter_chunks("test")), key=lambda c: c.doc_id)
    assert sorted(texts) == sorted(c.search_text for c in chunks if c.doc_id != "c")
    assert any("Alpha text." in t for t in texts) and len(texts) == 2
    with store.snapshot("test") as snap:
        assert len(snap.search_texts()) == 3
    store.close()
