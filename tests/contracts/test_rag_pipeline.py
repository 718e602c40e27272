"""The rag-pipeline contract (the ``rules`` profile) on a real rule book, on both backends.

The contract's six tests, then what it says around them: the cache (hit within the time
to live, miss after it with an injected clock, invalidated by a re-ingest, shared by two
processes), the timeout, an unreachable store, and every document the ingest must refuse.
The rule book (tests/fixtures/rulebook/) is original text of a fictional game.

Relevance is the cosine of chunk and query, clipped to [0, 1]; the contract's numbers
(0.6 to qualify, 0.8 for "high relevance") were set for text-embedding-3-small. Under the
bundled all-MiniLM-L6-v2 the rules profile's threshold is calibrated (docs/profiles/rules.md),
and where a test names a figure it is that calibrated one.
"""

from __future__ import annotations

import contextlib

import datetime as dt
import json
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from helpers import REPO, drop_pg_schema, with_store_options
from ragd.contracts import (DocumentChunk, IngestionResult, RAGContext, RAGPipeline,
                            RuleDocument)
from ragd.errors import (InvalidQueryError, RetrievalTimeoutError, StoreError,
                         VectorDBUnavailableError, VectorDBWriteError)
from ragd.profiles import load_profile

BOOK = REPO / "tests" / "fixtures" / "rulebook"
BAD = REPO / "tests" / "fixtures" / "rulebook-bad"
DOC_TYPES = {"core-rules", "faq", "team-rules", "ops", "killzone"}
RULES = load_profile("rules")
THRESHOLD = RULES.retrieval["min_relevance"]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def location(request, tmp_path_factory):
    """A store location holding the rule book, ingested once per backend."""
    if request.param == "postgres":
        dsn = request.getfixturevalue("pg_dsn")
        schema = f"t_{uuid.uuid4().hex[:16]}"
        loc = with_store_options(dsn, schema=schema)
        yield _ingested(loc)
        drop_pg_schema(dsn, schema)
    else:
        yield _ingested(str(tmp_path_factory.mktemp("rules") / "store"))


def _ingested(loc: str) -> str:
    pipeline = RAGPipeline(loc)
    result = pipeline.ingest_paths([str(BOOK)])
    assert (result.documents_processed, result.documents_failed) == (7, 0), result
    pipeline.collection.close()
    return loc


@pytest.fixture
def pipeline(location):
    p = RAGPipeline(location)
    yield p
    p.collection.close()


# -- the contract's six tests ----------------------------------------------------------------
def test_contract_1_retrieve_with_high_relevance(pipeline):
    """The contract's query: the Movement Phase section ranks first. MiniLM scores this short
    question at about 0.30 against that 220-token section, under the calibrated threshold;
    the contract's own request parameter (min_relevance) lowers it to show the ordering, and
    a question in the book's words meets the calibrated threshold itself."""
    ctx = pipeline.retrieve("What can I do during movement?", "test:user1", min_relevance=0.25)
    assert ctx.meets_threshold and len(ctx.document_chunks) >= 1
    assert ctx.document_chunks[0].metadata["section"] == "Movement Phase"
    assert ctx.avg_relevance >= 0.25
    ctx = pipeline.retrieve("What options does an operative have in the Movement Phase?",
                            "test:user1")
    assert ctx.meets_threshold and ctx.avg_relevance >= THRESHOLD
    assert ctx.document_chunks[0].metadata["section"] == "Movement Phase"


def test_contract_2_retrieve_with_low_relevance(pipeline):
    ctx = pipeline.retrieve("How do I cook pasta?", "test:user1")
    assert ctx.meets_threshold is False
    assert ctx.document_chunks == [] and ctx.relevance_scores == []
    assert ctx.avg_relevance < 0.6 and ctx.avg_relevance < THRESHOLD
    assert ctx.outcome == "NoDocumentsFoundError"


def test_contract_3_chunk_ordering(pipeline):
    ctx = pipeline.retrieve("Barricade rules", "test:user1")
    scores = [c.relevance_score for c in ctx.document_chunks]
    assert len(scores) >= 2
    assert scores == sorted(scores, reverse=True)
    assert ctx.relevance_scores == scores
    assert ctx.total_chunks == len(ctx.document_chunks) <= RULES.retrieval["k"]
    assert all(0.0 <= s <= 1.0 for s in scores)


