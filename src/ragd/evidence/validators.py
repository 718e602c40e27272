"""The generic evidence validators (any profile may list them).

* ``relevance_floor`` — thin retrieval: refuse (``low_relevance``) when the best
  relevance is under ``[evidence] floor``; drop (``below_min_relevance``) candidates
  under ``[evidence] min_relevance``.
* ``named_sections`` — a question that names sections (through the profile's citation
  scheme) accepts only chunks of those sections or their sub-paragraphs
  (``section_mismatch``), and refuses when none is left.
* ``dedupe`` — a chunk whose text repeats an accepted one's (whitespace and case aside)
  is dropped (``duplicate``).
* ``evidence_threshold`` — at least ``min_chunks`` chunks, or one with relevance of at
  least ``strong_relevance``; else refuse (``insufficient_evidence``).
* ``cross_encoder`` — the bundled cross-encoder scores whether each passage answers the
  question; refuse (``low_relevance``) when none reaches ``rerank_floor``.
"""

from __future__ import annotations

from typing import Sequence

from ..types import Candidate
from .base import VALIDATORS, Context, Step


@VALIDATORS.register("relevance_floor")
def relevance_floor(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    floor = float(ctx.settings.get("floor", 0.0))
    minimum = float(ctx.settings.get("min_relevance", 0.0))
    scored = [(c, ctx.relevance(c)) for c in candidates]
    best = max((s for _, s in scored), default=0.0)
    if not scored or best < floor:
        return Step((), tuple((c, "low_relevance") for c, _ in scored), "low_relevance")
    kept = tuple(c for c, s in scored if s >= minimum)
    return Step(kept, tuple((c, "below_min_relevance") for c, s in scored if s < minimum))


def _family(section: str | None, refs: Sequence[str]) -> bool:
    """Whether ``section`` is one of ``refs`` or a sub-paragraph or container of one
    (``EAR-740.9(a)`` and ``EAR-740.9``): the text of one holds the other's."""
    if not section:
        return False
    for ref in refs:
        if section == ref or section.startswith(ref + "(") or ref.startswith(section + "("):
            return True
    return False


@VALIDATORS.register("named_sections")
def named_sections(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    refs = ctx.scheme.find_refs(question)
    if not refs:
        return Step(tuple(candidates))
    kept = tuple(c for c in candidates if _family(c.section_id, refs))
    dropped = tuple((c, "section_mismatch") for c in candidates if not _family(c.section_id, refs))
    return Step(kept, dropped, None if kept else "section_mismatch")


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


@VALIDATORS.register("dedupe")
def dedupe(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    seen: set[str] = set()
    kept, dropped = [], []
    for c in candidates:
        key = _normal(c.text)
        if key in seen:
            dropped.append((c, "duplicate"))
        else:
            seen.add(key)
            kept.append(c)
    return Step(tuple(kept), tuple(dropped))


@VALIDATORS.register("evidence_threshold")
def evidence_threshold(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    min_chunks = int(ctx.settings.get("min_chunks", 1))
    strong = float(ctx.settings.get("strong_relevance", 1.0))
    if len(candidates) >= min_chunks or any(ctx.relevance(c) >= strong for c in candidates):
        return Step(tuple(candidates))
    return Step((), tuple((c, "insufficient_evidence") for c in candidates),
                "insufficient_evidence")


@VALIDATORS.register("cross_encoder")
def cross_encoder(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    """The bundled cross-encoder reads the question with each of the first ``rerank_top``
    passages and scores whether it answers it: refuse (``low_relevance``) when none
    reaches ``rerank_floor``; drop (``not_an_answer``) passages under ``rerank_min``; the
    scored ones come first, best first, their score the cross-encoder's."""
    from ..retrieval.rerank import rerank

    top = int(ctx.settings.get("rerank_top", 6))
    head, tail = list(candidates[:top]), list(candidates[top:])
    if not head:
        return Step(())
    scored = rerank(question, head, model=ctx.settings.get("reranker", "ms-marco-minilm"),
                    max_tokens=int(ctx.settings.get("rerank_tokens", 256)),
                    with_context=bool(ctx.settings.get("rerank_context", False)))
    floor = float(ctx.settings.get("rerank_floor", 0.0))
    minimum = float(ctx.settings.get("rerank_min", -1e9))
    if scored[0].score < floor:
        return Step((), tuple((c, "low_relevance") for c in scored), "low_relevance")
    kept = tuple(c for c in scored if c.score >= minimum)
    dropped = tuple((c, "not_an_answer") for c in scored if c.score < minimum)
    return Step(kept + tuple(tail), dropped)
