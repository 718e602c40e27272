"""Batch search for evaluation workloads: many queries, one result list each.

``retrieve_many(queries, plan, coll)`` returns exactly what ``[retrieve(q, plan, coll) for q
in queries]`` returns; what it shares is the work that does not depend on one query:

* the plan is resolved and checked once, and every query is validated before any search
  (an invalid one fails the call before any work, naming its position);
* query vectors are embedded in batches (``Collection.embed_queries``: one model call for a
  group of queries instead of one per query) and remembered by the collection, where
  ``retrieve`` finds them (``Collection.embed_query``), so the searches themselves are the
  same code as a single retrieval;
* every search runs on the collection's already opened store.

Each query still reads its own store snapshot, as ``retrieve`` does.
"""

from __future__ import annotations

from typing import Sequence

from ..collection import Collection
from ..errors import InvalidQueryError
from ..types import Candidate, Plan
from .fusion import FUSION
from .query import validate_query
from .retrieve import retrieve


def retrieve_many(queries: Sequence[str], plan: Plan | None,
                  coll: Collection) -> list[list[Candidate]]:
    """Ranked candidates for each of ``queries`` (in order) from ``coll`` under ``plan``
    (the collection's profile plan when None): the lists ``retrieve`` gives one by one."""
    if isinstance(queries, str):
        raise InvalidQueryError("retrieve_many takes a list of queries, not one string")
    plan = plan or coll.plan
    if plan.mode == "hybrid":
        FUSION.get(plan.fusion)  # an unknown method fails before any search
    texts: list[str] = []
    for i, query in enumerate(queries):
        try:
            texts.append(validate_query(query))
        except InvalidQueryError as exc:
            raise InvalidQueryError(f"query {i}: {exc}") from None
    embeds = plan.mode in ("vector", "hybrid")
    group = max(1, coll.QUERY_MEMO)  # the collection remembers this many query vectors
    out: list[list[Candidate]] = []
    for start in range(0, len(texts), group):
        chunk = texts[start:start + group]
        if embeds:
            coll.embed_queries(chunk)
        out.extend(retrieve(text, plan, coll) for text in chunk)
    return out
