"""``answer(question, collection)``: cited sentences from the evidence, or a refusal.

retrieve → evidence validators → context assembly → facts (A) → fact filter (B) →
synthesis (C) → answer validators → render, or refuse. Every stage's settings come
from the collection's profile (``[evidence]``, ``[context]``, ``[answer]``). Without
an LLM the synthesis is extractive (quotes of the evidence); with one, its sentences are
held to the same validators. A refusal is an answer with status ``refused``, the
profile's exact refusal text and a reason from a closed set (:data:`REASONS`).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from ..analysis import analyze, name_terms
from ..collection import Collection
from ..errors import InvalidQueryError, ProfileMismatchError
from ..evidence import stages
from ..evidence.validators import RELEVANCE_REASONS
from ..profiles import Profile, load_profile
from ..retrieval.acronyms import written_out
from ..retrieval.focus import focus
from ..retrieval.gather import gather
from ..retrieval.query import spell_out_parts, validate_query
from ..retrieval.rerank import remembering
from ..retrieval.threshold import relevance as relevance_of
from ..types import Candidate
from . import audit as _audit
from .checks import answer_type, outside_terms, proper_names, satisfies, unanswered_terms
from .asks import asks as asks_of
from .extractive import defines_in, filter_facts, synthesize
from .gates import Draft, run_checks
from .render import render
from .sentences import ends_in_list
from .shapes import enumerates
from .subjects import asks_for_list, definition_subjects, undesignated
from .support import check_sentences
from .terms import QUESTION_WORDS, coverage, question_terms, weights
from .types import ANSWERED, REFUSED, Answer, Dropped, Evidence, Fact, Rejection, Sentence, Trace

REASONS = (
    "invalid_query",          # empty, or over the length limit
    "low_relevance",          # the best retrieved passage is under the profile's floor
    "section_mismatch",       # the question names a section the store does not hold
    "scope_mismatch",         # the question names a scope (an act, a part) no passage is of
    "repealed_law",           # every passage left is repealed, invalid or superseded
    "insufficient_evidence",  # fewer passages than the profile needs
    "no_valid_evidence",      # every passage was rejected
    "missing_citation",       # no passage carries the citation fields the profile needs
    "token_budget_exceeded",  # no passage fits the context budget
    "insufficient_context",   # fewer passages fit than the profile needs
    "not_in_documents",       # the question names things the documents do not contain
    "undetermined",           # no sentence of the evidence answers what was asked
    "facts_not_supplied",     # the question asks about the asker's own case, never described
    "no_supported_sentence",  # every proposed sentence failed the answer validators
    "llm_invalid_output",     # the model's reply was not usable, even after a retry
    "llm_unavailable",        # the model could not be reached
)


def _evidence(c: Candidate, key: str, profile: Profile, text: str) -> Evidence:
    scheme = profile.scheme
    kind = profile.data["evidence"]["relevance"]
    return Evidence(key=key, doc_id=c.doc_id, chunk_id=c.chunk_id, chunk_index=c.chunk_index,
                    text=text, score=float(c.score), relevance=relevance_of(c, kind),
                    section_id=c.section_id, citation=scheme.cite(c, c.title),
                    fields=scheme.fields(c, c.title), title=c.title, pinned=c.pinned,
                    context=c.context)


def _confidence(facts: Sequence[Fact], best_coverage: float, settings: dict[str, Any]) -> str:
    top = max((f.evidence.relevance for f in facts), default=0.0)
    if top >= float(settings["confidence_high"]) and best_coverage >= 0.6:
        return "High"
    if top >= float(settings["confidence_medium"]):
        return "Medium"
    return "Low"


def _similarity(coll: Collection, question: str, model: str = "",
                max_tokens: int = 192) -> Callable[[Sequence[str]], list[float]]:
    """How well texts answer the question: cosines under the collection's embedding model,
    or (``model``: a registered reranker) its score squashed to (0, 1) by a sigmoid of a
    third of it (a logit of 3 gives 0.73, of 9 gives 0.95)."""
    def similarity(texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        if model:
            from ..retrieval.rerank import RERANKERS

            scores = RERANKERS.get(model)(max_tokens).score(question, list(texts))
            return [1.0 / (1.0 + math.exp(-float(v) / 3.0)) for v in scores]
        q = coll.embed_query(question)
        return [float(v) for v in coll.embed_passages(list(texts)) @ q]
    return similarity


class _Clock:
    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = (now - self.last) * 1000
        self.last = now

    def done(self) -> dict[str, float]:
        return {**self.laps, "total": (time.perf_counter() - self.start) * 1000}


def answer(question: str, collection: Collection, profile: Profile | str | None = None,
           llm: Any = None, *, audit_dir: Path | None = None,
           on_answer: Callable[[Answer], None] | None = None,
           scope: str | None = None) -> Answer:
    """A cited answer to ``question`` from ``collection``, or a refusal.

    ``profile`` defaults to the collection's own (another profile of the same name, such
    as a calibrated copy, may replace it). ``llm`` is a ChatClient (or None for the
    offline extractive path). With ``[answer] audit = true`` the run is appended to the
    audit log under ``audit_dir``. ``scope`` names one of the profile's scopes
    (``[scope] values``): only chunks it admits are evidence.
    """
    prof = collection.profile if profile is None else load_profile(profile)
    if prof.name != collection.profile.name:
        raise ProfileMismatchError(f"collection {collection.name!r} was created with profile "
                                   f"{collection.profile.name!r}, not {prof.name!r}")
    try:
        q = validate_query(question)
    except InvalidQueryError as exc:  # an unusable question is refused, not answered
        text = question if isinstance(question, str) else repr(question)
        result = Answer(text[:2000], prof.name, REFUSED, prof.data["answer"]["refusal_text"],
                        "invalid_query", trace=Trace(signals={}, timings_ms={"total": 0.0},
                                                     refused_by="question"))
        if on_answer:
            on_answer(result)
        del exc
        return result
    spelled = spell_out_parts(q) if prof.retrieval["spell_parts"] else q
    with remembering():   # the cross-encoder's scores, shared by this answer's stages only
        result = _run(spelled, collection, prof, llm, scope, audit_dir)
    # the question as asked, in every output; the trace says how it was read
    trace = result.trace
    if spelled != q and not trace.read_as:
        trace = replace(trace, read_as=spelled)
    result = replace(result, question=q, trace=trace)
    if prof.data["answer"]["audit"] and audit_dir is not None:
        _audit.append(Path(audit_dir), result)
    if on_answer:
        on_answer(result)
    return result


def _defining() -> Callable[[str, Candidate], frozenset[int]]:
    """Which of the things the question asks to define a passage plainly defines (their
    positions in :func:`definition_subjects`; empty: none), each read as asked or without
    the words naming the passage's own document (:func:`undesignated`)."""
    subjects: dict[str, list[list[str]]] = {}
    found: dict[tuple[str, Any], frozenset[int]] = {}   # retrieval and context ask again

    def test(question: str, c: Candidate) -> frozenset[int]:
        if question not in subjects:
            subjects[question] = definition_subjects(question)
        if (question, c.key) not in found:
            names = document_names(c.doc_id, c.title)
            found[question, c.key] = frozenset(
                i for i, subject in enumerate(subjects[question])
                if defines_in(c.text, [s for s in (subject, undesignated(subject, names)) if s]))
        return found[question, c.key]
    return test


