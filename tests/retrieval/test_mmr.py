"""MMR on its own: deterministic, relevance at lambda 1, diversity below it."""

from __future__ import annotations

import pytest

from ragd.retrieval.mmr import mmr, select
from ragd.types import Candidate


def cand(i, text, score):
    return Candidate(doc_id=f"d{i}", chunk_index=0, text=text, score=score, rank=i)


POOL = [cand(1, "batch records retention one year after expiry", 0.9),
        cand(2, "batch records retention one year after expiry date", 0.85),
        cand(3, "aseptic processing media fill simulation", 0.6),
        cand(4, "batch records retention one year after the expiry", 0.8),
        cand(5, "stability testing storage conditions", 0.3)]


def test_lambda_one_keeps_the_ranking():
    assert [c.doc_id for c in mmr(POOL, 5, 1.0)] == ["d1", "d2", "d4", "d3", "d5"]


def test_near_duplicates_give_way_to_diverse_passages():
    picked = [c.doc_id for c in mmr(POOL, 3, 0.6)]
    assert picked[0] == "d1" and "d3" in picked and picked.count("d2") + picked.count("d4") <= 1
    assert [c.rank for c in mmr(POOL, 3, 0.6)] == [1, 2, 3]


def test_deterministic_and_ties_keep_input_order():
    same = [cand(i, f"unrelated text number {w}", 0.5) for i, w in
            enumerate(["one", "two", "three"], start=1)]
    assert [c.doc_id for c in mmr(same, 3, 0.6)] == ["d1", "d2", "d3"]
    assert mmr(POOL, 4, 0.6) == mmr(list(POOL), 4, 0.6)


def test_select_with_a_given_similarity_and_bounds():
    sim = lambda i, j: 1.0 if {i, j} == {0, 1} else 0.0  # noqa: E731
    assert select("abc", [1.0, 0.9, 0.5], 2, 0.5, sim) == [0, 2]
    assert select("abc", [1.0, 0.9, 0.5], 0, 0.5, sim) == []
    assert select("", [], 3, 0.5, sim) == []
    with pytest.raises(ValueError):
        select("a", [1.0], 1, 1.5, sim)
