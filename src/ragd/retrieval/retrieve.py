"""The retrieve block: query → candidate lists (vector, lexical) → filters → fusion.

Filters are applied inside each store search, so every candidate list is
already filtered and a selective filter still yields up to ``pool`` results.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Sequence

from ..collection import Collection
from ..stores import Hit, StoredChunk
from ..text import query_terms
from ..types import Candidate, Plan
from .fusion import fuse
from .query import validate_query
from .sections import pin_sections


def _candidates(hits: Sequence[Hit], chunks: dict, source: str) -> list[Candidate]:
    out = []
    for rank, hit in enumerate(hits, start=1):
        stored: StoredChunk | None = chunks.get(hit.key)
        if stored is None:  # deleted between search and fetch
            continue
        c = stored.chunk
        out.append(Candidate(
            doc_id=c.doc_id, chunk_index=c.chunk_index, text=c.text, score=hit.score,
            rank=rank, chunk_id=c.chunk_id, context=c.context, title=stored.title, tags=c.tags,
            metadata=c.metadata, section_id=c.section_id, parent_id=c.parent_id, kind=c.kind,
            page=c.page,
            **({f"{source}_score": hit.score, f"{source}_rank": rank} if source else {})))
    return out


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor | None:
    """Worker threads for the vector half of hybrid searches (None on a single core)."""
    global _POOL
    cores = os.cpu_count() or 1
    if cores < 2:
        return None
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=min(32, 2 * cores),
                                       thread_name_prefix="ragd-vector")
        return _POOL


def _vector_hits(query: str, plan: Plan, store: Collection) -> list[Hit]:
    vector = store.embedder.embed_query(query)
    return store.store.vector_search(store.name, vector, plan.pool, plan.filters)


def candidate_lists(query: str, plan: Plan, store: Collection) -> dict[str, list[Candidate]]:
    """The filtered candidate lists the plan's mode asks for, each best first.

    In hybrid mode the vector half (query embedding and the matrix product, both
    outside the GIL) runs on a worker thread while this one does the lexical half.
    """
    query = validate_query(query)
    hits: dict[str, list[Hit]] = {}
    pool = _pool() if plan.mode == "hybrid" else None
    pending: Future | None = pool.submit(_vector_hits, query, plan, store) if pool else None
    try:
        if plan.mode in ("vector", "hybrid") and pending is None:
            hits["vector"] = _vector_hits(query, plan, store)
        if plan.mode in ("lexical", "hybrid"):
            hits["lexical"] = store.store.lexical_search(store.name, query_terms(query),
                                                         plan.pool, plan.filters)
    except BaseException:
        if pending is not None:
            pending.exception()  # never leave the worker using the store after we return
        raise
    if pending is not None:
        hits = {"vector": pending.result(), **hits}  # re-raises the worker's error here
    keys = [h.key for lst in hits.values() for h in lst]
    chunks = store.store.get_chunks(store.name, keys) if keys else {}
    return {name: _candidates(lst, chunks, name) for name, lst in hits.items()}


def _fetch(store: Collection, keys: Sequence[tuple[str, int]]) -> list[Candidate]:
    """Candidates (score 0, no list ranks) for chunks that no candidate list returned."""
    chunks = store.store.get_chunks(store.name, keys) if keys else {}
    return _candidates([Hit(k[0], k[1], 0.0) for k in keys if k in chunks], chunks, "")


def retrieve(query: str, plan: Plan | None, store: Collection) -> list[Candidate]:
    """Ranked candidates for ``query`` from ``store`` (a collection handle) under ``plan``."""
    plan = plan or Plan()
    lists = candidate_lists(query, plan, store)
    if plan.mode == "hybrid":
        params = {"k": plan.rrf_k} if plan.fusion == "rrf" else {"weights": dict(plan.weights)}
        ranked = fuse(lists, plan.fusion, params)
    else:
        ranked = [c.evolve(rank=i + 1) for i, c in enumerate(lists[plan.mode])]
    if plan.pin_sections:
        ranked = pin_sections(query, ranked, plan, store, lambda keys: _fetch(store, keys))
    return ranked[:plan.k]
