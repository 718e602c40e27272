"""Running cases through the public API: what the engine actually outputs, as plain JSON data.

Chunking cases call ``chunk``, fusion cases ``fuse``, retrieval cases ``retrieve``
on a collection the corpus was ingested into by the ingest pipeline
(``ingest_documents``: chunk, embed, store). The outputs have the form of the
goldens, so comparing and updating are the same data either way.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

import numpy as np

from ..chunking import chunk
from ..collection import Collection, open_collection
from ..errors import RagdError, UsageError
from ..ids import canonical_json, sha256_hex
from ..ingest.pipeline import IngestReport, ingest_documents
from ..retrieval import fuse, retrieve
from ..stores import Store
from ..types import Candidate, Chunk, ChunkPolicy, Plan
from .suite import Case, Suite

SCORE_DIGITS = 9
"""Scores are written to goldens rounded to this many decimals (compared with a tolerance)."""


def _policy(spec: Mapping[str, Any], where: str) -> ChunkPolicy:
    try:
        return ChunkPolicy(**spec.get("policy", {}))
    except TypeError as exc:
        raise UsageError(f"{where}: policy: {exc}") from None


def chunk_record(c: Chunk) -> dict[str, Any]:
    """Everything chunking decides about a chunk, JSON-ready."""
    return {"chunk_index": c.chunk_index, "chunk_id": c.chunk_id, "text": c.text,
            "context": c.context, "tokens": c.tokens, "start_offset": c.start_offset,
            "end_offset": c.end_offset, "tags": list(c.tags),
            "metadata": json.loads(canonical_json(dict(c.metadata)))}  # keys sorted, any backend


def run_chunking(case: Case, suite: Suite) -> dict[str, Any]:
    """``chunk(text_or_segments, policy)``; a ``counter = "model"`` policy counts WordPiece."""
    spec = case.spec
    source = spec["segments"] if "segments" in spec else spec.get("text", "")
    chunks = chunk(source, _policy(spec, case.name), doc_id=spec.get("doc_id", "doc"),
                   context=spec.get("context", ""), tags=tuple(spec.get("tags", ())),
                   metadata=spec.get("metadata"), fmt=spec.get("format"))
    return {"chunks": [chunk_record(c) for c in chunks]}


def _scored(results: Sequence[Candidate], with_scores: bool) -> list[dict[str, Any]]:
    return [{"doc_id": c.doc_id, "chunk_index": c.chunk_index,
             **({"score": round(float(c.score), SCORE_DIGITS)} if with_scores else {})}
            for c in results]


def run_fusion(case: Case) -> dict[str, Any]:
    """``fuse(lists, method, params)``; candidates named ``[doc_id, chunk_index(, score)]``."""
    lists: dict[str, list[Candidate]] = {}
    for name, items in case.spec.get("lists", {}).items():
        lists[name] = [Candidate(doc_id=str(item[0]), chunk_index=int(item[1]), text="",
                                 score=float(item[2]) if len(item) > 2 else 0.0, rank=rank)
                       for rank, item in enumerate(items, start=1)]
    fused = fuse(lists, case.spec.get("method", "rrf"), case.spec.get("params"))
    return {"results": _scored(fused, True)}


def plan_of(case: Case) -> Plan:
    """The case's plan; tags as tuples, unknown fields a usage error naming the case."""
    fields = dict(case.spec.get("plan", {}))
    for key in ("tags_any", "tags_all"):
        if key in fields:
            fields[key] = tuple(fields[key])
    try:
        return Plan(**fields)
    except TypeError as exc:
        raise UsageError(f"{case.name}: plan: {exc}") from None


def scores_defined(plan: Plan) -> bool:
    """Scores are pinned where the spec defines them exactly: vector cosine and RRF sums.

    Lexical scores differ by backend by design (BM25 against ts_rank_cd), and weighted
    fusion normalises them, so those cases pin the order only.
    """
    return plan.mode == "vector" or (plan.mode == "hybrid" and plan.fusion == "rrf")


def run_retrieval(case: Case, coll: Collection) -> dict[str, Any]:
    """``retrieve(query, plan, store)``: ordered keys, with scores where defined."""
    plan = plan_of(case)
    pinned = case.spec.get("pin_scores", scores_defined(plan))
    return {"results": _scored(retrieve(case.spec["query"], plan, coll), bool(pinned))}


# -- ingest ---------------------------------------------------------------------------------
def ingest_corpus(suite: Suite, store: Store, name: str) -> tuple[Collection, IngestReport]:
    """Create collection ``name`` (toy embedder, suite vocabulary) and ingest the corpus."""
    coll = open_collection(store, name, suite.embedder(), create=True)
    report = ingest_documents(list(suite.documents), coll, policy=suite.ingest_policy)
    if report.failed:
        reasons = "; ".join(f"{f.source}: {f.reason}" for f in report.failures)
        raise RagdError(f"ingesting the conformance corpus failed for {report.failed} "
                        f"document(s): {reasons}")
    return coll, report


def embedding_bytes(vector: np.ndarray) -> bytes:
    """A stored embedding as little-endian float32 bytes (what the stores keep)."""
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def snapshot(coll: Collection) -> tuple[dict[str, Any], dict[tuple[str, int], bytes]]:
    """What a collection holds, per document (golden form, embeddings by sha256), and the
    raw embedding bytes by storage key (doc_id, chunk_index)."""
    store, name = coll.store, coll.name
    docs: dict[str, Any] = {
        r.doc_id: {"content_hash": r.content_hash, "title": r.title, "chunks": []}
        for r in store.list_documents(name)}
    raw: dict[tuple[str, int], bytes] = {}
    for c, vector in store.iter_chunks(name):
        data = embedding_bytes(vector)
        raw[c.key] = data
        record = {**chunk_record(c), "section_id": c.section_id, "parent_id": c.parent_id,
                  "kind": c.kind, "page": c.page, "embedding_sha256": sha256_hex(data)}
        docs.setdefault(c.doc_id, {"content_hash": None, "title": None, "chunks": []})
        docs[c.doc_id]["chunks"].append(record)
    return docs, raw