@pytest.mark.parametrize("query", ["Barricade rules", "how does blast work",
                                   "What options does an operative have in the Movement Phase?",
                                   "test"])
def test_contract_4_metadata_completeness(pipeline, query):
    ctx = pipeline.retrieve(query, "test:user1", min_relevance=0.0)
    assert ctx.document_chunks
    for c in ctx.document_chunks:
        assert isinstance(c.metadata["source"], str) and c.metadata["source"]
        assert c.metadata["doc_type"] in DOC_TYPES
        dt.date.fromisoformat(c.metadata["last_update_date"])
        assert c.metadata["section"]
        assert c.metadata["embedding_model"] == "all-MiniLM-L6-v2"
        assert c.metadata["embedding_version"].startswith("onnx-int8-sha256:")
        assert isinstance(c.chunk_id, uuid.UUID) and isinstance(c.document_id, uuid.UUID)


def test_contract_5_ingest_idempotency(store_location, tmp_path):
    p = RAGPipeline(store_location)
    doc_id = uuid.UUID("8c1d9a64-2f1b-4d53-9a70-0b8a1c2e3f45")
    meta = {"source": "Shardfall Ops v1", "doc_type": "ops", "last_update_date": "2025-10-01"}
    first = p.ingest([RuleDocument(doc_id, "ops-extra.md", "# Ops\n\n## Scoring\n\n"
                                   "Hold the beacon at the end of each round.", meta)])
    assert (first.documents_processed, first.documents_failed) == (1, 0)
    old = p.collection.store.get_chunks(p.collection.name, [(str(doc_id), 0)])
    second = p.ingest([RuleDocument(doc_id, "ops-extra.md", "# Ops\n\n## Scoring\n\n"
                                    "Capture the lighthouse to score two points.", meta)])
    assert (second.documents_processed, second.documents_failed) == (1, 0)
    assert second.embedding_count == 1
    stored = p.collection.store.list_documents(p.collection.name)
    assert [d.doc_id for d in stored] == [str(doc_id)] and stored[0].version == 2
    chunks = p.collection.store.get_chunks(p.collection.name, [(str(doc_id), 0)])
    assert "lighthouse" in chunks[(str(doc_id), 0)].chunk.text
    assert "beacon" in old[(str(doc_id), 0)].chunk.text
    ctx = p.retrieve("capture the lighthouse", "t", min_relevance=0.0)
    assert ctx.document_chunks[0].document_id == doc_id
    assert all("beacon" not in c.text for c in ctx.document_chunks)  # old embeddings removed
    p.collection.close()


def test_contract_6_performance(pipeline):
    """100 documents are more than the book; the SLA is measured in bench/, this checks the
    call completes and does not hang (no timed assertion in a unit test)."""
    ctx = pipeline.retrieve("test", "test:user1")
    assert isinstance(ctx, RAGContext)


# -- around the tests -------------------------------------------------------------------------
def test_json_has_exactly_the_contract_field_names(pipeline):
    data = pipeline.retrieve("Barricade rules", "k").to_dict()
    assert set(data) == {"context_id", "query_id", "document_chunks", "relevance_scores",
                         "total_chunks", "avg_relevance", "meets_threshold"}
    assert set(data["document_chunks"][0]) == {"chunk_id", "document_id", "text", "metadata",
                                               "relevance_score", "position_in_doc"}
    json.dumps(data)


def test_uuids_are_deterministic_except_query_id(pipeline, location):
    a = pipeline.retrieve("Barricade rules", "k", min_relevance=0.0)
    other = RAGPipeline(location)
    b = other.retrieve("Barricade rules", "k", min_relevance=0.0)
    other.collection.close()
    assert a.context_id == b.context_id and a.query_id != b.query_id
    assert [c.chunk_id for c in a.document_chunks] == [c.chunk_id for c in b.document_chunks]
    assert all(c.document_id == uuid.uuid5(
        uuid.UUID("0b9d3f6e-5d55-5a4c-8f1e-72616764c0de"), f"default\x1f{name}")
        for c, name in ((c, _doc_name(pipeline, c)) for c in a.document_chunks))


