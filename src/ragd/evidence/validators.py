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
  least ``strong_relevance`` (or of a section the question names); else refuse
  (``insufficient_evidence``).
* ``cross_encoder`` — the bundled cross-encoder scores whether each passage answers the
  question; refuse (``low_relevance``) when none reaches ``rerank_floor``.
* ``named_scope`` — a question naming a scope of the scheme (an act) keeps only passages
  of it (``scope_mismatch``).
* ``status_guard`` — passages marked repealed, invalid or superseded are dropped
  (``repealed_law``).
* ``requires`` — a question asking for a kind of document (by its words) keeps only
  passages of that kind (``wrong_kind``).
"""

from __future__ import annotations

import re
from typing import Sequence

from ..types import Candidate
from .base import VALIDATORS, Context, Step

RELEVANCE_REASONS = frozenset({"low_relevance", "below_min_relevance", "not_an_answer",
                               "insufficient_evidence"})
"""Rejections that judge how well a passage, read alone, answers; the others say what it
is (another section or scope, repealed, a duplicate, the wrong kind)."""


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
    (``X-1.2(a)`` and ``X-1.2``): the text of one holds the other's."""
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
    if len(candidates) >= min_chunks or any(c.pinned or ctx.relevance(c) >= strong
                                            for c in candidates):
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
    # the unscored rest keep their order, below every scored passage on the same scale
    low = min((c.score for c in scored), default=0.0)
    rest = tuple(c.evolve(score=low - 1.0 - i * 1e-3) for i, c in enumerate(tail))
    return Step(kept + rest, dropped)


@VALIDATORS.register("named_scope")
def named_scope(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    """A question that names a scope its citation scheme knows (an act, a part) accepts only
    passages of that scope (``scope_mismatch``), and refuses when none is left. Schemes
    without scopes pass everything."""
    find = getattr(ctx.scheme, "find_scopes", None)
    scope_of = getattr(ctx.scheme, "scope_of", None)
    scopes = find(question) if find and scope_of else []
    if not scopes:
        return Step(tuple(candidates))
    kept = tuple(c for c in candidates if scope_of(c) in scopes)
    dropped = tuple((c, "scope_mismatch") for c in candidates if scope_of(c) not in scopes)
    return Step(kept, dropped, None if kept else "scope_mismatch")


_WITHDRAWN = ("repealed", "invalid", "superseded")


@VALIDATORS.register("status_guard")
def status_guard(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    """Passages marked ``repealed``, ``invalid`` or ``superseded`` in their metadata are
    never evidence (``repealed_law``); when nothing else is left, refuse so."""
    def withdrawn(c: Candidate) -> bool:
        return any(c.metadata.get(k) is True for k in _WITHDRAWN)

    kept = tuple(c for c in candidates if not withdrawn(c))
    dropped = tuple((c, "repealed_law") for c in candidates if withdrawn(c))
    return Step(kept, dropped, "repealed_law" if candidates and not kept else None)


@VALIDATORS.register("requires")
def requires(question: str, candidates: Sequence[Candidate], ctx: Context) -> Step:
    """Questions that ask for a kind of document: each rule of ``[evidence] requires``
    (``{words = [...], field = "doc_type", value = "case_law"}``) whose words the question
    uses keeps only passages whose metadata ``field`` is ``value`` (``wrong_kind``), and
    refuses (``insufficient_evidence``) when none is left: "the latest judgment on ..."
    is not answered from a bare act."""
    text = " ".join(question.lower().split())
    kept = list(candidates)
    dropped: list[tuple[Candidate, str]] = []
    for rule in ctx.settings.get("requires", ()):
        if not any(re.search(rf"\b{re.escape(w.lower())}\b", text) for w in rule["words"]):
            continue
        field_, value = rule["field"], rule["value"]
        dropped += [(c, "wrong_kind") for c in kept if c.metadata.get(field_) != value]
        kept = [c for c in kept if c.metadata.get(field_) == value]
        if not kept:
            return Step((), tuple(dropped), "insufficient_evidence")
    return Step(tuple(kept), tuple(dropped))
