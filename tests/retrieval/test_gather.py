"""The evidence an answer starts from: expansion, merge by chunk, scope, threshold with the
gated fallback, MMR (settings as a profile holds them)."""

from __future__ import annotations

import pytest

from ragd import Document
from ragd.errors import UsageError
from ragd.ingest.pipeline import ingest_documents
from ragd.retrieval.gather import (admit, complete, expand, gather, merge, mmr_relevance,
                                   name_matches, named_values, promote, scope_values)
from ragd.retrieval.mmr import mmr
from ragd.types import Candidate


def test_expansion_adds_a_variant_with_the_missing_terms():
    rules = {"continuous processing": ["continuous manufacturing", "ICH Q13"]}
    assert expand("What about continuous processing?", rules) == [
        "What about continuous processing?",
        "What about continuous processing? continuous manufacturing ICH Q13"]
    assert expand("continuous processing under ICH Q13", rules) == [
        "continuous processing under ICH Q13",
        "continuous processing under ICH Q13 continuous manufacturing"]
    assert expand("batch processing", rules) == ["batch processing"]


def test_merge_keeps_one_per_chunk_with_the_best_score_and_cosine():
    a = Candidate(doc_id="x.pdf", chunk_index=1, text="t", score=0.02, vector_score=0.5)
    b = Candidate(doc_id="x.pdf", chunk_index=1, text="t", score=0.03, vector_score=0.4)
    c = Candidate(doc_id="y.pdf", chunk_index=0, text="u", score=0.025)
    merged = merge([[a, c], [b]])
    assert [(m.doc_id, m.score, m.vector_score, m.rank) for m in merged] == [
        ("x.pdf", 0.03, 0.5, 1), ("y.pdf", 0.025, None, 2)]


def test_scopes_map_to_values_and_an_unknown_one_is_refused():
    settings = {"field": "authority", "default": "MIXED",
                "values": {"MIXED": [], "FDA": ["FDA"], "EMA": ["EMA"]}}
    assert scope_values(None, settings) == []
    assert scope_values("fda", settings) == ["FDA"]
    with pytest.raises(UsageError, match="unknown scope 'NASA'; known: MIXED, FDA, EMA"):
        scope_values("NASA", settings)


def test_the_fallback_name_gate():
    hints = {"electronic signature": ["Part-11"]}
    assert name_matches("What is an electronic signature?", "21-CFR-Part-11.pdf", hints)
    assert name_matches("What does ICH Q13 say?", "ICH_Q13_Step4_Guideline.pdf", {})
    assert name_matches("annex 15 qualification", "2015-10_annex15.pdf", {})
    assert not name_matches("How do I bake bread?", "Q9.pdf", hints)


def test_mmr_reads_the_unreranked_tail_below_the_reranked_head():
    """A reranked head holds a model's logits (here all negative); the tail still holds
    fused scores (~0.02). Read as they stand, the tail would outrank the whole head."""
    head = [Candidate(doc_id=f"h{i}", chunk_index=0, text=w, score=s)
            for i, (w, s) in enumerate([("alpha", -0.5), ("beta", -1.0), ("gamma", -3.0)])]
    tail = [Candidate(doc_id=f"t{i}", chunk_index=0, text=w, score=s)
            for i, (w, s) in enumerate([("delta", 0.03), ("omega", 0.02)])]
    ranked = head + tail
    relevance = mmr_relevance(ranked, 3)
    assert relevance == [-0.5, -1.0, -3.0, -3.0, -3.0]
    picked = [c.doc_id for c in mmr(ranked, 3, 0.6, relevance=relevance)]
    assert picked == ["h0", "h1", "h2"]
    # read on the scores alone, the tail takes the first places: the inconsistency fixed
    assert [c.doc_id for c in mmr(ranked, 3, 0.6)][:2] == ["t0", "t1"]
    # no reranked head (or nothing below it): the scores as they are
    assert mmr_relevance(ranked, 0) == [c.score for c in ranked]
    assert mmr_relevance(ranked, 5) == [c.score for c in ranked]


def test_promote_moves_wanted_passages_into_the_heads_last_places():
    ranked = [Candidate(doc_id=f"d{i}", chunk_index=0, text="glossary" if i in (5, 7, 8) else "t",
                        score=1.0 - i / 10) for i in range(10)]
    wanted = lambda c: c.text == "glossary"  # noqa: E731
    moved = promote(ranked, 4, wanted, 2)
    # d5 and d7 take the head's last two places; d2 and d3 follow them; d8 stays below
    assert [c.doc_id for c in moved] == ["d0", "d1", "d5", "d7", "d2", "d3", "d4", "d6",
                                         "d8", "d9"]
    assert sorted(c.key for c in moved) == sorted(c.key for c in ranked)
    # nothing wanted below the head, a zero limit or a head of everything: unchanged
    assert promote(ranked, 9, wanted, 2) == ranked
    assert promote(ranked, 4, wanted, 0) == ranked
    assert promote(ranked, 4, lambda c: False, 2) == ranked


