"""The two backends side by side on the same data: the same vector rankings, the same lexical
matches, and (fusion being shared Python) the same fused results."""

from __future__ import annotations

import pytest

from helpers import VOCABULARY
from ragd import Plan, index, retrieve
from ragd.collection import open_collection
from ragd.embedding.toy import ToyEmbedder
from ragd.types import Chunk

pytest.importorskip("psycopg")

# Every text has four words, so length plays no part; the query's terms are nested:
# n1 has all four, n2 three, n3 two, n4 one, and no other text has any of them. BM25 and
# ts_rank_cd then agree on the order (BM25's IDF, which ts_rank_cd lacks, cannot reorder it).
TEXTS = {
    "n1": "export license item audit",
    "n2": "export license item green",
    "n3": "export license green blue",
    "n4": "export green blue red",
    "t1": "apple banana logs days",
    "t2": "banana apple days logs",     # same bag of words as t1: a vector tie
    "t3": "murder theft punishment red",
    "t4": "session token logout red",
    "t5": "session logs retained days",
    "t6": "cheating theft blue green",
}


@pytest.fixture
def pair(tmp_path, pg_location):
    toy = ToyEmbedder(VOCABULARY)
    colls = [open_collection(str(tmp_path / "sqlite"), "p", toy, create=True),
             open_collection(pg_location, "p", toy, create=True)]
    chunks = [Chunk(doc_id=d, chunk_index=0, text=t, tags=("even",) if i % 2 == 0 else ("odd",),
                    metadata={"i": i}) for i, (d, t) in enumerate(sorted(TEXTS.items()))]
    chunks.append(Chunk(doc_id="n1", chunk_index=1, text="export license item audit"))
    for coll in colls:
        index(chunks, coll)
    yield colls
    for coll in colls:
        coll.close()


def _keys(results):
    return [(c.doc_id, c.chunk_index) for c in results]


@pytest.mark.parametrize("query", ["export license item audit", "banana apple", "red",
                                   "session token logout days", "theft"])
@pytest.mark.parametrize("filters", [{}, {"tags_any": ("even",)}, {"metadata": {"i": 3}}])
def test_vector_rankings_are_identical(pair, query, filters):
    plan = Plan(k=10, mode="vector", **filters)
    sqlite, postgres = (retrieve(query, plan, c) for c in pair)
    assert _keys(sqlite) == _keys(postgres)
    for a, b in zip(sqlite, postgres):
        assert abs(a.score - b.score) < 1e-5


@pytest.mark.parametrize("query", ["export license item audit", "logs days", "red blue",
                                   "licence items", "nothing matches zebra"])
def test_lexical_matches_are_the_same_set(pair, query):
    sqlite, postgres = (retrieve(query, Plan(k=20, mode="lexical"), c) for c in pair)
    assert sorted(_keys(sqlite)) == sorted(_keys(postgres))


def test_nested_matches_rank_the_same_and_fuse_the_same(pair):
    query = "export license item audit"
    lexical = [retrieve(query, Plan(k=20, mode="lexical"), c) for c in pair]
    assert _keys(lexical[0]) == _keys(lexical[1])
    assert [k[0] for k in _keys(lexical[0])][:5] == ["n1", "n1", "n2", "n3", "n4"]
    for plan in (Plan(k=10, fusion="rrf"), Plan(k=10, fusion="rrf", tags_any=("even",)),
                 Plan(k=10, fusion="rrf", rrf_k=1)):
        sqlite, postgres = (retrieve(query, plan, c) for c in pair)
        assert _keys(sqlite) == _keys(postgres)
        assert [c.score for c in sqlite] == [c.score for c in postgres]


def test_weighted_fusion_agrees_where_lexical_scores_tie(pair):
    # One query term in equally long texts: every lexical score is equal on each backend,
    # so min-max normalisation gives both the same lists to fuse.
    plan = Plan(k=10, fusion="weighted", weights={"vector": 0.7, "lexical": 0.3})
    sqlite, postgres = (retrieve("red", plan, c) for c in pair)
    assert _keys(sqlite) == _keys(postgres)
    for a, b in zip(sqlite, postgres):
        assert abs(a.score - b.score) < 1e-6
