"""Metrics come from pytrec_eval; these pin how ragd feeds it (ties, cutoffs, missing queries)."""

from __future__ import annotations

import math

import pytest

from ragd.evaluation import metrics as M
from ragd.evaluation.runner import documents_from_chunks
from ragd.types import Candidate

pytest.importorskip("pytrec_eval")


def test_known_values():
    qrels = {"q1": {"a": 1}, "q2": {"x": 1, "y": 1}}
    run = {"q1": {"b": 3.0, "a": 2.0, "c": 1.0},          # relevant at rank 2
           "q2": {"x": 5.0, "z": 4.0, "y": 3.0}}          # relevant at ranks 1 and 3
    per = M.per_query(qrels, run, k=10, depth=100)
    assert per["q1"]["ndcg@10"] == pytest.approx(1 / math.log2(3))
    assert per["q1"]["mrr@10"] == pytest.approx(0.5)
    ideal = 1 + 1 / math.log2(3)
    assert per["q2"]["ndcg@10"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert per["q2"]["recall@100"] == pytest.approx(1.0)
    assert M.evaluate(qrels, run)["mrr@10"] == pytest.approx(0.75)


def test_cutoffs_apply():
    qrels = {"q": {"r": 1}}
    run = {"q": {f"d{i:02d}": 100.0 - i for i in range(12)} | {"r": 50.0}}  # r at rank 13
    per = M.per_query(qrels, run, k=10, depth=12)
    assert per["q"] == {"ndcg@10": 0.0, "recall@12": 0.0, "mrr@10": 0.0}
    assert M.per_query(qrels, run, k=10, depth=100)["q"]["recall@100"] == 1.0


def test_missing_and_empty_queries_count_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    result = M.evaluate(qrels, {"q1": {"a": 1.0}, "q2": {}}, k=10, depth=100)
    assert result["ndcg@10"] == pytest.approx(1 / 3)


def test_strict_scores_keep_rank_order_through_trec_eval():
    """trec_eval reads scores as float32 and breaks ties by doc id descending; ragd breaks them
    by doc id ascending. Stepping one float32 ulp down keeps ragd's order."""
    ranked = [("a", 0.5), ("b", 0.5), ("c", 0.5), ("d", 0.25)]
    strict = M.strict_scores(ranked)
    assert [d for d, _ in strict] == ["a", "b", "c", "d"]
    assert strict[0][1] > strict[1][1] > strict[2][1] > strict[3][1]
    assert all(abs(s - o) < 1e-6 for (_, s), (_, o) in zip(strict, ranked))
    close = M.strict_scores([("a", 0.0163934426), ("b", 0.0163934425)])  # equal as float32
    assert close[0][1] > close[1][1]
    qrels = {"q": {"a": 1}}
    assert M.evaluate(qrels, {"q": dict(strict)})["mrr@10"] == 1.0
    assert M.evaluate(qrels, {"q": dict(ranked)})["mrr@10"] == pytest.approx(1 / 3)


def _cand(doc, idx, score):
    return Candidate(doc_id=doc, chunk_index=idx, text="", score=score)


def test_chunks_to_documents_best_chunk_in_rank_order():
    cands = [_cand("d2", 1, 0.9), _cand("d1", 0, 0.8), _cand("d2", 0, 0.7), _cand("d3", 4, 0.6),
             _cand("q", 0, 0.5), _cand("d4", 0, 0.4)]
    assert documents_from_chunks(cands, 10) == [("d2", 0.9), ("d1", 0.8), ("d3", 0.6),
                                                 ("q", 0.5), ("d4", 0.4)]
    assert documents_from_chunks(cands, 2) == [("d2", 0.9), ("d1", 0.8)]
    assert [d for d, _ in documents_from_chunks(cands, 10, exclude="q")] == ["d2", "d1", "d3",
                                                                             "d4"]
