"""The legal contract (``legal-in`` profile): phases R1-R4 with the contract's types.

``LegalPipeline(collection)`` offers the contract's steps one by one over a collection
ingested under ``legal-in``: :meth:`~LegalPipeline.retrieve` (R2, RetrievedChunk with
bm25, dense and fused scores), :meth:`~LegalPipeline.validate` (R3, ValidationResult),
:meth:`~LegalPipeline.assemble` (R4, ContextResult with the EVIDENCE blocks) and
:meth:`~LegalPipeline.manifest` (R1's ``index.json``). Each step is the generic block the
answering pipeline runs (``ragd.evidence.stages``), so these results are what
``ragd ask --profile legal-in`` answers from; R3 and R4 append the contract's JSONL logs
when a ``logs`` folder is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Sequence

from ..collection import Collection, open_collection
from ..evidence import stages
from ..ingest.manifest import manifest
from ..profiles import Profile
from ..retrieval.query import validate_query
from ..retrieval.retrieve import retrieve as _retrieve
from ..types import Candidate

__all__ = ["ContextResult", "ContextStatus", "LegalPipeline", "REFUSAL_MESSAGES",
           "RetrievedChunk", "ValidationResult", "ValidationStatus"]

REFUSAL_MESSAGES: dict[str, str] = {
    "insufficient_evidence": "Not enough relevant legal material was found to answer.",
    "statute_mismatch": "The material found belongs to another statute than the one asked about.",
    "section_mismatch": "The section asked about was not found in the material retrieved.",
    "repealed_law": "The only material found is repealed, invalid or superseded law.",
    "low_confidence": "The material found does not match the question closely enough.",
    "no_valid_chunks": "Every retrieved passage was rejected.",
    "no_valid_evidence": "No passage was given to assemble.",
    "token_budget_exceeded": "No passage fits the context budget.",
    "missing_citation": "No passage carries the citation metadata an answer needs.",
    "insufficient_context": "Too few passages fit the context to answer.",
}
"""A human-readable message for each of the contract's refusal reasons."""


class ValidationStatus(str, Enum):
    PASS = "pass"
    REFUSE = "refuse"


class ContextStatus(str, Enum):
    ASSEMBLED = "assembled"
    REFUSE = "refuse"


def _source(c: Candidate) -> str:
    if c.lexical_score is not None and c.vector_score is not None:
        return "fused"
    return "bm25" if c.lexical_score is not None else "dense"


@dataclass(frozen=True)
class RetrievedChunk:
    """R2's RetrievedChunk (the contract's fields); ``candidate`` is ragd's own record of
    the same chunk, which the later steps read."""

    chunk_id: str
    text: str
    act: str | None
    section: str | None
    doc_type: str
    citation: str | None
    court: str | None
    year: int | None
    score: float
    source: str
    bm25_score: float | None
    dense_score: float | None
    candidate: Candidate = field(repr=False, compare=False)

    @classmethod
    def of(cls, c: Candidate) -> "RetrievedChunk":
        m = c.metadata
        year = m.get("year")
        return cls(c.chunk_id, c.text, m.get("act"), m.get("section"),
                   str(m.get("doc_type", "")), m.get("citation"), m.get("court"),
                   int(year) if isinstance(year, (int, float)) or str(year).isdigit() else None,
                   float(c.score), _source(c), c.lexical_score, c.vector_score, c)

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "text": self.text, "act": self.act,
                "section": self.section, "doc_type": self.doc_type, "citation": self.citation,
                "court": self.court, "year": self.year, "score": self.score,
                "source": self.source, "bm25_score": self.bm25_score,
                "dense_score": self.dense_score}


@dataclass(frozen=True)
class ValidationResult:
    """R3's ValidationResult."""

    status: ValidationStatus
    accepted_chunks: tuple[RetrievedChunk, ...]
    rejected_chunks: tuple[tuple[RetrievedChunk, str], ...]
    refusal_reason: str | None = None
    refusal_message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value,
                "accepted_chunks": [c.to_dict() for c in self.accepted_chunks],
                "rejected_chunks": [{**c.to_dict(), "reason": why}
                                    for c, why in self.rejected_chunks],
                "refusal_reason": self.refusal_reason, "refusal_message": self.refusal_message}