def _held_anywhere(coll: Collection, unit: str) -> bool:
    """Whether some passage of the collection holds every term of ``unit`` (a salient
    unit of the question as :func:`~ragd.answer.checks.outside_terms` names it, its index
    terms; or a word as written, which the lookup analyses): one lexical lookup per term
    (a term's stem that the lookup's analysis would change again finds nothing: the check
    then refuses, as before it)."""
    with coll.store.snapshot(coll.name) as snap:
        return all(snap.lexical_search([term], 1) for term in unit.split())


def document_names(doc_id: str, title: str) -> set[str]:
    """The terms naming a document: its id's (a file's path and name) and its title's."""
    return name_terms(doc_id) | name_terms(title)


def _defined(question: str, evidence: Sequence[Evidence]) -> list[list[str]]:
    """What the question asks to define (:func:`definition_subjects`), and each subject
    without the words naming one of the evidence's documents (:func:`undesignated`)."""
    subjects = definition_subjects(question)
    out = list(subjects)
    for e in evidence:
        names = document_names(e.doc_id, e.title)
        for subject in subjects:
            short = undesignated(subject, names)
            if short and short not in out:
                out.append(short)
    return out


def _list_follower(pool: Sequence[Candidate], kind: str, floor: float,
                   valid: Callable[[Candidate], bool]) -> Callable[[Candidate], Candidate | None]:
    """The passage that must follow one in the context: when it ends inside a list
    (:func:`~ragd.answer.sentences.ends_in_list`), its document's next chunk, if retrieved,
    passing the retrieval threshold and not barred by the evidence checks (``valid``:
    :func:`_validated`; the reranker reads each passage alone and may rank the one holding
    a list's later items far below its introduction)."""
    by_key = {c.key: c for c in pool}

    def follow(c: Candidate) -> Candidate | None:
        nxt = by_key.get((c.doc_id, c.chunk_index + 1))
        if nxt is None or not ends_in_list(c.text) or relevance_of(nxt, kind) < floor \
                or not valid(nxt):
            return None
        return nxt
    return follow


