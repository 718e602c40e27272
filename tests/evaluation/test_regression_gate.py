"""The CI quality gate: a fixed SciFact subset, shipped vectors, ragd's default retrieval.

CI must not spend minutes embedding SciFact, so the subset's chunk vectors ship in
tests/evaluation/fixtures (int8, made by bench/scifact_ci_fixture.py from a full
`ragd eval beir` run); only the queries are embedded, live, with the bundled model. The
subset is the first 100 test queries, every document they judge and the top documents of
ragd's lexical and vector modes for them (hard negatives). Gates sit a small margin under
the values measured when the fixture was made; the same code path as `ragd eval beir`
(ingest, retrieve, best chunk per document, pytrec_eval) runs here.

A build with fusion turned off (one candidate list passed through) must fail the gate.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from helpers import shared
from ragd.evaluation.beir import load_beir, write_subset
from ragd.evaluation.cache import prepare_store
from support.embed_cache import CachedEmbedder
from ragd.evaluation.gates import check_gates, failed, parse_gates
from ragd.evaluation.runner import EvalConfig, run_mode
from ragd.types import ChunkPolicy, Plan

pytest.importorskip("pytrec_eval")

FIXTURES = Path(__file__).parent / "fixtures"
SPEC = json.loads((FIXTURES / "scifact_subset.json").read_text()) if (
    FIXTURES / "scifact_subset.json").exists() else None

pytestmark = pytest.mark.skipif(SPEC is None, reason="no CI gate fixture")


@pytest.fixture(scope="module")
def subset(tmp_path_factory):
    from ragd.embedding.onnx import MiniLMEmbedder

    tmp = tmp_path_factory.mktemp("scifact-ci")
    root = write_subset(shared("scifact"), tmp / "scifact-ci", SPEC["queries"],
                        SPEC["documents"])
    dataset = load_beir(root, name="scifact-ci")
    embedder = CachedEmbedder(MiniLMEmbedder(),
                              CachedEmbedder.load_vectors(FIXTURES / "scifact_subset_vectors.npz"),
                              cache_queries=True)  # each query embedded once, live
    policy = ChunkPolicy()
    prepared = prepare_store(dataset, embedder, policy, str(tmp / "store"))
    if embedder.misses:
        warnings.warn(f"{embedder.misses} chunks were not in the shipped vectors and were "
                      "embedded now: the chunk policy changed since the fixture was made; "
                      "regenerate it with bench/scifact_ci_fixture.py")
    assert prepared.report.failed == 0
    yield dataset, prepared.collection
    prepared.collection.close()


def measure(dataset, coll, modes):
    return {m: run_mode(m, dataset, coll, Plan(), EvalConfig()).measured() for m in modes}


def test_subset_matches_the_fixture(subset):
    dataset, coll = subset
    assert dataset.query_ids == SPEC["queries"]
    assert coll.stats()["documents"] == len(SPEC["documents"])
    assert SPEC["chunk_policy"] == ChunkPolicy().as_dict(), (
        "the default chunk policy changed: regenerate the fixture (bench/scifact_ci_fixture.py)")


def test_quality_gate_holds(subset):
    dataset, coll = subset
    gates = parse_gates(SPEC["gates"])
    results = check_gates(gates, measure(dataset, coll, {g.mode for g in gates}))
    assert not failed(results), "; ".join(r.describe() for r in failed(results))


@pytest.mark.parametrize("kept", ["lexical", "vector"])
def test_gate_fails_when_fusion_is_turned_off(subset, monkeypatch, kept):
    """A deliberately broken build: hybrid 'fusion' that passes one list through unchanged."""
    import importlib

    retrieve_module = importlib.import_module("ragd.retrieval.retrieve")
    def no_fusion(lists, method="rrf", params=None):
        return [replace(c, rank=i + 1) for i, c in enumerate(lists[kept])]

    monkeypatch.setattr(retrieve_module, "fuse", no_fusion)
    dataset, coll = subset
    gates = [g for g in parse_gates(SPEC["gates"]) if g.mode == "default"]
    results = check_gates(gates, measure(dataset, coll, ["default"]))
    assert failed(results), f"fusion off ({kept} only) passed: {results[0].describe()}"
