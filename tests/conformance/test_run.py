"""The conformance suite passes on every backend, and fails, readably, when a rule changes."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

import ragd.chunking.canonical as canonical
import ragd.chunking.sentences as sentences
import ragd.retrieval.fusion as fusion
from ragd.collection import open_collection
from ragd.conformance import SPEC_VERSION, default_suite_dir, load_suite, run_suite
from ragd.conformance.suite import GOLDEN_KINDS
from ragd.embedding.toy import ToyEmbedder
from ragd.ingest.index import index
from ragd.stores import open_store
from ragd.types import Chunk


@pytest.fixture(scope="module")
def suite():
    return load_suite()


def _failed(report) -> dict:
    return {r.name: r for r in report.results if not r.ok}


def test_suite_passes_on_each_backend(suite, store_location):
    report = run_suite(suite, store_location)
    assert report.ok, "\n".join(f"{r.name}: {r.message}\n" + "\n".join(r.diff())
                                for r in report.failed)
    assert report.backend in ("sqlite", "postgres")
    names = {r.name for r in report.results}
    assert {"ingest/two-fresh-stores", "ingest/reingest-unchanged",
            "retrieval/hybrid-rrf-tie", "chunking/segments-overlap"} <= names
    assert len(names) == len(report.results)  # every case reported once


def test_default_run_uses_temporary_sqlite_stores(suite):
    report = run_suite(suite)
    assert report.ok and report.backend == "sqlite"
    assert "temporary" in report.store


def test_bundled_goldens_are_pinned_to_this_spec_and_cover_every_case(suite):
    for kind in GOLDEN_KINDS:
        data = json.loads((default_suite_dir() / "goldens" / f"{kind}.json").read_text())
        assert data["spec_version"] == SPEC_VERSION
    for case in suite.cases:
        assert case.id in suite.goldens[case.kind], case.name
        assert case.description, f"{case.name} needs a description"
    assert set(suite.goldens["ingest"]) == {d.doc_id for d in suite.documents}


def test_suite_has_the_cases_the_spec_asks_for(suite):
    retrieval = {c.id: c.spec for c in suite.cases if c.kind == "retrieval"}
    modes = {spec["plan"].get("mode", "hybrid") for spec in retrieval.values()}
    assert modes == {"vector", "lexical", "hybrid"}
    filters = {key for spec in retrieval.values() for key in spec["plan"]
               if key in ("tags_any", "tags_all", "metadata")}
    assert filters == {"tags_any", "tags_all", "metadata"}
    chunking = [c.spec for c in suite.cases if c.kind == "chunking"]
    assert any("segments" in s and s["policy"]["overlap_tokens"] for s in chunking)
    assert any("text" in s and s["policy"]["overlap_tokens"] for s in chunking)
    # exact ties with pinned scores exist, in retrieval and in fusion
    golden = suite.goldens["retrieval"]["hybrid-rrf-tie"]["results"]
    assert golden[0]["score"] == golden[1]["score"]


def test_changing_the_overlap_rule_fails_with_a_readable_diff(suite, monkeypatch):
    monkeypatch.setattr(canonical, "_last_words", lambda text, start, end, n: [])
    report = run_suite(suite)
    failed = _failed(report)
    assert not report.ok
    assert {"chunking/text-overlap", "chunking/segments-overlap", "chunking/tiny-t3-o1-c40",
            "ingest/tie-twin", "ingest/radio-transcript"} <= set(failed)
    assert "chunking/text-paragraphs" not in failed
    diff = "\n".join(failed["chunking/text-overlap"].diff())
    assert diff.startswith("--- expected (golden)\n+++ actual")
    assert ("-    | Boats left the harbor. Gulls followed the boats out past the long stone wall."
            in diff)
    assert "+    | Gulls followed the boats out past the long stone wall." in diff


def test_changing_the_sentence_splitter_fails_naming_the_case(suite, monkeypatch):
    monkeypatch.setattr(sentences, "_ABBREVIATIONS", frozenset())
    failed = _failed(run_suite(suite))
    assert "chunking/text-sentence-rules" in failed
    diff = failed["chunking/text-sentence-rules"].diff()
    # "Dr." now ends a sentence: it becomes a unit (and, at target 1, a chunk) of its own,
    # and every later unit index moves by one.
    assert "-    | Dr. Smith signed the U.S. form." in diff
    assert "+    | Dr." in diff and "+    | Smith signed the U.S. form." in diff
    assert '+    {"metadata":{"overlap_words":0,"segment_end":9,"segment_start":9}}' in diff


def test_a_changed_rrf_constant_fails_on_scores(suite, monkeypatch):
    monkeypatch.setattr(fusion, "DEFAULT_RRF_K", 61)
    failed = _failed(run_suite(suite))
    assert set(failed) == {"fusion/rrf-default-k"}
    assert "scores differ" in failed["fusion/rrf-default-k"].message


def test_a_changed_tie_break_fails(suite, monkeypatch):
    def reversed_ties(scored, base):
        order = sorted(scored, key=lambda key: (-scored[key], [-ord(ch) for ch in key[0]],
                                                -key[1]))
        return [replace(base[k], score=float(scored[k]), rank=i + 1)
                for i, k in enumerate(order)]

    monkeypatch.setattr(fusion, "rank_candidates", reversed_ties)
    failed = _failed(run_suite(suite))
    assert {"fusion/rrf-tie-by-doc-id", "fusion/rrf-tie-by-chunk-index",
            "retrieval/hybrid-rrf-tie"} <= set(failed)
    assert failed["retrieval/hybrid-rrf-tie"].message == "different results or order"


def test_an_engine_error_is_a_failed_case_not_a_crash(suite, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(fusion, "fuse", broken)
    monkeypatch.setattr("ragd.conformance.execute.fuse", broken)
    failed = _failed(run_suite(suite))
    assert failed["fusion/rrf-default-k"].message == "raised RuntimeError: boom"
    assert "retrieval/vector-cosine" not in failed  # vector mode does not fuse


def test_run_leaves_user_collections_alone(suite, store_location):
    store = open_store(store_location)
    coll = open_collection(store, "default", ToyEmbedder(suite.vocabulary), create=True)
    index([Chunk(doc_id="mine", chunk_index=0, text="my own red apple")], coll)
    before = [(c.name, store.stats(c.name)["chunks"]) for c in store.list_collections()]
    store.close()
    assert run_suite(suite, store_location).ok
    store = open_store(store_location)
    try:
        assert [(c.name, store.stats(c.name)["chunks"]) for c in store.list_collections()] \
            == before
        assert [c.text for c, _ in store.iter_chunks("default")] == ["my own red apple"]
    finally:
        store.close()
