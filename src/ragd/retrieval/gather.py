"""The evidence an answer starts from: retrieval run for a query's variants and scope,
merged, held to a similarity threshold (with a gated fallback), diversified by MMR.

Generic: every rule is a setting of the profile (``[retrieval]``, ``[scope]``), none is
written here.

* **Query expansion** (``retrieval.expansions``: phrase → terms): retrieval always runs
  for the query as asked; for each phrase the query contains, also for the query with
  the terms it lacks appended. Results are merged by chunk (a chunk's ``(pdf, page,
  chunk_id)`` is one chunk) keeping the best score and the best cosine.
* **Learned variants** (``retrieval.spelling``, ``retrieval.acronyms``;
  :mod:`.variants`): the query with its misspelt words corrected against the
  collection's vocabulary and its acronyms followed by the long forms the documents
  define is one more variant (expanded by the rules too), merged the same way. The
  reranker, the evidence checks and the answer's terms (``Gathered.asked``) read the query
  corrected (long forms left out: with them, the answer's terms and sentence scores moved
  off the question, measured on a set of short and misspelt questions). With
  ``retrieval.acronyms`` the other way round too: when the best retrieved texts define an
  acronym for a long form the query spells out ("continuous manufacturing (CM)"), the
  query with the acronym appended is searched as well (the passages that go on to say
  "CM" hold none of the long form's words), and ``Gathered.short_forms`` tells the answer.
* **Focus** (``retrieval.focus_words``; :mod:`.focus`): a question that long is read by the
  reranker (and, through ``Gathered.asked``, the evidence checks and the reader) as its ask
  alone; search reads all of it.
* **Scope** (``scope.values``: name → values of ``scope.field``): retrieval filtered to
  chunks whose field holds one of the scope's values (one search per value, merged);
  an empty list is no filter. Without a scope asked for, a question that names sources
  as ``scope.named`` spells them ("Under WHO GMP, ...": "WHO" → the field's ``WHO``) is
  searched within those (:func:`named_values`); when nothing there passes the threshold,
  it is searched unscoped as asked.
* **Threshold** (with ``retrieval.threshold_answers``: ``retrieval.min_relevance`` on
  ``retrieval.relevance``): the chunks at or over it pass. When none does (``fallback.only_if_empty``; else also when fewer than
  ``k`` do), the **fallback** (``fallback.min_relevance``, 0: none) is tried: it is
  accepted only when the best chunk reaches it and the best chunk's ``fallback.match_field``
  (a file name) matches the query's keywords or a doc hint of the query
  (``fallback.hints``: phrase → name fragments); then the chunks at or over it pass and
  ``fallback_used`` is set. A chunk only the lexical search found has no cosine (it was
  not among the vector search's best): with ``prefer`` (below), the ones it wants have
  their cosine read from the store and pass when it reaches the threshold (:func:`admit`).
* **Rerank** (``retrieval.rerank``: a registered reranker, ``rerank_depth``,
  ``rerank_tokens``, ``rerank_context``): the best passing chunks re-scored by the model
  (reading each chunk's context line too), best first.
* **MMR** (``retrieval.mmr``, ``mmr_lambda``): the ``k`` passing chunks picked for
  relevance (the reranker's score, else the retrieval score) and diversity; otherwise
  the ``k`` best.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from ..analysis import analyze, name_terms
from ..collection import Collection
from ..errors import UsageError
from ..types import Candidate, Plan, search_text
from .mmr import mmr
from .rerank import rerank
from .retrieve import retrieve
from .threshold import relevance as relevance_of
from .acronyms import (annotate, annotate_synonyms, short_forms as find_short_forms, spell_after,
                       used_short_forms, write_out, written_forms)
from .focus import focus
from .variants import learn

SHORT_FORM_TEXTS = 20     # best retrieved texts read for acronyms of the query's long forms


@dataclass(frozen=True)
class Gathered:
    """What retrieval gathered for an answer."""

    candidates: tuple[Candidate, ...]      # passing, at most k, best (or MMR) first
    pool: tuple[Candidate, ...]            # everything retrieved, merged, best first
    variants: tuple[str, ...]              # the query and its expansions, as searched
    fallback_used: bool = False
    threshold: float = 0.0                 # the threshold the passing chunks met
    notes: Mapping[str, Any] = field(default_factory=dict)
    asked: str = ""                        # the query with misspelt words corrected
    short_forms: Mapping[str, str] = field(default_factory=dict)  # acronym -> long form asked


def _phrase(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def expand(query: str, rules: Mapping[str, Sequence[str]]) -> list[str]:
    """The query, then one variant per rule whose phrase it contains (the rule's terms it
    lacks appended), without repeats."""
    out = [query]
    said = f" {_phrase(query)} "
    for when, terms in rules.items():
        if f" {_phrase(when)} " not in said:
            continue
        missing = [t for t in terms if f" {_phrase(t)} " not in said]
        if missing:
            variant = " ".join([query.rstrip(), *missing])
            if variant not in out:
                out.append(variant)
    return out


def scope_values(scope: str | None, settings: Mapping[str, Any]) -> list[str]:
    """The field values a scope admits ([] for no filter); UsageError for an unknown scope."""
    if scope is None or scope == "":
        scope = str(settings.get("default", "") or "")
        if not scope:
            return []
    values = settings.get("values", {}) or {}
    for name, admitted in values.items():
        if name.lower() == str(scope).lower():
            return list(admitted)
    known = ", ".join(values) or "none (the profile defines no scopes)"
    raise UsageError(f"unknown scope {scope!r}; known: {known}")


def named_values(query: str, settings: Mapping[str, Any]) -> list[str]:
    """The field values of the sources a query names (``scope.named``: a word as written,
    matched whole and case-sensitively, → values), in the table's order, each once."""
    out: list[str] = []
    for word, values in (settings.get("named", {}) or {}).items():
        if re.search(r"(?<![\w/])" + re.escape(str(word)) + r"(?![\w/])", query):
            out += [str(v) for v in values if str(v) not in out]
    return out