def test_complete_brings_what_the_selection_lacks_in_place_of_what_supplies_nothing():
    """A comparison asks two terms: a selection defining one takes a passage defining the
    other, in place of its last passage that defines neither."""
    def cand(name: str, text: str) -> Candidate:
        return Candidate(doc_id=name, chunk_index=0, text=text, score=0.5)
    supplies = {"A": {0}, "B": {1}, "AB": {0, 1}}
    what = lambda c: supplies.get(c.text, set())  # noqa: E731
    chosen = [cand("c1", "-"), cand("c2", "A"), cand("c3", "-"), cand("c4", "-")]
    read = [cand("r1", "A"), cand("r2", "B"), cand("r3", "B")]
    out = complete(chosen, read, what, 2)
    # r1 adds nothing new (A is there); r2 brings B and replaces c4; r3 adds nothing more
    assert [c.doc_id for c in out] == ["c1", "c2", "c3", "r2"]
    # nothing lacking, or no limit: unchanged
    assert complete(chosen + [cand("c5", "B")], read, what, 2)[:5] == chosen + [cand("c5", "B")]
    assert complete(chosen, read, what, 0) == chosen
    # a selection whose passages all supply something keeps them all
    full = [cand("f1", "A"), cand("f2", "A")]
    assert complete(full, read, what, 2) == full
    # both lacking: two passages, the ones supplying most first as read
    out = complete([cand("c1", "-"), cand("c2", "-"), cand("c3", "-")],
                   [cand("r0", "-"), cand("r4", "AB"), cand("r2", "B")], what, 2)
    assert [c.doc_id for c in out] == ["c1", "c2", "r4"]


def test_admit_reads_the_cosine_of_a_wanted_passage_only_the_lexical_search_found(
        toy_collection):
    ingest_documents([Document("a", "export license items"), Document("b", "export items"),
                      Document("c", "apple banana"), Document("d", "export license")],
                     toy_collection)
    q = "export license"
    def cand(doc: str, rank: int, cosine: float | None) -> Candidate:
        return Candidate(doc_id=doc, chunk_index=0, text=doc, score=1 / rank, rank=rank,
                         vector_score=cosine)
    passing = [cand("b", 1, 0.5)]
    pool = [passing[0], cand("a", 2, None), cand("c", 3, None), cand("d", 4, None)]
    wanted = lambda c: c.doc_id in ("a", "c")  # noqa: E731
    got = admit(passing, pool, wanted, 0.2, [q], toy_collection)
    # a (wanted, similar) is admitted with its cosine, in the pool's order; c (wanted, no
    # similarity) stays out; d (similar, not wanted) is not read at all
    assert [c.doc_id for c in got] == ["b", "a"]
    vector = toy_collection.embed_query(q)
    with toy_collection.store.snapshot(toy_collection.name) as snap:
        expected = snap.cosines(vector, [("a", 0)])[("a", 0)]
    assert got[1].vector_score == pytest.approx(expected) and expected > 0.2
    # the best cosine over the queries searched; nothing wanted: passing unchanged
    assert admit(passing, pool, wanted, 0.2, ["apple", q], toy_collection)[1].doc_id == "a"
    assert admit(passing, pool, lambda c: False, 0.2, [q], toy_collection) == passing
    assert [c.doc_id for c in admit(passing, pool, wanted, 0.0, ["apple banana"],
                                    toy_collection)] == ["b", "a", "c"]


def test_named_values_read_a_sources_name_as_written():
    named = {"FDA": ["FDA"], "CFR": ["FDA"], "EU": ["EMA"], "PIC/S": ["PICS"],
             "WHO": ["WHO"]}
    assert named_values("Under WHO GMP, who must certify a batch?", {"named": named}) == [
        "WHO"]
    # case kept and whole words only: the question word "who", "EUR", "WHOLE" name nothing
    assert named_values("who certifies a batch in EUR or WHOLESALE?", {"named": named}) == []
    # several sources: each value once, in the table's order; "FDA's" and "PIC/S" whole
    assert named_values("Does 21 CFR 211 or FDA's guide differ from PIC/S and the EU?",
                        {"named": named}) == ["FDA", "EMA", "PICS"]
    assert named_values("Under WHO GMP?", {}) == []


def test_a_question_naming_a_source_is_searched_within_it_first(toy_collection):
    docs = [Document("fda.pdf", "batch release certification by the quality unit",
                     metadata={"authority": "FDA"}),
            Document("who.pdf", "batch release certification by authorized persons",
                     metadata={"authority": "WHO"}),
            Document("ema.pdf", "batch release certification by a qualified person",
                     metadata={"authority": "EMA"})]
    ingest_documents(docs, toy_collection)
    settings = {"k": 5}
    scope = {"field": "authority", "default": "MIXED",
             "values": {"MIXED": [], "FDA": ["FDA"]},
             "named": {"WHO": ["WHO"], "ICH": ["ICH"]}}
    plan = toy_collection.profile.plan(k=5)
    got = gather("Under WHO GMP, batch release certification?", toy_collection, settings,
                 plan, scope)
    assert [c.doc_id for c in got.candidates] == ["who.pdf"]
    assert got.notes["named_scope"] == ["WHO"]
    # an explicit scope wins over the name
    got = gather("Under WHO GMP, batch release certification?", toy_collection, settings,
                 plan, scope, "FDA")
    assert [c.doc_id for c in got.candidates] == ["fda.pdf"]
    # a named source with nothing that passes: searched unscoped, as asked
    got = gather("Under ICH, batch release certification?", toy_collection, settings,
                 plan, scope)
    assert {c.doc_id for c in got.candidates} == {"fda.pdf", "who.pdf", "ema.pdf"}
    assert got.notes["named_scope_unmet"] == ["ICH"] and "named_scope" not in got.notes
