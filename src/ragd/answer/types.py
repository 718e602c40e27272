"""The answer's value types: evidence, facts, cited sentences, the trace, the answer.

``Answer.to_dict()`` is the stable JSON of an answer (``ragd ask --json``, the REST
and MCP adapters): status, refusal_reason, the rendered answer (or the profile's
exact refusal text), sentences with their citations, confidence, the evidence the
citations point into, and a trace of what was retrieved, accepted and rejected.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

ANSWERED = "answered"
REFUSED = "refused"
CONFIDENCE = ("High", "Medium", "Low")


@dataclass(frozen=True)
class Evidence:
    """A passage an answer may cite: a retrieved chunk with its citation."""

    key: str                 # the fact key this passage is cited by (E1, E2, ...)
    doc_id: str
    chunk_id: str
    chunk_index: int
    text: str
    score: float             # the retrieval score (fused, or cosine under cosine relevance)
    relevance: float         # the profile's relevance (cosine clipped, or the fused score)
    section_id: str | None
    citation: str            # rendered by the profile's citation scheme
    fields: Mapping[str, Any] = field(default_factory=dict)  # the scheme's own fields
    title: str = ""
    pinned: bool = False
    context: str = ""        # the passage's heading path or citation line (not quoted)

    def citation_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "chunk_id": self.chunk_id, "section_id": self.section_id,
                "citation": self.citation, **dict(self.fields)}

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "doc_id": self.doc_id, "chunk_id": self.chunk_id,
                "section_id": self.section_id, "citation": self.citation,
                **dict(self.fields), "text": self.text, "score": round(self.score, 6),
                "relevance": round(self.relevance, 6)}


@dataclass(frozen=True)
class Rejection:
    """A candidate an evidence validator or the context assembly set aside, and why."""

    doc_id: str
    chunk_id: str
    reason: str
    stage: str

    def to_dict(self) -> dict[str, Any]:
        return {"doc_id": self.doc_id, "chunk_id": self.chunk_id, "reason": self.reason,
                "stage": self.stage}


@dataclass(frozen=True)
class Fact:
    """Phase A: a quote of the evidence with the key that cites it."""

    key: str
    quote: str
    evidence: Evidence
    score: float


@dataclass(frozen=True)
class Pick:
    """A sentence chosen from a fact, with what chose it."""

    fact: Fact
    text: str
    position: int
    coverage: float
    score: float
    similarity: float = 0.0
    # where it reads in the answer when not in its own passage's place: (fact key,
    # position) — a list's item the next passage holds, right after the item before it
    anchor: tuple[str, int] | None = None


@dataclass(frozen=True)
class Sentence:
    """An answer sentence and the evidence it cites (at least one)."""

    text: str
    citations: tuple[Evidence, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "citations": [e.citation_dict() for e in self.citations]}


@dataclass(frozen=True)
class Dropped:
    """A sentence an answer validator removed (its text, cited keys and the reason)."""

    text: str
    keys: tuple[str, ...]
    reason: str
    validator: str

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "keys": list(self.keys), "reason": self.reason,
                "validator": self.validator}


@dataclass(frozen=True)
class Trace:
    retrieved: int = 0
    accepted: int = 0
    rejected: tuple[Rejection, ...] = ()
    used: int = 0
    fallback_used: bool = False
    path: str = "extractive"
    proposed: int = 0
    dropped: tuple[Dropped, ...] = ()
    context_tokens: int = 0
    signals: Mapping[str, float] = field(default_factory=dict)
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    variants: tuple[str, ...] = ()         # the queries retrieval ran (as asked first)
    refused_by: str = ""                   # the stage or check that refused ("": answered)
    read_as: str = ""                      # the question the reranker, checks and reader
                                           # read, when not as asked (typos corrected, a
                                           # long question's ask); "": as asked

    def to_dict(self) -> dict[str, Any]:
        return {"retrieved": self.retrieved, "accepted": self.accepted,
                "rejected": [r.to_dict() for r in self.rejected], "used": self.used,
                "fallback_used": self.fallback_used, "path": self.path,
                "proposed": self.proposed, "dropped": [d.to_dict() for d in self.dropped],
                "context_tokens": self.context_tokens, "variants": list(self.variants),
                "signals": {k: round(v, 4) for k, v in self.signals.items()},
                "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
                "refused_by": self.refused_by or None, "read_as": self.read_as or None}


@dataclass(frozen=True)
class Answer:
    question: str
    profile: str
    status: str
    answer: str              # the rendered answer, or the profile's exact refusal text
    refusal_reason: str | None = None
    sentences: tuple[Sentence, ...] = ()
    confidence: str = "Low"
    evidence: tuple[Evidence, ...] = ()
    trace: Trace = field(default_factory=Trace)
    context: str = ""        # the assembled context text, in the profile's format
    facts: tuple[Evidence, ...] = ()   # phase A: every passage of the context, in order

    @property
    def answered(self) -> bool:
        return self.status == ANSWERED

    def facts_dicts(self) -> list[dict[str, Any]]:
        """Phase A facts: quote, the citation scheme's fields, chunk_id and score."""
        return [{"quote": e.text, **dict(e.fields), "chunk_id": e.chunk_id,
                 "score": round(e.relevance, 6)} for e in self.facts]

    def to_dict(self) -> dict[str, Any]:
        """The stable JSON of an answer; every citation's chunk_id is in ``evidence``."""
        return {"question": self.question, "profile": self.profile, "status": self.status,
                "refusal_reason": self.refusal_reason, "answer": self.answer,
                "sentences": [s.to_dict() for s in self.sentences],
                "confidence": self.confidence,
                "evidence": [e.to_dict() for e in self.evidence],
                "facts": self.facts_dicts(),
                "trace": self.trace.to_dict()}