def _validated(question: str, outcome: Any, pool: Sequence[Candidate],
               prof: Profile) -> Callable[[Candidate], bool]:
    """Whether the evidence checks, bar their judgement of relevance, accept a passage
    that goes on with an accepted one: none of them says it is of another section or
    scope, repealed, a duplicate or of the wrong kind, among the candidates or judged now,
    alone. (How well it answers read alone is no bar: a list's later items, read without
    their introduction, answer nothing — the introduction's relevance is theirs.)"""
    barred = {c.key for c, why, _ in outcome.rejected if why not in RELEVANCE_REASONS}
    accepted = {c.key for c in outcome.accepted}

    def valid(c: Candidate) -> bool:
        if c.key in accepted or c.key in barred:
            return c.key in accepted
        alone = stages.validate(question, [c], pool, prof)
        return not any(why not in RELEVANCE_REASONS for _, why, _ in alone.rejected)
    return valid


def _typed(kind: str | None) -> Callable[[str], bool] | None:
    """Whether a sentence holds what a question of ``kind`` asks for: an amount, a number,
    a percentage, a duration or a date (None otherwise: "when may ..." asks for a condition
    as often as a date)."""
    if kind not in ("amount", "number", "percent", "duration", "date"):
        return None
    return lambda text: satisfies(kind, [text])