def _doc_name(pipeline, chunk: DocumentChunk) -> str:
    for record in pipeline.collection.store.list_documents(pipeline.collection.name):
        if uuid.uuid5(uuid.UUID("0b9d3f6e-5d55-5a4c-8f1e-72616764c0de"),
                      f"default\x1f{record.doc_id}") == chunk.document_id:
            return record.doc_id
    return "?"


def test_at_most_max_chunks_and_only_those_that_qualify(pipeline):
    ctx = pipeline.retrieve("Barricade rules", "k", max_chunks=2, min_relevance=0.0)
    assert len(ctx.document_chunks) == 2
    high = pipeline.retrieve("Barricade rules", "k", max_chunks=5, min_relevance=0.55)
    assert all(c.relevance_score >= 0.55 for c in high.document_chunks)
    if high.document_chunks:
        assert high.avg_relevance == pytest.approx(
            sum(high.relevance_scores) / len(high.relevance_scores), abs=1e-6)


@pytest.mark.parametrize("query", ["", "   ", "x" * 2001])
def test_bad_queries_raise_invalid_query(pipeline, query):
    with pytest.raises(InvalidQueryError):
        pipeline.retrieve(query, "k")


def test_cache_hit_within_ttl_miss_after_it(location):
    now = [1_000_000.0]
    p = RAGPipeline(location, clock=lambda: now[0])
    calls = []
    real = p._compute
    p._compute = lambda *a: calls.append(1) or real(*a)  # type: ignore[method-assign]
    first = p.retrieve("how does blast work", "chan:1")
    now[0] += 299
    again = p.retrieve("how does blast work", "chan:1")
    assert len(calls) == 1 and again.context_id == first.context_id
    assert again.query_id != first.query_id
    p.retrieve("how does blast work", "chan:2")  # another context key: its own entry
    assert len(calls) == 2
    now[0] += 2
    p.retrieve("how does blast work", "chan:1")  # 301 s after: expired
    assert len(calls) == 3
    p.collection.close()


def test_cache_is_invalidated_by_an_ingest(store_location):
    now = [5_000.0]
    p = RAGPipeline(store_location, clock=lambda: now[0])
    meta = {"source": "FAQ", "doc_type": "faq", "last_update_date": "2025-01-01"}
    p.ingest([RuleDocument("faq-1", "faq-1.md", "# FAQ\n\nDashing costs a Spent marker.", meta)])
    first = p.retrieve("does dashing cost anything", "k", min_relevance=0.0)
    p.ingest([RuleDocument("faq-2", "faq-2.md", "# FAQ 2\n\nDashing is free on turn one.", meta)])
    second = p.retrieve("does dashing cost anything", "k", min_relevance=0.0)
    assert second.context_id != first.context_id
    assert {c.text for c in second.document_chunks} > {c.text for c in first.document_chunks}
    p.collection.close()


def test_cache_is_shared_across_processes(tmp_path):
    loc = str(tmp_path / "store")
    shutil.copytree(BOOK, tmp_path / "book")
    script = ("import sys, json; from ragd.contracts import RAGPipeline; "
              "p = RAGPipeline(sys.argv[1]); "
              "p.ingest_paths([sys.argv[2]]) if sys.argv[3] == 'ingest' else None; "
              "real = p._compute; calls = []; "
              "p._compute = lambda *a: calls.append(1) or real(*a); "
              "c = p.retrieve('how does blast work', 'chan:9'); "
              "print(json.dumps({'id': str(c.context_id), 'computed': len(calls)}))")
    runs = [json.loads(subprocess.run([sys.executable, "-c", script, loc,
                                       str(tmp_path / "book"), mode], capture_output=True,
                                      text=True, check=True).stdout)
            for mode in ("ingest", "search")]
    assert runs[0]["computed"] == 1 and runs[1]["computed"] == 0
    assert runs[0]["id"] == runs[1]["id"]