@dataclass(frozen=True)
class ContextResult:
    """R4's ContextResult."""

    status: ContextStatus
    context_text: str
    used_chunks: tuple[RetrievedChunk, ...]
    dropped_chunks: tuple[tuple[RetrievedChunk, str], ...]
    token_count: int
    refusal_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "context_text": self.context_text,
                "used_chunks": [c.to_dict() for c in self.used_chunks],
                "dropped_chunks": [{**c.to_dict(), "reason": why}
                                   for c, why in self.dropped_chunks],
                "token_count": self.token_count, "refusal_reason": self.refusal_reason}


class LegalPipeline:
    """The contract's phases over one collection (a handle, or a store location)."""

    def __init__(self, collection: Collection | str, *, name: str = "default",
                 profile: Profile | str | None = "legal-in", logs: Path | str | None = None,
                 embedder: Any = None) -> None:
        self.collection = (collection if isinstance(collection, Collection) else
                           open_collection(collection, name, embedder, create=True,
                                           profile=profile))
        self.logs = Path(logs) if logs is not None else None
        self._pool: dict[str, tuple[Candidate, ...]] = {}

    @property
    def profile(self) -> Profile:
        return self.collection.profile

    def retrieve(self, query: str, top_k: int | None = None) -> list[RetrievedChunk]:
        """R2: fused retrieval (the profile's weights; sections and acts the query names
        boosted, another statute's chunks demoted), best first."""
        q = validate_query(query)
        k = int(self.profile.retrieval["k"] if top_k is None else top_k)
        pool = _retrieve(q, self.profile.plan(k=max(k, int(self.profile.retrieval["gather"]))),
                         self.collection)
        self._pool[q] = tuple(pool)
        return [RetrievedChunk.of(c) for c in pool[:k]]

    def validate(self, query: str,
                 retrieved_chunks: Sequence[RetrievedChunk]) -> ValidationResult:
        """R3: the profile's validators, in order; the first refusal stops them."""
        q = validate_query(query)
        candidates = [c.candidate for c in retrieved_chunks]
        names = self.profile.data["answer"]["reason_names"]
        outcome = stages.validate(q, candidates, self._pool.get(q, tuple(candidates)),
                                  self.profile)
        stages.append_log(self.logs, self.profile.data["evidence"]["log"] or "",
                          stages.validation_record(q, len(candidates), outcome, names))
        reason = names.get(outcome.refusal, outcome.refusal) if outcome.refusal else None
        return ValidationResult(
            ValidationStatus.REFUSE if reason else ValidationStatus.PASS,
            tuple(RetrievedChunk.of(c) for c in outcome.accepted),
            tuple((RetrievedChunk.of(c), names.get(why, why)) for c, why, _ in outcome.rejected),
            reason, REFUSAL_MESSAGES.get(reason) if reason else None)

    def assemble(self, query: str,
                 validated_chunks: Sequence[RetrievedChunk]) -> ContextResult:
        """R4: ordered (exact section > statute > court > score), within the budget, never
        mid-sentence, as EVIDENCE blocks; a chunk without citation metadata dropped."""
        q = validate_query(query)
        built = stages.build_context(q, [c.candidate for c in validated_chunks], self.profile)
        stages.append_log(self.logs, self.profile.data["context"]["log"] or "",
                          stages.context_record(q, built, {}))
        a = built.assembled
        return ContextResult(
            ContextStatus.REFUSE if a.refusal else ContextStatus.ASSEMBLED, built.text,
            tuple(RetrievedChunk.of(c) for c in a.used),
            tuple((RetrievedChunk.of(c), why) for c, why in a.dropped), a.tokens, a.refusal)

    def manifest(self) -> dict[str, Any]:
        """R1's index.json of the collection (act, section, doc_type, year per chunk)."""
        return manifest(self.collection)