def _run(q: str, coll: Collection, prof: Profile, llm: Any, scope: str | None,
         logs: Path | None = None) -> Answer:
    ev_cfg, ctx_cfg, ans = prof.data["evidence"], prof.data["context"], prof.data["answer"]
    clock = _Clock()
    k = int(prof.retrieval["k"])
    defining = _defining() if ans["definitions"] else None
    gathered = gather(q, coll, prof.retrieval, prof.plan(k=max(k, int(prof.retrieval["gather"]))),
                      prof.data["scope"], scope, ignore_terms=frozenset(QUESTION_WORDS),
                      prefer=defining, prefer_limit=int(ans["definition_passages"]))
    pool, candidates = list(gathered.pool), list(gathered.candidates)
    clock.lap("retrieve")
    kind = ev_cfg["relevance"]
    asked = gathered.asked or q   # misspellings corrected (acronyms' long forms only searched)
    # the evidence checks read the question as corrected, as the reranker did: a
    # cross-encoder reading "electornic signture" misjudges which passage answers
    outcome = stages.validate(asked, candidates, pool, prof)
    rejected = [Rejection(c.doc_id, c.chunk_id, reason, stage)
                for c, reason, stage in outcome.rejected]
    clock.lap("validate")
    trace = dict(retrieved=len(candidates), accepted=len(outcome.accepted),
                 path="llm" if llm is not None else "extractive",
                 fallback_used=gathered.fallback_used, variants=gathered.variants,
                 read_as=asked if asked != q else "")
    phase_a: list[Evidence] = []

    names = ans["reason_names"]
    context_text = ""

    def refuse(reason: str, evidence: Sequence[Evidence] = (), by: str = "",
               **extra: Any) -> Answer:
        return Answer(q, prof.name, REFUSED, ans["refusal_text"], names.get(reason, reason), (),
                      "Low", tuple(evidence), Trace(rejected=tuple(rejected),
                                                    timings_ms=clock.done(), refused_by=by,
                                                    **trace, **extra),
                      context_text, tuple(phase_a))

    stages.append_log(logs, ev_cfg["log"],
                      stages.validation_record(q, len(candidates), outcome, names))
    if not candidates and pool:   # retrieved, but nothing passed the similarity threshold
        return refuse("low_relevance", by="retrieval threshold")
    if outcome.refusal:
        return refuse(outcome.refusal, by=f"validator {outcome.refused_by or 'all'}")
    built = stages.build_context(
        q, outcome.accepted, prof, keep=None if defining is None else
        (lambda c: defining(asked, c)), keep_limit=int(ans["definition_passages"]),
        follow=_list_follower(pool, str(prof.retrieval.get("relevance", "fused")),
                              gathered.threshold, _validated(asked, outcome, pool, prof)))
    assembled, context_text = built.assembled, built.text
    rejected += [Rejection(c.doc_id, c.chunk_id, reason, "context")
                 for c, reason in assembled.dropped]
    stages.append_log(logs, ctx_cfg["log"], stages.context_record(q, built, {}))  # R4 names
    clock.lap("assemble")
    if assembled.refusal:
        return refuse(assembled.refusal, by="context")
    evidence = [_evidence(c, f"E{i}", prof, text)
                for i, (c, text) in enumerate(zip(assembled.used, assembled.texts), start=1)]
    facts = [Fact(e.key, e.text, e, e.relevance if kind == "cosine" else e.score)
             for e in evidence]
    phase_a.extend(evidence)
    trace.update(used=len(evidence), context_tokens=assembled.tokens)

    terms = question_terms(asked)
    pool_terms = [set(analyze(f"{c.context} {c.title} {c.text}")) for c in pool]
    weight = weights(terms, pool_terms)
    signals: dict[str, float] = {"top_relevance": max((e.relevance for e in evidence),
                                                      default=0.0),
                                 "top_score": max((e.score for e in evidence), default=0.0)}
    trace["signals"] = signals
    # acronyms and codes are read after the scheme writes references canonically ("S.302"
    # is a section reference, not a code the documents lack)
    plain_q = getattr(prof.scheme, "rewrite", lambda text: text)(q)
    if prof.retrieval.get("acronym_names"):
        # an acronym the passages never write, whose long form they write out, is the
        # user's abbreviation ("a device mfr's QMS"), not a term the documents lack
        plain_q = written_out(plain_q, [f"{c.context}\n{c.text}" for c in pool])
    # the terms a long question asks about are its ask's, as the models read it (its story's
    # "new LIMS" is no term the answer must hold); as written, not spelling-corrected. What
    # no document holds at all refuses from anywhere in the question (outside_terms).
    asked_q = focus(plain_q, int(prof.retrieval.get("focus_words", 0)),
                    frozenset(prof.retrieval.get("focus_sources", ())))
    # a document's name is the documents' too: "WHO TRS 1010" names trs1010-annex10.pdf
    named = {c.doc_id: document_names(c.doc_id, c.title)
             for c in pool} if ans["outside_terms"] else {}
    if ans["outside_terms"]:
        vocabulary = set().union(*pool_terms, *named.values())
        lacking = outside_terms(plain_q, question_terms(plain_q), vocabulary)
        if lacking and asked_q != plain_q:
            # a term of a long question's story ("our new LIMS") the passages retrieved for
            # its ask lack refuses only when no passage of the collection holds it at all
            asked_lacking = set(outside_terms(asked_q, question_terms(asked_q), vocabulary))
            lacking = [u for u in lacking if u in asked_lacking
                       or not _held_anywhere(coll, u)]
        if lacking:
            return refuse("not_in_documents", evidence,
                          by=f"outside_terms: {', '.join(lacking)}")
    if ans["outside_names"]:
        # a company, product or programme the ask names that no passage of the collection
        # holds ("the warning letter to Aurobindo"): the documents never mention it, and
        # their general sentences ("warning letters ...") do not answer about it
        unnamed = [w for w in proper_names(asked_q) if not _held_anywhere(coll, w.lower())]
        if unnamed:
            return refuse("not_in_documents", evidence,
                          by=f"outside_names: {', '.join(unnamed)}")

    schema_drops: list[Dropped] = []
    llm_confidence = None
    if llm is not None:
        from .llm_path import llm_sentences

        got = llm_sentences(q, facts, llm, prof)
        if got.refusal:
            return refuse(got.refusal, evidence, by="llm", proposed=got.proposed)
        proposed, schema_drops, llm_confidence = got.sentences, got.dropped, got.confidence
        coverage_best = 1.0
    else:
        kept, _ = filter_facts(terms, facts, max_facts=int(ctx_cfg["max_chunks"]))
        picks = synthesize(terms, weight, kept, max_sentences=int(ans["max_sentences"]),
                           min_coverage=float(ans["min_coverage"]),
                           relative=float(ans["relative"]),
                           passage_relative=float(ans["passage_relative"]),
                           similarity=_similarity(coll, asked, str(ans["similarity_model"]))
                           if ans["similarity"] else None,
                           min_similarity=float(ans["min_similarity"]),
                           shortlist=int(ans["shortlist"]),
                           context_terms=bool(ans["context_terms"]),
                           fragments=bool(ans["fragments"]), follow=int(ans["follow"]),
                           similarity_weight=float(ans["similarity_weight"]),
                           define=_defined(asked, evidence) if ans["definitions"] else (),
                           typed=_typed(answer_type(asked)),
                           type_bonus=float(ans["type_bonus"]),
                           listed=enumerates if ans["lists"] and asks_for_list(asked)
                           else None,
                           # (a question asking several things: each ask read on its own)
                           asks=[(question_terms(part),
                                  _similarity(coll, part, str(ans["similarity_model"])))
                                 for part in asks_of(plain_q)] if ans["similarity"] else ())
        proposed = [Sentence(p.text, (p.fact.evidence,)) for p in picks]
        coverage_best = max((p.coverage for p in picks), default=0.0)
        signals["best_similarity"] = max((p.similarity for p in picks), default=0.0)
    clock.lap("synthesize")
    sentences, dropped = check_sentences(proposed, facts, float(ans["support_threshold"]),
                                         question_terms=terms if llm is not None else None)
    trace.update(proposed=len(proposed) + len(schema_drops),
                 dropped=tuple(schema_drops + dropped))
    if not proposed and not schema_drops:
        return refuse("undetermined", evidence, by="no sentence answers")
    if not sentences:
        return refuse("no_supported_sentence", evidence, by="support")
    said: set[str] = set()
    for s in sentences:
        said.update(analyze(s.text))
    signals["answer_coverage"] = coverage(terms, weight, said)
    if signals["answer_coverage"] < float(ans["min_answer_coverage"]):
        return refuse("undetermined", evidence, by="answer_coverage")
    kinds = ans["answer_type"]
    wanted = answer_type(q)
    if (kinds is True or (not isinstance(kinds, bool) and wanted in kinds)) and not satisfies(
            wanted, [s.text for s in sentences]):
        return refuse("undetermined", evidence, by=f"answer_type: {wanted}")
    cited_docs = {e.doc_id for s in sentences for e in s.citations}
    unanswered = unanswered_terms(
        asked_q, [" ".join((e.text, e.citation, e.context, e.title))
                  for s in sentences for e in s.citations], pool_terms,
        documents=[t for c, t in zip(pool, pool_terms) if c.doc_id in cited_docs]
        + [named[d] for d in sorted(cited_docs) if d in named],
        long_forms=gathered.notes.get("long_forms")) if ans["outside_terms"] else []
    if unanswered:
        return refuse("undetermined", evidence,
                      by=f"unanswered_terms: {', '.join(unanswered)}")
    if ans["checks"]:
        hit = run_checks(ans["checks"], Draft(
            plain_q, tuple(s.text for s in sentences),
            tuple(e.text for s in sentences for e in s.citations),
            tuple(e.text for e in evidence),
            tuple(f"{c.doc_id}\n{c.title}\n{c.context}\n{c.text}" for c in pool)))
        if hit:
            return refuse(hit[0], evidence, by=f"check {hit[1]}")
    confidence = _confidence(facts, coverage_best, ans)
    if llm_confidence is not None:  # the model's own, never above what the evidence allows
        confidence = max(confidence, llm_confidence, key=("High", "Medium", "Low").index)
    cited = {e.key for s in sentences for e in s.citations}
    used_evidence = tuple(e for e in evidence if e.key in cited)
    clock.lap("validate_answer")
    text = render(sentences, confidence, ans["style"])
    return Answer(q, prof.name, ANSWERED, text, None, tuple(sentences), confidence,
                  used_evidence, Trace(rejected=tuple(rejected), timings_ms=clock.done(),
                                       **trace), context_text, tuple(phase_a))


__all__ = ["REASONS", "answer", "Dropped"]
