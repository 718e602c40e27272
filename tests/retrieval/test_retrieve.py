"""retrieve(): modes, per-list scores, filters, plan validation, query validation, determinism."""

from __future__ import annotations

import pytest

from ragd import Candidate, Document, InvalidQueryError, Plan, UsageError, compress, rerank, retrieve
from ragd.ingest.pipeline import ingest_documents

DOCS = [
    Document("ear-1", "A license is required to export items subject to the EAR.",
             tags=("ear",), metadata={"kind": "regulation"}),
    Document("ear-2", "Export of items without a licence is allowed under a license exception.",
             tags=("ear",), metadata={"kind": "regulation"}),
    Document("ipc-1", "Cheating is punished. The punishment for theft is imprisonment.",
             tags=("ipc",), metadata={"kind": "statute"}),
    Document("pol-1", "Audit logs must be retained for 400 days.", tags=("policy",),
             metadata={"kind": "policy"}),
    Document("pol-2", "Session tokens must be invalidated at logout.", tags=("policy",),
             metadata={"kind": "policy"}),
]


@pytest.fixture
def coll(toy_collection):
    ingest_documents(DOCS, toy_collection)
    return toy_collection


def test_hybrid_carries_both_lists_and_fuses_with_rrf(coll):
    results = retrieve("export license items", Plan(k=3), coll)
    assert [c.doc_id for c in results][:2] == ["ear-1", "ear-2"]
    top = results[0]
    assert top.vector_rank == 1 and top.lexical_rank is not None
    assert top.score == pytest.approx(1 / (60 + top.vector_rank) + 1 / (60 + top.lexical_rank))
    assert [c.rank for c in results] == [1, 2, 3]
    assert len(results) == 3


def test_single_modes(coll):
    lexical = retrieve("audit logs", Plan(mode="lexical"), coll)
    assert lexical[0].doc_id == "pol-1" and lexical[0].vector_rank is None
    assert lexical[0].score == lexical[0].lexical_score
    vector = retrieve("punishment theft", Plan(mode="vector", k=2), coll)
    assert vector[0].doc_id == "ipc-1" and vector[0].lexical_rank is None
    assert vector[0].score == pytest.approx(vector[0].vector_score)


def test_weighted_fusion_plan(coll):
    results = retrieve("session tokens logout", Plan(fusion="weighted",
                                                     weights={"vector": 1.0, "lexical": 0.0}), coll)
    assert results[0].doc_id == "pol-2"
    assert results[0].score == pytest.approx(1.0)


def test_filters_apply_before_the_cut(coll):
    only_policy = retrieve("export license", Plan(tags_any=("policy",)), coll)
    assert {c.doc_id for c in only_policy} <= {"pol-1", "pol-2"}
    statute = retrieve("punishment", Plan(metadata={"kind": "statute"}), coll)
    assert [c.doc_id for c in statute] == ["ipc-1"]
    assert retrieve("export", Plan(tags_all=("ear", "policy")), coll) == []


@pytest.mark.parametrize("query", ["", "   ", "\n\t", "x" * 2001])
def test_invalid_queries(coll, query):
    with pytest.raises(InvalidQueryError):
        retrieve(query, Plan(), coll)


def test_query_of_exactly_the_limit_is_accepted(coll):
    assert isinstance(retrieve("export " * 285, Plan(), coll), list)


@pytest.mark.parametrize("query", ['export AND "license', "NEAR(export license)", "col:export*",
                                   '"""', "-export", "export OR", "^export", "(((", "*"])
def test_fts_syntax_in_queries_is_literal(coll, query):
    results = retrieve(query, Plan(), coll)
    if "export" in query:
        assert results[0].doc_id in ("ear-1", "ear-2")


@pytest.mark.parametrize("kwargs", [{"k": 0}, {"pool": 0}, {"mode": "semantic"},
                                    {"rrf_k": -1}, {"k": 2.5}, {"scheme": 3}])
