"""Evidence validators and context assembly are pure functions with reasons."""

from __future__ import annotations

import pytest

from ragd.citing import get_scheme
from ragd.errors import ConfigError
from ragd.evidence import VALIDATORS, Context, assemble, run_validators
from ragd.types import Candidate


def cand(doc: str, text: str, cos: float | None, section: str | None = None,
         index: int = 0) -> Candidate:
    return Candidate(doc_id=doc, chunk_index=index, text=text, score=cos or 0.0,
                     chunk_id=f"{doc}:{index}", vector_score=cos, section_id=section)


def ctx(scheme: str = "heading", **settings) -> Context:
    return Context(settings, get_scheme(scheme),
                   lambda c: max(0.0, min(1.0, c.vector_score or 0.0)))


def test_relevance_floor_refuses_thin_retrieval_and_drops_weak_chunks():
    cands = [cand("a", "x", 0.31), cand("b", "y", 0.12), cand("c", "z", None)]
    out = run_validators(["relevance_floor"], "q", cands, ctx(floor=0.35))
    assert out.refusal == "low_relevance" and out.refused_by == "relevance_floor"
    assert [(c.doc_id, r) for c, r, _ in out.rejected] == [("a", "low_relevance"),
                                                          ("b", "low_relevance"),
                                                          ("c", "low_relevance")]
    out = run_validators(["relevance_floor"], "q", cands, ctx(floor=0.3, min_relevance=0.2))
    assert out.refusal is None and [c.doc_id for c in out.accepted] == ["a"]
    assert {(c.doc_id, r) for c, r, _ in out.rejected} == {("b", "below_min_relevance"),
                                                          ("c", "below_min_relevance")}


def test_named_sections_keep_only_the_section_family():
    cands = [cand("EAR-740.9(a)", "t", 0.5, "EAR-740.9(a)"),
             cand("EAR-740.9#p1", "t", 0.5, "EAR-740.9"),
             cand("EAR-744.21", "t", 0.6, "EAR-744.21")]
    out = run_validators(["named_sections"], "What does 15 CFR 740.9(a) allow?", cands,
                         ctx("cfr"))
    assert [c.doc_id for c in out.accepted] == ["EAR-740.9(a)", "EAR-740.9#p1"]
    assert [(c.doc_id, r) for c, r, _ in out.rejected] == [("EAR-744.21", "section_mismatch")]
    out = run_validators(["named_sections"], "What does § 999.1 say?", cands, ctx("cfr"))
    assert out.refusal == "section_mismatch" and not out.accepted
    out = run_validators(["named_sections"], "no section named here", cands, ctx("heading"))
    assert len(out.accepted) == 3


def test_dedupe_threshold_and_everything_rejected():
    cands = [cand("a", "Same  text.", 0.5), cand("b", "same text.", 0.4), cand("c", "x", 0.8)]
    out = run_validators(["dedupe"], "q", cands, ctx())
    assert [c.doc_id for c in out.accepted] == ["a", "c"]
    weak = run_validators(["evidence_threshold"], "q", [cand("a", "t", 0.5)],
                          ctx(min_chunks=2, strong_relevance=0.75))
    assert weak.refusal == "insufficient_evidence"
    strong = run_validators(["evidence_threshold"], "q", [cand("a", "t", 0.8)],
                            ctx(min_chunks=2, strong_relevance=0.75))
    assert strong.refusal is None
    assert run_validators([], "q", [], ctx()).refusal == "no_valid_evidence"
    with pytest.raises(ConfigError, match="unknown evidence validator 'vibes'"):
        run_validators(["vibes"], "q", cands, ctx())
    assert {"relevance_floor", "named_sections", "dedupe", "evidence_threshold"} <= set(
        VALIDATORS.names())


def test_context_budget_order_and_never_mid_sentence():
    long = cand("a", "One two three four. Five six seven eight. Nine ten.", 0.9)
    short = cand("b", "Alpha beta.", 0.8)
    out = assemble([long, short], max_tokens=5, max_chunks=6)
    assert [c.doc_id for c in out.used] == ["a"] and out.texts == ("One two three four.",)
    assert [(c.doc_id, r) for c, r in out.dropped] == [("b", "token_budget_exceeded")]
    out = assemble([long, short], max_tokens=100, max_chunks=1)
    assert [(c.doc_id, r) for c, r in out.dropped] == [("b", "max_chunks")]
    out = assemble([cand("a", "Supercalifragilistic words here.", 0.9)], max_tokens=1,
                   max_chunks=3)
    assert out.refusal == "token_budget_exceeded" and not out.used
    missing = assemble([short], max_tokens=10, max_chunks=3, required=("page",),
                       fields=lambda c: {"page": None})
    assert missing.refusal == "missing_citation"
    assert assemble([], max_tokens=10, max_chunks=3).refusal == "no_valid_evidence"
