"""Fusion: exact RRF and weighted scores, merged per-list fields, deterministic ties."""

from __future__ import annotations

import pytest

from ragd.errors import UsageError
from ragd.retrieval import fuse
from ragd.types import Candidate


def cand(doc_id: str, score: float, source: str | None = None, rank: int | None = None,
         index: int = 0) -> Candidate:
    extra = {f"{source}_score": score, f"{source}_rank": rank} if source else {}
    return Candidate(doc_id=doc_id, chunk_index=index, text=doc_id, score=score, **extra)


def test_rrf_scores_are_the_sum_of_reciprocal_ranks():
    vector = [cand("a", 0.9, "vector", 1), cand("b", 0.8, "vector", 2), cand("c", 0.1, "vector", 3)]
    lexical = [cand("c", 12.0, "lexical", 1), cand("a", 5.0, "lexical", 2)]
    fused = fuse({"vector": vector, "lexical": lexical})
    scores = {c.doc_id: c.score for c in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62)
    assert [c.doc_id for c in fused] == ["a", "c", "b"]
    assert [c.rank for c in fused] == [1, 2, 3]
    a = fused[0]
    assert (a.vector_score, a.vector_rank, a.lexical_score, a.lexical_rank) == (0.9, 1, 5.0, 2)
    b = fused[2]
    assert (b.lexical_score, b.lexical_rank) == (None, None)


def test_rrf_k_parameter_and_positional_lists():
    fused = fuse([[cand("a", 1.0)], [cand("b", 1.0), cand("a", 0.5)]], "rrf", {"k": 0})
    assert [(c.doc_id, c.score) for c in fused] == [("a", 1.5), ("b", 1.0)]


def test_ties_break_by_doc_id_then_chunk_index():
    lists = [[cand("z", 1.0), cand("b", 0.9, index=1)], [cand("b", 1.0, index=0), cand("a", 0.5)]]
    fused = fuse(lists)
    # z and b#0 tie on 1/61, then a and b#1 tie on 1/62.
    assert [c.key for c in fused] == [("b", 0), ("z", 0), ("a", 0), ("b", 1)]


def test_weighted_fusion_min_max_normalises_each_list():
    vector = [cand("a", 0.9), cand("b", 0.5), cand("c", 0.1)]
    lexical = [cand("c", 30.0), cand("b", 20.0), cand("d", 10.0)]
    fused = fuse({"vector": vector, "lexical": lexical}, "weighted",
                 {"weights": {"vector": 0.7, "lexical": 0.3}})
    scores = {c.doc_id: c.score for c in fused}
    assert scores["a"] == pytest.approx(0.7 * 1.0)
    assert scores["b"] == pytest.approx(0.7 * 0.5 + 0.3 * 0.5)
    assert scores["c"] == pytest.approx(0.0 + 0.3 * 1.0)
    assert scores["d"] == pytest.approx(0.0)
    assert [c.doc_id for c in fused] == ["a", "b", "c", "d"]


def test_weighted_fusion_of_equal_scores_counts_them_fully():
    fused = fuse({"x": [cand("a", 2.0), cand("b", 2.0)]}, "weighted")
    assert [c.score for c in fused] == [1.0, 1.0]


def test_fusion_errors():
    with pytest.raises(UsageError):
        fuse([[cand("a", 1.0)]], "borda")
    with pytest.raises(UsageError):
        fuse({"vector": [cand("a", 1.0)]}, "weighted", {"weights": {"lexcal": 1.0}})
    assert fuse([[], []]) == []


def test_zscore_fusion_standardises_each_list_and_floors_the_absent():
    # vector 3, 1 -> mean 2, sd 1 -> z 1, -1; lexical 7, 3 -> mean 5, sd 2 -> z 1, -1
    vector = [cand("a", 3.0, "vector", 1), cand("b", 1.0, "vector", 2)]
    lexical = [cand("b", 7.0, "lexical", 1), cand("c", 3.0, "lexical", 2)]
    fused = fuse({"vector": vector, "lexical": lexical}, "zscore",
                 {"weights": {"vector": 0.6, "lexical": 0.4}})
    scores = {c.doc_id: c.score for c in fused}
    assert scores["a"] == pytest.approx(0.6 * 1 + 0.4 * -1)     # absent from lexical: its floor
    assert scores["b"] == pytest.approx(0.6 * -1 + 0.4 * 1)
    assert scores["c"] == pytest.approx(0.6 * -1 + 0.4 * -1)    # absent from vector: its floor
    assert [c.doc_id for c in fused] == ["a", "b", "c"]
    b = fused[1]
    assert (b.vector_score, b.vector_rank, b.lexical_score, b.lexical_rank) == (1.0, 2, 7.0, 1)


def test_zscore_uses_the_population_deviation_and_equal_scores_are_zero():
    # 4, 1, 1: mean 2, population sd sqrt(2)
    fused = fuse({"x": [cand("a", 4.0), cand("b", 1.0), cand("c", 1.0)]}, "zscore")
    assert [c.score for c in fused] == pytest.approx([2 ** 0.5, -(2 ** 0.5) / 2, -(2 ** 0.5) / 2])
    assert [c.doc_id for c in fused] == ["a", "b", "c"]
    flat = fuse({"x": [cand("a", 5.0), cand("b", 5.0)], "y": [cand("c", 2.0)]}, "zscore")
    assert [(c.doc_id, c.score) for c in flat] == [("a", 0.0), ("b", 0.0), ("c", 0.0)]


def test_zscore_is_unchanged_by_a_list_s_scale_and_shift():
    vector = [cand("a", 0.9), cand("b", 0.7), cand("c", 0.2)]
    lexical = [cand("c", 12.0), cand("d", 9.0), cand("a", 1.0)]
    scaled = [cand(c.doc_id, 100 * c.score - 40) for c in lexical]
    one = fuse({"vector": vector, "lexical": lexical}, "zscore")
    two = fuse({"vector": vector, "lexical": scaled}, "zscore")
    assert [c.doc_id for c in one] == [c.doc_id for c in two]
    assert [c.score for c in one] == pytest.approx([c.score for c in two])


def test_zscore_weights_must_name_lists():
    with pytest.raises(UsageError):
        fuse({"vector": [cand("a", 1.0)]}, "zscore", {"weights": {"lexcal": 1.0}})