def test_bad_plans(kwargs):
    with pytest.raises(UsageError):
        Plan(**kwargs)


def test_an_unknown_fusion_method_fails_before_any_search_naming_the_known_ones(coll):
    with pytest.raises(UsageError, match="unknown fusion method 'borda'; known: rrf, weighted"):
        retrieve("export", Plan(fusion="borda"), coll)


def test_pool_is_at_least_k():
    assert Plan(k=80, pool=50).pool == 80


def test_same_store_same_ranking(coll):
    first = retrieve("export items license", Plan(), coll)
    second = retrieve("export items license", Plan(), coll)
    assert first == second


def test_rerank_with_the_bundled_cross_encoder_orders_by_answer_likelihood():
    import ragd
    from ragd.retrieval.rerank import rerank as rerank_

    assert ragd.rerank is rerank_  # the exported block is the real reranker
    cands = [Candidate(doc_id=d, chunk_index=0, text=t, score=0.5) for d, t in (
        ("a", "The weather in Paris is mild in spring."),
        ("b", "Audit logs must be retained for 400 days and then deleted."),
        ("c", "Logs of the build system are kept for a week."))]
    ranked = rerank_("How long must audit logs be kept?", cands, model="ms-marco-minilm")
    assert [c.doc_id for c in ranked] == ["b", "c", "a"]
    assert [c.rank for c in ranked] == [1, 2, 3]
    assert ranked[0].score > 0 > ranked[2].score  # logits: likely answer vs not


def test_rerank_passthrough_and_compress(coll):
    results = retrieve("audit logs retained", Plan(k=2), coll)
    assert rerank("audit logs retained", results) == results
    with pytest.raises(UsageError):
        rerank("q", results, model="cross-encoder")
    windows = compress("audit logs retained", results)
    assert windows[0]["doc_id"] == results[0].doc_id
    assert "retained" in windows[0]["text"] and "logs" in windows[0]["matched_terms"]


@pytest.mark.parametrize("mode,fusion", [("hybrid", "rrf"), ("hybrid", "weighted"),
                                         ("vector", "rrf"), ("lexical", "rrf")])
def test_results_equal_fusing_the_full_candidate_lists(coll, mode, fusion):
    """retrieve() ranks keys and reads only the final k chunks; the result must be what
    fusing the fully read candidate lists and cutting at k gives."""
    from ragd import fuse
    from ragd.retrieval import candidate_lists

    for query in ("export license items", "punishment theft", "session tokens logout",
                  "logs retained days"):
        plan = Plan(k=3, pool=5, mode=mode, fusion=fusion)
        lists = candidate_lists(query, plan, coll)
        if mode == "hybrid":
            params = {"k": plan.rrf_k} if fusion == "rrf" else {"weights": dict(plan.weights)}
            expected = fuse(lists, fusion, params)[:plan.k]
        else:
            expected = lists[mode][:plan.k]
        assert retrieve(query, plan, coll) == expected, query


def test_a_write_during_a_search_does_not_reach_it(coll, monkeypatch):
    """A search reads one snapshot: a document deleted between its hit lists and reading
    its chunks is still returned whole, as it was when the search began; the next search
    no longer sees it."""
    import importlib

    retrieve_module = importlib.import_module("ragd.retrieval.retrieve")

    real = retrieve_module.hit_lists

    def then_delete(query, plan, coll, snap):
        hits = real(query, plan, coll, snap)
        assert coll.store.delete_document(coll.name, hits["vector"][0].doc_id)
        return hits

    plan = Plan(k=3, mode="vector")
    before = retrieve("export license items", plan, coll)
    monkeypatch.setattr(retrieve_module, "hit_lists", then_delete)
    during = retrieve("export license items", plan, coll)
    assert during == before and all(c.text and c.chunk_id for c in during)
    monkeypatch.undo()
    after = retrieve("export license items", plan, coll)
    assert before[0].doc_id not in {c.doc_id for c in after}
    assert [c.rank for c in after] == list(range(1, len(after) + 1))