def merge(lists: Sequence[Sequence[Candidate]]) -> list[Candidate]:
    """Candidates of several searches, one per chunk, keeping the best score and the best
    cosine; passages a citation scheme pinned first (as each search placed them), then
    best score first, ties by (doc_id, chunk_index). One search is returned as it ranked."""
    if len(lists) == 1:
        return list(lists[0])
    best: dict[tuple[str, int], Candidate] = {}
    for lst in lists:
        for c in lst:
            old = best.get(c.key)
            if old is None:
                best[c.key] = c
                continue
            top = c if c.score > old.score else old
            cosines = [v for v in (old.vector_score, c.vector_score) if v is not None]
            best[c.key] = top.evolve(vector_score=max(cosines) if cosines else None)
    ranked = sorted(best.values(),
                    key=lambda c: (not c.pinned, -c.score, c.doc_id, c.chunk_index))
    return [c.evolve(rank=i) for i, c in enumerate(ranked, start=1)]


def name_matches(query: str, name: str, hints: Mapping[str, Sequence[str]],
                 ignore: frozenset[str] = frozenset()) -> bool:
    """Whether a file name matches the query's keywords (a content term of the query in
    the name) or one of its doc hints (a hint phrase in the query, a fragment in the name)."""
    said = f" {_phrase(query)} "
    lowered = name.lower()
    for phrase, fragments in hints.items():
        if f" {_phrase(phrase)} " in said and any(f.lower() in lowered for f in fragments):
            return True
    terms = set(analyze(query)) - ignore
    return bool(terms & name_terms(name, whole=False))


def _field(c: Candidate, name: str) -> str:
    if not name:
        return ""
    value = c.metadata.get(name)
    if value is None and name in ("doc_id", "title"):
        value = getattr(c, name)
    return str(value) if value is not None else ""


def gather(query: str, coll: Collection, settings: Mapping[str, Any], plan: Plan,
           scope: Mapping[str, Any] | None = None, scope_name: str | None = None,
           ignore_terms: frozenset[str] = frozenset(),
           prefer: Callable[[str, Candidate], Any] | None = None,
           prefer_limit: int = 2) -> Gathered:
    """Retrieve, merge, threshold (with the fallback) and select (see the module doc).

    ``settings`` is the profile's ``[retrieval]``; ``plan`` the plan each search runs
    (its ``k`` is the pool searched); ``scope`` the profile's ``[scope]``. ``prefer``
    (the corrected query, a passage) marks passages the caller wants read: a wanted one
    only the lexical search found passes a threshold on cosine by its cosine read from the
    store (:func:`admit`); up to
    ``prefer_limit`` passing ones ranked below the head (the reranked depth, else ``k``)
    take the head's last places, so the reranker reads them; and up to as many of the head
    that supply what no selected passage does (``prefer`` may return a set: which of the
    asked terms a passage defines) take the selection's last places (:func:`complete`)."""
    values = scope_values(scope_name, scope or {}) if scope else []
    key = str((scope or {}).get("field", "") or "")
    named = named_values(query, scope or {}) if key and not scope_name else []
    if named:
        within = _gather(query, coll, settings, plan, named, key, ignore_terms, prefer,
                         prefer_limit)
        if within.candidates:
            return replace(within, notes={**within.notes, "named_scope": named})
    found = _gather(query, coll, settings, plan, values, key, ignore_terms, prefer,
                    prefer_limit)
    return replace(found, notes={**found.notes, "named_scope_unmet": named}) if named else found


