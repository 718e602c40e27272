"""retrieve_many(): the lists retrieve() gives one by one, with the query vectors batched."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pytest

import ragd
from ragd import Document, InvalidQueryError, Plan, UsageError, retrieve, retrieve_many
from ragd.collection import Collection, open_collection
from ragd.ingest.pipeline import ingest_documents

TOPICS = [
    ("ear-1", "A license is required to export items subject to the EAR to embargoed places."),
    ("ear-2", "Export of items without a licence is allowed under a license exception."),
    ("ear-3", "Deemed exports: releasing technology to a foreign national in the United States."),
    ("ipc-1", "Cheating is punished. The punishment for theft is imprisonment for three years."),
    ("ipc-2", "Criminal breach of trust by a public servant is punished more severely."),
    ("pol-1", "Audit logs must be retained for 400 days and protected against tampering."),
    ("pol-2", "Session tokens must be invalidated at logout and after 30 minutes idle."),
    ("pol-3", "Passwords are stored with a memory-hard hash such as Argon2id."),
    ("med-1", "Vitamin D supplementation did not reduce fracture risk in older adults."),
    ("med-2", "Statins lower LDL cholesterol and reduce cardiovascular events."),
    ("med-3", "Antibiotic resistance spreads through horizontal gene transfer in bacteria."),
    ("geo-1", "Glaciers retreat as summer temperatures rise; meltwater raises sea levels."),
]

QUERIES = [
    "do I need a license to export items", "license exception", "deemed export technology",
    "punishment for theft", "public servant breach of trust", "how long are audit logs kept",
    "session timeout logout", "password hashing argon2", "vitamin D fractures",
    "cholesterol statins heart", "antibiotic resistance genes", "sea level glaciers",
    "export", "tokens", "punishment for theft",  # a repeated query
    "foreign national release", "tamper-proof logs", "bacteria", "  heart disease  ",
    "climate",
]


class CountingEmbedder:
    """The bundled embedder, counting how it is called."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.single = 0
        self.batches: list[int] = []
        self.name, self.dims = inner.name, inner.dims
        self.max_input_tokens = inner.max_input_tokens

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.single += 1
        return self.inner.embed_query(text)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(len(texts))
        return self.inner.embed_queries(texts)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def spec(self) -> dict[str, Any]:
        return self.inner.spec()


@pytest.fixture(scope="module")
def location(tmp_path_factory, minilm) -> str:
    path = str(tmp_path_factory.mktemp("batch") / "store")
    coll = open_collection(path, "batch", minilm, create=True)
    ingest_documents([Document(d, t) for d, t in TOPICS], coll)
    coll.close()
    return path


def _fresh(location: str, embedder: Any) -> Collection:
    """A collection handle of its own: nothing remembered from another test."""
    return open_collection(location, "batch", embedder)


PLANS = [Plan(k=5), Plan(k=5, fusion="weighted"), Plan(k=4, mode="vector"),
         Plan(k=4, mode="lexical"), Plan(k=3, pool=6, tags_any=("nothing",)), None]


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: p.mode + "-" + p.fusion if p else "profile")
def test_same_lists_as_retrieve_one_by_one(location, minilm, plan):
    one = _fresh(location, minilm)
    expected = [retrieve(q, plan, one) for q in QUERIES]
    one.close()
    many = _fresh(location, minilm)
    got = retrieve_many(QUERIES, plan, many)
    many.close()
    assert len(got) == len(QUERIES)
    assert got == expected       # every field: keys, texts, scores, list ranks
    assert any(got) != bool(plan and plan.tags_any)  # the filter matches no chunk


def test_queries_are_embedded_in_batches(location, minilm):
    counting = CountingEmbedder(minilm)
    coll = _fresh(location, counting)
    coll.QUERY_MEMO = group = 8   # the group is the vectors the collection remembers
    results = retrieve_many(QUERIES, Plan(k=3), coll)
    # One batch per group of queries, no query embedded alone; a repeat is not embedded
    # again (QUERIES[14] is QUERIES[3], still remembered from the group before).
    groups = [[q.strip() for q in QUERIES[i:i + group]] for i in range(0, len(QUERIES), group)]
    assert counting.single == 0
    assert counting.batches == [len(set(g) - set(before))
                                for g, before in zip(groups, [[]] + groups)]
    assert counting.batches == [8, 7, 4]
    assert results[3] == results[14]  # the repeated query
    counting.batches.clear()
    lexical = retrieve_many(QUERIES, Plan(k=3, mode="lexical"), coll)
    assert counting.batches == [] and counting.single == 0 and len(lexical) == len(QUERIES)
    coll.close()


def test_an_embedder_without_batches_is_asked_per_query(location, minilm):
    class OneByOne(CountingEmbedder):
        embed_queries = None  # type: ignore[assignment]

    counting = OneByOne(minilm)
    coll = _fresh(location, counting)
    got = retrieve_many(QUERIES[:5], Plan(k=3), coll)
    assert counting.single == 5
    assert got == [retrieve(q, Plan(k=3), coll) for q in QUERIES[:5]]
    coll.close()


def test_an_invalid_query_fails_before_any_search(location, minilm):
    counting = CountingEmbedder(minilm)
    coll = _fresh(location, counting)
    with pytest.raises(InvalidQueryError, match="query 2"):
        retrieve_many(["export", "logs", "   "], Plan(k=3), coll)
    assert counting.batches == [] and counting.single == 0
    with pytest.raises(InvalidQueryError, match="list of queries"):
        retrieve_many("export", Plan(k=3), coll)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        retrieve_many(["export"], Plan(k=3, fusion="nope"), coll)
    assert retrieve_many([], Plan(k=3), coll) == []
    coll.close()


def test_exported_at_the_top_level():
    assert ragd.retrieve_many is retrieve_many and "retrieve_many" in ragd.__all__


def test_minilm_query_batches_are_its_single_query_vectors(minilm):
    texts = [q.strip() for q in QUERIES] + ["a much longer query " * 30]
    batched = minilm.embed_queries(texts)
    assert np.array_equal(batched, np.stack([minilm.embed_query(t) for t in texts]))