def test_a_slow_retrieval_raises_timeout(location, tmp_path):
    fast = tmp_path / "fast.toml"
    fast.write_text('name = "rules"\nextends = "rules"\n[retrieval]\ntimeout_seconds = 0.2\n'
                    "cache_ttl_seconds = 0\n")
    p = RAGPipeline(location, profile=str(fast))
    store = p.collection.store
    real = store.snapshot

    @contextlib.contextmanager
    def slow(*args, **kwargs):
        # every search reads through a snapshot (a patched store.vector_search was never
        # called: the test passed only while the first retrieval was slow anyway)
        time.sleep(1.0)
        with real(*args, **kwargs) as snap:
            yield snap

    store.snapshot = slow  # type: ignore[method-assign]
    started = time.monotonic()
    with pytest.raises(RetrievalTimeoutError, match="longer than 0.2 s"):
        p.retrieve("Barricade rules", "k")
    assert time.monotonic() - started < 0.9
    time.sleep(1.2)  # let the abandoned worker finish before the store closes
    p.collection.close()


def test_an_unreachable_store_raises_vector_db_unavailable(tmp_path, caplog):
    with pytest.raises(VectorDBUnavailableError):
        RAGPipeline("postgresql://ragd@127.0.0.1:1/nothing?connect_timeout=2")
    garbage = tmp_path / "broken.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    with caplog.at_level("ERROR"):
        with pytest.raises(VectorDBUnavailableError, match="broken.sqlite"):
            RAGPipeline(str(garbage))
    assert any(r.levelname == "ERROR" for r in caplog.records)


def test_a_store_lost_during_retrieval_raises_vector_db_unavailable(location):
    p = RAGPipeline(location)

    def lost(*args, **kwargs):
        raise StoreError("connection lost")

    p.collection.store.snapshot = lost  # type: ignore[method-assign]  (every search's reads)
    with pytest.raises(VectorDBUnavailableError, match="connection lost"):
        p.retrieve("a question nobody asked before", "k")
    p.collection.close()


def test_every_rejected_document_is_listed_and_the_job_goes_on(store_location):
    p = RAGPipeline(store_location)
    result = p.ingest_paths([str(BAD)])
    assert isinstance(result, IngestionResult)
    failed = {Path(e).name for e in result.errors}
    assert failed == {"no-front-matter.md", "bad-doc-type.md", "bad-date.md",
                      "missing-source.md"}
    assert result.documents_failed == 4 and result.documents_processed == 2
    warnings = " ".join(result.warnings)
    assert "flat-long.md: no headings in a document that must be split" in warnings
    assert "skipped-levels.md: line" in warnings and "skips from H1 to H4" in warnings
    stored = {d.doc_id for d in p.collection.store.list_documents(p.collection.name)}
    assert stored == {"flat-long.md", "skipped-levels.md"}
    p.collection.close()


def test_an_embedding_failure_is_retried_then_the_document_skipped(store_location):
    p = RAGPipeline(store_location)
    embedder = p.collection.embedder
    real = embedder.embed_documents
    tries = {"bad": 0}

    def flaky(texts):
        if any("UNEMBEDDABLE" in t for t in texts):
            tries["bad"] += 1
            from ragd.errors import EmbedderError
            raise EmbedderError("endpoint said 500")
        return real(texts)

    embedder.embed_documents = flaky  # type: ignore[method-assign]
    meta = {"source": "x", "doc_type": "faq", "last_update_date": "2025-01-01"}
    result = p.ingest([RuleDocument("good", "good.md", "# Good\n\nFine text.", meta),
                       RuleDocument("bad", "bad.md", "# Bad\n\nUNEMBEDDABLE text.", meta)])
    embedder.embed_documents = real  # type: ignore[method-assign]
    assert result.errors == ["bad.md"] and result.documents_processed == 1
    assert tries["bad"] == 1 + 3  # the batch, then three tries of the document alone
    assert [d.doc_id for d in p.collection.store.list_documents(p.collection.name)] == ["good"]
    p.collection.close()


def test_a_store_write_failure_aborts_the_job(store_location):
    p = RAGPipeline(store_location)
    store = p.collection.store

    def broken(*args, **kwargs):
        raise StoreError("disk full")

    store.upsert_document = broken  # type: ignore[method-assign]
    meta = {"source": "x", "doc_type": "faq", "last_update_date": "2025-01-01"}
    with pytest.raises(VectorDBWriteError, match="disk full"):
        p.ingest([RuleDocument("a", "a.md", "# A\n\nText.", meta)])
    p.collection.close()