def _gather(query: str, coll: Collection, settings: Mapping[str, Any], plan: Plan,
            values: Sequence[str], key: str, ignore_terms: frozenset[str],
            prefer: Callable[[str, Candidate], Any] | None, prefer_limit: int) -> Gathered:
    """:func:`gather` within the field ``key``'s ``values`` (none: unscoped)."""
    k = int(settings["k"])
    rules = settings.get("expansions", {}) or {}
    variants = expand(query, rules)
    learned = learn(query, coll, settings, ignore_terms)
    if learned.changed:
        variants += [v for v in expand(learned.query, rules) if v not in variants]
    plans = ([replace(plan, metadata={**dict(plan.metadata), key: v})
              for v in values] if values and key else [plan])
    lists = [retrieve(v, p, coll) for v in variants for p in plans]
    pool = merge(lists)
    short: dict[str, str] = {}
    if settings.get("acronyms") and pool:
        short = find_short_forms(" ".join([learned.corrected, *variants]),
                                 [search_text(c.context, c.text) for c in pool[:SHORT_FORM_TEXTS]])
        # ... or the passages use without defining them, where their documents write the
        # long form out too ("CM" beside "continuous manufacturing")
        used = used_short_forms(learned.corrected,
                                [(c.doc_id, search_text(c.context, c.text))
                                 for c in pool[:SHORT_FORM_TEXTS]])
        short = {**{a: f for a, f in used.items() if f not in short.values()}, **short}
        if short:
            variant = annotate(learned.corrected, short)
            if variant == learned.corrected:     # spelt out by an expansion rule only
                variant = " ".join([learned.corrected.rstrip(), *short])
            variants.append(variant)
            lists += [retrieve(variant, p, coll) for p in plans]
            pool = merge(lists)
    written: dict[str, str] = {}
    if settings.get("acronym_names") and pool:
        # an acronym no text writes, whose long form the passages write out ("OOT": "out
        # of trend"): the user's short form, searched as the documents word it
        written = written_forms(learned.corrected,
                                [search_text(c.context, c.text) for c in pool],
                                learned.long_forms)
        spelt = write_out(learned.corrected, written)
        if spelt != learned.corrected and spelt not in variants:
            variants.append(spelt)
            lists += [retrieve(spelt, p, coll) for p in plans]
            pool = merge(lists)
    kind = settings.get("relevance", "fused")
    gated = bool(settings.get("threshold_answers", False))
    minimum = float(settings.get("min_relevance", 0.0)) if gated else 0.0
    passing = [c for c in pool if relevance_of(c, kind) >= minimum]
    fallback_used = False
    threshold = minimum
    notes: dict[str, Any] = {"passed_min": len(passing)}
    if learned.changed:
        notes.update(corrections=dict(learned.corrections), joined=dict(learned.joined),
                     long_forms=dict(learned.long_forms))
    if short:
        notes.update(short_forms=dict(short))
    fb = settings.get("fallback", {}) or {}
    fb_min = float(fb.get("min_relevance", 0.0))
    wanted = not passing if fb.get("only_if_empty", True) else len(passing) < k
    if gated and fb_min > 0 and wanted and pool:
        top = max(pool, key=lambda c: (relevance_of(c, kind), -c.rank))
        top_rel = relevance_of(top, kind)
        matched = name_matches(query, _field(top, str(fb.get("match_field", ""))),
                               fb.get("hints", {}) or {}, ignore_terms)
        notes.update(fallback_attempted=True, fallback_top=round(top_rel, 4),
                     fallback_name_match=matched)
        if top_rel >= fb_min and matched:
            extra = [c for c in pool if fb_min <= relevance_of(c, kind) < minimum]
            passing = sorted(passing + extra, key=lambda c: c.rank)
            fallback_used, threshold = True, fb_min
    depth = int(settings.get("rerank_depth", 20)) if settings.get("rerank") else k
    # corrected, naming its acronyms; a long question's ask alone (``focus_words``)
    asked = annotate_synonyms(focus(learned.corrected, int(settings.get("focus_words", 0)),
                                    frozenset(settings.get("focus_sources", ()))),
                              short, rules)
    # an acronym only the documents' names spell: what it stands for, the passages say
    asked = spell_after(asked, learned.named_forms)
    asked = write_out(asked, written)   # ... one they write out: as they do
    if prefer is not None and gated and kind == "cosine":
        before = len(passing)
        passing = admit(passing, pool, lambda c: bool(prefer(asked, c)), threshold,
                        variants, coll)
        if len(passing) > before:
            notes["admitted"] = len(passing) - before
    if prefer is not None and len(passing) > depth:
        passing = promote(passing, depth, lambda c: prefer(asked, c), prefer_limit)
    if settings.get("rerank") and passing:   # the best of the passing, re-scored first
        head = rerank(asked, passing[:depth], model=str(settings["rerank"]),
                      max_tokens=int(settings.get("rerank_tokens", 192)),
                      with_context=bool(settings.get("rerank_context", False)))
        passing = head + passing[depth:]
    if settings.get("mmr"):
        chosen = mmr(passing, k, float(settings.get("mmr_lambda", 0.6)),
                     relevance=mmr_relevance(passing, depth if settings.get("rerank") else 0))
    else:
        chosen = [c.evolve(rank=i) for i, c in enumerate(passing[:k], start=1)]
    if prefer is not None and len(passing) > len(chosen):
        kept = complete(chosen, passing[:depth], lambda c: prefer(asked, c), prefer_limit)
        if [c.key for c in kept] != [c.key for c in chosen]:
            chosen = [c.evolve(rank=i) for i, c in enumerate(kept, start=1)]
    return Gathered(tuple(chosen), tuple(pool), tuple(variants), fallback_used, threshold,
                    notes, asked, short)


