"""The retrieve block: query → candidate lists (vector, lexical) → filters → fusion.

Filters are applied inside each store search, so every candidate list is
already filtered and a selective filter still yields up to ``pool`` results.
Everything one retrieval reads (hit lists, filters, pinned sections, chunk texts) comes
from one store snapshot (``Store.snapshot``): one committed state, whatever is being
written meanwhile.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Sequence

from ..collection import Collection
from ..stores import Hit, StoredChunk
from ..stores.base import Snapshot
from ..text import query_terms
from ..types import Candidate, Plan
from .fusion import FUSION, fuse
from .query import spell_out_parts, validate_query
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


def _vector_hits(query: str, plan: Plan, coll: Collection, snap: Snapshot) -> list[Hit]:
    vector = coll.embed_query(query)
    return snap.vector_search(vector, plan.pool, plan.filters)


def _read(query: str, plan: Plan) -> str:
    """The query validated, its parts' abbreviations spelled out when the plan says so."""
    text = validate_query(query)
    return spell_out_parts(text) if plan.spell_parts else text


def hit_lists(query: str, plan: Plan, coll: Collection,
              snap: Snapshot | None = None) -> dict[str, list[Hit]]:
    """The store's filtered hit lists (keys and scores) the plan's mode asks for, best first,
    read from ``snap`` (a snapshot of their own when it is None).

    In hybrid mode the vector half (query embedding and the matrix product, both
    outside the GIL) runs on a worker thread while this one does the lexical half.
    """
    query = _read(query, plan)
    pool = _pool() if plan.mode == "hybrid" else None
    if snap is None:
        with coll.store.snapshot(coll.name, parallel=pool is not None) as snap:
            return hit_lists(query, plan, coll, snap)
    hits: dict[str, list[Hit]] = {}
    pending: Future | None = (pool.submit(_vector_hits, query, plan, coll, snap)
                              if pool else None)
    try:
        if plan.mode in ("vector", "hybrid") and pending is None:
            hits["vector"] = _vector_hits(query, plan, coll, snap)
        if plan.mode in ("lexical", "hybrid"):
            hits["lexical"] = snap.lexical_search(query_terms(query), plan.pool, plan.filters)
    except BaseException:
        if pending is not None:
            pending.exception()  # never leave the worker using the store after we return
        raise
    if pending is not None:
        hits = {"vector": pending.result(), **hits}  # re-raises the worker's error here
    return hits


def candidate_lists(query: str, plan: Plan, coll: Collection) -> dict[str, list[Candidate]]:
    """The filtered candidate lists the plan's mode asks for, each best first, with their
    chunks' content (all read from one snapshot)."""
    parallel = plan.mode == "hybrid" and _pool() is not None
    with coll.store.snapshot(coll.name, parallel=parallel) as snap:
        hits = hit_lists(query, plan, coll, snap)
        keys = [h.key for lst in hits.values() for h in lst]
        chunks = snap.get_chunks(keys) if keys else {}
    return {name: _candidates(lst, chunks, name) for name, lst in hits.items()}


def _skeletons(hits: Sequence[Hit], source: str) -> list[Candidate]:
    """Candidates carrying only key, scores and ranks (no content yet: ``chunk_id`` empty)."""
    return [Candidate(doc_id=h.doc_id, chunk_index=h.chunk_index, text="", score=h.score,
                      rank=rank, **{f"{source}_score": h.score, f"{source}_rank": rank})
            for rank, h in enumerate(hits, start=1)]


def _fetch(snap: Snapshot, keys: Sequence[tuple[str, int]]) -> list[Candidate]:
    """Candidates with content (score 0, no list ranks) for ``keys`` that exist."""
    chunks = snap.get_chunks(keys) if keys else {}
    return _candidates([Hit(k[0], k[1], 0.0) for k in keys if k in chunks], chunks, "")


def _hydrate(ranked: Sequence[Candidate], snap: Snapshot) -> list[Candidate]:
    """``ranked`` with every skeleton's content filled in, scores and ranks kept (from the
    snapshot the hits came from, so every key is there; one that is not is dropped and the
    ranks renumbered)."""
    full = {c.key: c for c in _fetch(snap, [c.key for c in ranked if not c.chunk_id])}
    out: list[Candidate] = []
    for cand in ranked:
        if not cand.chunk_id:
            if cand.key not in full:
                continue
            cand = full[cand.key].scored_as(cand)
        out.append(cand if cand.rank == len(out) + 1 else cand.evolve(rank=len(out) + 1))
    return out


def retrieve(query: str, plan: Plan | None, coll: Collection) -> list[Candidate]:
    """Ranked candidates for ``query`` from ``coll`` (a collection handle) under ``plan``.

    Fusion and section pinning work on keys and scores; only the final ``k``
    chunks are read from the coll, in the snapshot the searches read. Without a plan, the
    collection's profile plans.
    """
    plan = plan or coll.plan
    if plan.mode == "hybrid":
        FUSION.get(plan.fusion)  # an unknown method fails before any search
    query = _read(query, plan)
    parallel = plan.mode == "hybrid" and _pool() is not None
    with coll.store.snapshot(coll.name, parallel=parallel) as snap:
        lists = {name: _skeletons(hits, name)
                 for name, hits in hit_lists(query, plan, coll, snap).items()}
        if plan.mode == "hybrid":
            params = ({"k": plan.rrf_k} if plan.fusion == "rrf"
                      else {"weights": dict(plan.weights)})
            ranked = fuse(lists, plan.fusion, params)
        else:
            ranked = lists[plan.mode]
        if plan.scheme:
            ranked = pin_sections(query, ranked, plan, snap, lambda keys: _fetch(snap, keys))
        return _hydrate(ranked[:plan.k], snap)
