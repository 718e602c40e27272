"""The CI gate of answering: a fixed subset of the EAR golden set, on the whole EAR corpus,
offline (the corpus vectors ship in tests/fixtures/ear_vectors.npz; only questions are
embedded, live, with the bundled model; the cross-encoder runs live).

The subset is every fourth question of bench/golden/ear_qa.jsonl (written before any
tuning, fixed). Gates: no sentence unsupported by its citation and every citation in the
evidence (always); answered, correct-refusal and expected-section rates a margin under
the values measured when the gate was set (a regression gate; the full set's figures and
the targets are in docs/profiles/ear.md).
"""

from __future__ import annotations

import pytest

from helpers import REPO, shared
from ragd import ingest, open_collection
from support.embed_cache import CachedEmbedder
from ragd.evaluation.qa import load_golden, metrics, run_golden

FIXTURE = REPO / "tests" / "fixtures" / "ear_vectors.npz"
GOLDEN = REPO / "bench" / "golden" / "ear_qa.jsonl"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ear(tmp_path_factory):
    from ragd.embedding.onnx import MiniLMEmbedder

    embedder = CachedEmbedder(MiniLMEmbedder(), CachedEmbedder.load_vectors(FIXTURE),
                              allow_misses=False)
    coll = open_collection(tmp_path_factory.mktemp("ear") / "store", "ear", embedder,
                           create=True, profile="ear")
    report = ingest([shared("ear-corpus", "ear-parts-736-746.v1.jsonl")], coll)
    assert (report.new, report.failed) == (3040, 0)
    embedder.allow_misses = True  # questions are embedded live
    yield coll
    coll.close()


@pytest.fixture(scope="module")
def measured(ear):
    subset = load_golden(GOLDEN)[::4]
    results = run_golden(subset, ear)
    return results, metrics(results)


def test_no_answer_sentence_is_unsupported_by_its_citation(measured):
    results, m = measured
    assert m["citation_precision"] == 1.0
    for r in results:
        ids = {e["chunk_id"] for e in r.answer["evidence"]}
        assert all(c["chunk_id"] in ids for s in r.answer["sentences"] for c in s["citations"])
        if r.answer["status"] == "refused":
            assert r.answer["answer"] == "I cannot answer that from the documents I have."
            assert not r.answer["sentences"]


def test_rates_stay_at_or_above_the_gate(measured):
    """Measured on the subset when the gate was last set (2026-11-26: the answer checks
    steps_asked, wording_asked, members_asked and the learned query variants in the
    profile): answered 21/22, correct refusal 9/9, hallucination 0/31, expected section
    20/21. Hallucination is gated at the issue's level (none); the others a question under
    what was measured."""
    _, m = measured
    assert m["answered"] >= 0.90
    assert m["correct_refusal"] >= 0.88
    assert m["hallucination"] == 0.0
    assert m["expected_section"] >= 0.90