def mmr_relevance(ranked: Sequence[Candidate], head: int) -> list[float]:
    """Each candidate's relevance for MMR: its score; with a reranked ``head`` (the first
    ``head`` re-scored by a model, the rest still holding retrieval scores on another
    scale), the rest rank below the head's least relevant, in their order. Read beside a
    model's logits, a fused score of ~0.02 would outrank every head passage the model
    scored below zero."""
    scores = [float(c.score) for c in ranked]
    if head <= 0 or len(ranked) <= head:
        return scores
    floor = min(scores[:head])
    return scores[:head] + [floor] * (len(ranked) - head)


def admit(passing: Sequence[Candidate], pool: Sequence[Candidate],
          wanted: Callable[[Candidate], bool], threshold: float, queries: Sequence[str],
          coll: Collection) -> list[Candidate]:
    """``passing`` with the wanted candidates of ``pool`` that only the lexical search
    found (no cosine, so they could not pass a threshold on it), once their cosine, read
    from the store (the best with the ``queries`` searched, as :func:`merge` keeps), reaches
    ``threshold``; in the pool's order. Only wanted ones: letting every such passage
    compete changes which passages the reranker reads for every question."""
    taken = {c.key for c in passing}
    lacking = [c for c in pool if c.vector_score is None and c.key not in taken and wanted(c)]
    if not lacking:
        return list(passing)
    best: dict[tuple[str, int], float] = {}
    vectors = coll.embed_queries(list(queries))     # (remembered: retrieval embedded them)
    with coll.store.snapshot(coll.name) as snap:
        for vector in vectors:
            for key, cosine in snap.cosines(vector, [c.key for c in lacking]).items():
                best[key] = max(cosine, best.get(key, cosine))
    admitted = [c.evolve(vector_score=best[c.key]) for c in lacking
                if best.get(c.key, -1.0) >= threshold]
    return sorted([*passing, *admitted], key=lambda c: c.rank)


def complete(chosen: Sequence[Candidate], read: Sequence[Candidate],
             supplies: Callable[[Candidate], Any], limit: int) -> list[Candidate]:
    """``chosen`` with up to ``limit`` passages of ``read`` (the reranked head) that supply
    something none of the chosen does (``supplies``: what a passage supplies, a set, e.g.
    which of a comparison's two terms it defines) in place of its last passages that
    supply nothing, in the order read."""
    given = [set(supplies(c)) for c in chosen]
    covered = set().union(*given)
    taken = {c.key for c in chosen}
    spare = [i for i in range(len(chosen) - 1, -1, -1) if not given[i]]
    extra: list[Candidate] = []
    for c in read:
        if len(extra) >= min(limit, len(spare)):
            break
        new = set(supplies(c)) - covered if c.key not in taken else set()
        if new:
            extra.append(c)
            covered |= new
    if not extra:
        return list(chosen)
    gone = set(spare[:len(extra)])
    return [c for i, c in enumerate(chosen) if i not in gone] + extra


def promote(ranked: Sequence[Candidate], depth: int, wanted: Callable[[Candidate], bool],
            limit: int) -> list[Candidate]:
    """``ranked`` with up to ``limit`` wanted candidates from below the first ``depth``
    moved into its last places (those they displace follow them); everything else keeps
    its order."""
    moved = [c for c in ranked[depth:] if wanted(c)][:max(0, limit)]
    if not moved or depth <= 0:
        return list(ranked)
    keys = {c.key for c in moved}
    cut = max(0, depth - len(moved))
    head = list(ranked[:cut]) + moved
    return head + [c for c in ranked[cut:] if c.key not in keys]
