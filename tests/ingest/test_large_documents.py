"""A document larger than a batch is embedded and written in batches (memory holds one
batch of vectors and rows, whatever the document's size), and still replaced all at once:
the same result as a one-shot write, the old version intact when it fails half-way.
(Peak RSS for 2, 8 and 32 MB files: bench/ingest_memory.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import VOCABULARY
from ragd import Plan, open_collection, retrieve
from ragd.embedding.toy import ToyEmbedder
from ragd.errors import EmbedderError
from ragd.ingest.pipeline import ingest
from ragd.types import ChunkPolicy

POLICY = ChunkPolicy(target_tokens=12, overlap_tokens=0)


def big_text(word: str, paragraphs: int = 300) -> str:
    return "\n\n".join(f"{word} paragraph {i} audit logs retained for {i} days"
                       for i in range(paragraphs)) + "\n"


class Spy(ToyEmbedder):
    """The toy embedder, counting the texts of each call; fails on the call ``fail_at``."""

    def __init__(self, fail_at: int | None = None) -> None:
        super().__init__(VOCABULARY)
        self.calls: list[int] = []
        self.fail_at = fail_at

    def embed_documents(self, texts):
        self.calls.append(len(texts))
        if self.fail_at is not None and len(self.calls) >= self.fail_at:
            raise EmbedderError("the model went away")
        return super().embed_documents(texts)


def stored(coll) -> list[tuple]:
    return [(c.doc_id, c.chunk_index, c.chunk_id, c.text, v.tobytes())
            for c, v in coll.store.iter_chunks(coll.name)]


def test_a_large_document_goes_in_batches_and_equals_a_one_shot_write(tmp_path, store_location):
    (tmp_path / "big.txt").write_text(big_text("apple"))
    spy = Spy()
    coll = open_collection(store_location, "big", spy, create=True)
    writes: list[int] = []
    real_upsert, real_stage = coll.store.upsert_document, coll.store.stage_chunks

    def upsert(collection, record, chunks, vectors):
        writes.append(len(chunks))
        return real_upsert(collection, record, chunks, vectors)

    def stage(collection, job, chunks, vectors):
        writes.append(len(chunks))
        return real_stage(collection, job, chunks, vectors)

    coll.store.upsert_document, coll.store.stage_chunks = upsert, stage
    report = ingest([tmp_path / "big.txt"], coll, policy=POLICY, batch_chunks=64)
    assert report.chunks == 300 and report.exit_code == 0
    assert max(spy.calls) <= 256 and max(writes) <= 256, (spy.calls, writes)
    assert sum(writes) == 300

    whole = open_collection(str(tmp_path / "whole"), "big", ToyEmbedder(VOCABULARY),
                            create=True)
    ingest([tmp_path / "big.txt"], whole, policy=POLICY, batch_chunks=10_000)
    assert stored(coll) == stored(whole)  # the same rows, ids and vectors either way
    assert len(retrieve("apple audit", Plan(k=500, pool=500, mode="lexical"), coll)) == 300
    coll.close()
    whole.close()


def test_a_large_document_that_fails_half_way_leaves_the_old_version(tmp_path, store_location):
    path = tmp_path / "big.txt"
    path.write_text(big_text("apple"))
    coll = open_collection(store_location, "big", ToyEmbedder(VOCABULARY), create=True)
    ingest([path], coll, policy=POLICY, batch_chunks=64)
    before = stored(coll)
    path.write_text(big_text("banana"))
    failing = open_collection(coll.store, "big", Spy(fail_at=2))
    report = ingest([path], failing, policy=POLICY, batch_chunks=64)
    assert (report.failed, report.exit_code) == (1, 1)
    assert "embedding failed" in report.failures[0].reason
    assert stored(coll) == before
    assert retrieve("banana", Plan(mode="lexical"), coll) == []
    again = ingest([path], coll, policy=POLICY, batch_chunks=64)
    assert (again.changed, again.chunks) == (1, 300)
    assert {c.text.split()[0] for c, _ in coll.store.iter_chunks("big")} == {"banana"}
    coll.close()


@pytest.mark.parametrize("batch", [1, 7, 256])
def test_any_batch_size_gives_the_same_vectors(tmp_path, batch):
    from ragd.ingest.index import write_staged
    from ragd.chunking import chunk_document
    from ragd.stores import DocumentRecord
    from ragd.types import Document

    coll = open_collection(str(tmp_path / "s"), "c", ToyEmbedder(VOCABULARY), create=True)
    chunks = chunk_document(Document("d", big_text("apple", 40)), POLICY)
    assert write_staged(coll, DocumentRecord("d", "h"), list(chunks), batch=batch) == 40
    vectors = np.stack([v for _, v in coll.store.iter_chunks("c")])
    assert np.array_equal(vectors, ToyEmbedder(VOCABULARY).embed_documents(
        [c.search_text for c in chunks]))
    coll.close()
