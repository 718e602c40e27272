"""The offline path: the local fact filter (phase B) and extractive synthesis (phase C).

Pure functions, no model call. Phase B drops noisy quotes (page furniture, lines of
numbers), facts that share no content term with the question, and near-duplicates,
keeping at most ``max_facts``. Phase C scores every whole sentence of the kept facts
by the weighted share of the question's terms it contains, the relevance of its
passage and its position, keeps those close to the best (at most ``max_sentences``,
near-duplicates once) and orders them as they stand in their passages. A sentence's
text is an exact substring of its fact's quote (whitespace normalised): this path can
only emit quotes of the evidence.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

from ..analysis import analyze
from .lists import introduction, list_items, next_passages, opens_list
from .sentences import TITLE_WORDS, cut_off, is_item, letters, spans, term_first, title_block
from .shapes import (defined_abbreviation, defined_term, defines, described_term, fragment,
                     glossary, is_heading, lead)
from .terms import coverage
from .types import Fact, Pick


def normal(text: str) -> str:
    return " ".join(text.split())


def _noisy(text: str) -> bool:
    letters = sum(ch.isalpha() for ch in text)
    return len(text.split()) < 3 or letters < 0.5 * max(1, len(text.replace(" ", "")))


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def filter_facts(question_terms: Sequence[str], facts: Sequence[Fact], *, max_facts: int,
                 keep_all_pinned: bool = True) -> tuple[list[Fact], list[tuple[Fact, str]]]:
    """Phase B, locally: (kept, dropped with a reason) — ``noise``, ``off_topic``,
    ``duplicate``, ``max_facts``."""
    q = set(question_terms)
    kept: list[Fact] = []
    dropped: list[tuple[Fact, str]] = []
    seen: list[set[str]] = []
    for f in facts:
        terms = set(analyze(f.quote))
        if _noisy(f.quote):
            dropped.append((f, "noise"))
        elif not (q & terms) and not (keep_all_pinned and f.evidence.pinned):
            dropped.append((f, "off_topic"))
        elif any(_jaccard(terms, s) >= 0.9 for s in seen):
            dropped.append((f, "duplicate"))
        elif len(kept) >= max_facts:
            dropped.append((f, "max_facts"))
        else:
            kept.append(f)
            seen.append(terms)
    return kept, dropped


# a sentence qualifying the one before it: a continuation never left behind ("The guideline
# does not apply to ... Nevertheless, its principles are important to consider ...")
_QUALIFIES = re.compile(r"(?:However|Nevertheless|Nonetheless|Notwithstanding|But|Even so|"
                        r"That said)\b")

# a sentence whose subject refers back to what the sentence before it introduced ("The
# record must be kept ..." after "... is recorded by the QP in a register"): the sentence
# before says what it is
_REFERS_BACK = re.compile(r"(?:The|This|These|That|Those|Such|Said)\s+(?P<noun>[a-z][a-z-]+)\b"
                          r"|(?:It|They|This|These)\s+(?:is|are|was|were|must|should|shall|"
                          r"may|can|will|has|have|does|do)\b")


def refers_back(text: str, before: str, asked: set[str]) -> bool:
    """Whether ``text`` opens by referring back to what ``before`` introduced: "It must
    ...", "They are ...", or a definite noun ("The record", "Such records") that ``before``
    holds and the question (``asked``: its analysed terms) does not name — a sentence about
    a thing the question names says what it speaks of itself."""
    m = _REFERS_BACK.match(text)
    if m is None:
        return False
    if m.group("noun") is None:
        return True
    noun = set(analyze(m.group("noun")))
    return bool(noun) and noun <= set(analyze(before)) and not noun & asked


Similarity = Callable[[Sequence[str]], Sequence[float]]
"""Cosine of each text with the question (the embedding model's), for the extractive path."""


def synthesize(question_terms: Sequence[str], weight: Mapping[str, float],
               facts: Sequence[Fact], *, max_sentences: int, min_coverage: float,
               relative: float = 0.75, passage_relative: float | None = None,
               similarity: Similarity | None = None,
               min_similarity: float = 1.0, shortlist: int = 24,
               context_terms: bool = False, fragments: bool = True,
               follow: int = 0, similarity_weight: float = 0.5,
               define: Sequence[Sequence[str]] = (),
               definition_bonus: float = 0.2,
               typed: Callable[[str], bool] | None = None,
               type_bonus: float = 0.0,
               listed: Callable[[str], bool] | None = None,
               asks: Sequence[tuple[Sequence[str], Similarity]] = ()) -> list[Pick]:
    """Phase C, extractively: the picked sentences, passages in the facts' order (the one
    defining the term a definitional question asks about first), each in its own order.

    Every whole sentence of the facts is scored by the weighted share of the question's
    terms it holds (``coverage``), its passage's place in the context and its own place
    in the passage; with
    ``similarity``, the ``shortlist`` best (and every sentence defining a subject
    ``define`` names) are also scored by their cosine with the question, which finds an
    answer worded otherwise ("returned" for "bring back"). A
    sentence is a candidate when its coverage reaches ``min_coverage`` or its similarity
    ``min_similarity``; it is kept when its score is at least ``relative`` of the best,
    and its passage's coverage at least ``passage_relative`` of the best passage's
    (default: ``relative``; an answer stays on the question's subject: the
    sentence the similarity scores best, at least ``min_similarity``, is on it whatever its
    passage's terms); near-duplicates count once. With ``context_terms``, a passage's
    context (its document title and heading path) counts towards the coverage of each of
    its sentences: a sentence under "Annex 11 > 9. Audit Trails" covers "Annex 11" and
    "audit trail". Without ``fragments``, a sentence starting in lower case (cut by a
    passage boundary) is not picked, unless it opens with a glossary's term moved to it
    (:func:`~ragd.answer.sentences.sentences`), nor is a passage's last sentence its end
    cuts off (:func:`~ragd.answer.sentences.cut_off`). (With ``context_terms`` the
    similarity also reads the passage's context line.) A bulleted item is a sentence of
    its own, and a picked sentence that introduces a list ("These four elements are:")
    brings the items that follow it; a heading run into a sentence is left out of it
    (:func:`~ragd.answer.shapes.lead`), unless it is the term a glossary entry defines.
    With ``follow``, each picked sentence brings up to that many sentences that follow it
    in its passage (a definition's or a list's continuation), and after them any that
    qualifies the last ("However, ...", "Nevertheless, ..."), within ``max_sentences``;
    and up to that many before it, while each refers back to the one before it
    (:func:`refers_back`: "The record must be kept ..." after "... recorded in a register").
    ``similarity_weight`` is the share of the similarity in a sentence's score (the rest:
    coverage, passage relevance, position). With ``define`` (the subjects a definitional
    question asks about, each its analysed terms: one, or the two a comparison names), a
    sentence that defines one ("X means ...") gains ``definition_bonus`` and is a
    candidate. With ``typed`` (whether
    a sentence holds what the question asks for: a duration for "how long"), a candidate
    that does gains ``type_bonus``. With ``listed`` (whether a sentence holds a list, for a
    question asking for one's items), a sentence holding one has the form it asks for, as a
    definition has (it gains ``definition_bonus``), and the strong ones are taken before
    the others and their passage leads the answer (after one defining the term asked
    about): the items are the answer, the sentences about them its context. With ``asks``
    (a question asking several things: each ask's terms and its similarity,
    :mod:`~ragd.answer.asks`), the sentences each ask's terms cover best (at least
    ``min_coverage`` of them) are also scored by their similarity with that ask, a
    sentence's similarity being its best; each ask's best read is on the subject, as the
    whole question's is; and a passage's coverage, for the passage bar, is its best of the
    question's and each ask's.
    """
    if not facts:
        return []
    weight = dict(weight)
    around = {f.key: set(analyze(f"{f.evidence.title} {f.evidence.context}"))
              if context_terms else set() for f in facts}
    passage_terms = {f.key: set(analyze(f.quote)) | around[f.key] for f in facts}
    passage = {f.key: coverage(question_terms, weight, passage_terms[f.key]) for f in facts}
    rows: list[tuple[Fact, str, int, float, float]] = []  # fact, text, position, cov, prior
    items: dict[tuple[str, int], tuple[str, bool]] = {}  # every sentence, and is it an item
    for rank, f in enumerate(facts):
        quote = f.quote
        label = set(analyze(" ".join((f.evidence.context, f.evidence.title,
                                      f.evidence.citation))))
        title = letters(f.evidence.title) if len(f.evidence.title.split()) >= TITLE_WORDS else ""
        parts = spans(quote)
        for position, (start, end) in enumerate(parts):
            raw = quote[start:end]
            cut = lead(raw)
            heading = ""
            if cut and not (glossary(raw[:cut]) or _defines_any(raw, define)):
                heading, raw = raw[:cut], raw[cut:]  # the statement, without its heading ...
            else:
                cut = 0
            text = normal(raw)
            # (labelled, though its label is read as a heading's number: "3. The results")
            items[(f.key, position)] = (text, is_item(quote, start)
                                        or is_item(quote, start + cut))
            if (is_heading(raw, label, first=position == 0) and not _defines_any(raw, define)) \
                    or title_block(raw, title) \
                    or (not fragments and fragment(raw)
                        and not (position > 0 and term_first(raw))
                        and not _defines_any(raw, define)) \
                    or (not fragments and position == len(parts) - 1 and cut_off(raw)
                        and not is_item(quote, start)):
                continue                    # (a glossary's term alone is no mere heading)
            # ... which still says what the statement is about, as a passage's context does
            cov = coverage(question_terms, weight,
                           set(analyze(f"{heading} {text}")) | around[f.key])
            if f.evidence.pinned:  # the question names this passage's section: it is the subject
                cov = max(cov, min_coverage, passage[f.key])
            # the passage's place in the context (ordered by the evidence checks: the
            # cross-encoder's judgement when it ran) and the sentence's place in the passage
            prior = 0.6 * cov + 0.3 / (1 + rank) + 0.1 / (1 + position)
            rows.append((f, text, position, cov, prior))
    if not rows:
        return []
    sims = [0.0] * len(rows)
    by_ask: list[dict[int, float]] = []   # each ask's similarity, by row
    if similarity is not None:
        def texts(order: Sequence[int]) -> list[str]:
            return [f"{rows[i][0].evidence.context}\n\n{rows[i][1]}"
                    if context_terms and rows[i][0].evidence.context else rows[i][1]
                    for i in order]
        order = sorted(range(len(rows)), key=lambda i: -rows[i][4])[:shortlist]
        # (a sentence defining what the question asks about is read by the model wherever
        # its passage stands: in a glossary every entry names the subject's words)
        shortlisted = set(order)
        order += [i for i in range(len(rows)) if i not in shortlisted
                  and _defines_any(rows[i][1], define)]
        for i, value in zip(order, similarity(texts(order))):
            sims[i] = float(value)
        row_terms = [set(analyze(text)) | around[f.key] for f, text, *_ in rows] if asks else []
        for ask_terms, ask_similarity in asks:
            # the sentences this ask's terms cover best, as the question's shortlist is, and
            # at least ``min_coverage`` of them: a sentence answers an ask in its terms (the
            # model reads "accelerated stability data" as answering "accelerated assessment")
            covers = [coverage(ask_terms, weight, terms) for terms in row_terms]
            order = sorted((i for i in range(len(rows)) if covers[i] >= min_coverage),
                           key=lambda i: (-covers[i], i))[:shortlist]
            values = {i: float(v) for i, v in zip(order, ask_similarity(texts(order)))}
            by_ask.append(values)
            for i, value in values.items():
                sims[i] = max(sims[i], value)
    picks: list[Pick] = []
    row_of: dict[tuple[str, int], int] = {}       # each pick's row
    defining_rows: set[tuple[str, int]] = set()   # sentences defining a subject asked about
    holding_rows: set[tuple[str, int]] = set()    # ... holding what the question asks for
    listing_rows: set[tuple[str, int]] = set()    # ... holding the list it asks for
    for row, ((f, text, position, cov, prior), sim) in enumerate(zip(rows, sims)):
        definition = _defines_any(text, define)
        # (a sentence announcing the items that follow it holds them, as one ending in ":")
        listing = listed is not None and (listed(text)
                                          or opens_list(text, f.key, position, items))
        holding = bool(type_bonus) and typed is not None and typed(text)
        if definition:
            defining_rows.add((f.key, position))
        if holding:
            holding_rows.add((f.key, position))
        if listing:
            listing_rows.add((f.key, position))
        if cov < min_coverage and sim < min_similarity and not definition:
            continue
        score = prior if similarity is None else (similarity_weight * sim
                                                  + (1 - similarity_weight) * prior)
        score += definition_bonus * (definition or listing) + type_bonus * holding
        picks.append(Pick(f, text, position, cov, score, sim))
        row_of[(f.key, position)] = row
    if not picks:
        return []
    best = max(p.score for p in picks)
    strong = [p for p in picks if p.score >= relative * best]
    # the passage bar is set by the passages of those strong sentences: measured over every
    # pick, a passage holding only weak sentences could bar all of them, leaving no answer
    # (with several asks, a passage's coverage is its best of the question's and each
    # ask's: a passage covering one ask is on that ask's subject, and one covering another
    # ask sets no bar for it)
    bar = {f.key: max([passage[f.key]] + [coverage(ask_terms, weight, passage_terms[f.key])
                                           for ask_terms, _ in asks if by_ask])
           for f in facts}
    best_passage = max(bar[p.fact.key] for p in strong)
    # (a sentence defining what the question asks about is on its subject by its form, and
    # one holding what it asks for, by its content: "... retained for at least 1 year")
    on_subject = defining_rows | holding_rows | listing_rows
    best_read: tuple[str, int] | None = None
    if similarity is not None:
        # ... and the sentence the model reads as answering best, by its meaning: the terms
        # its passage lacks may be the question's own wording ("the main reason" for "the
        # Agency's primary purpose")
        # (not a list's introduction: "... if any of the following apply:" answers
        # nothing unless its items stand in the same passage, which its own merit decides)
        top = max(p.similarity for p in picks)
        read = [(p.fact.key, p.position) for p in picks
                if p.similarity == top and not p.text.endswith(":")]
        if top >= min_similarity and read:
            on_subject |= set(read)
            best_read = min(read)
    for values in by_ask:                    # ... and each ask's, by its own reading
        read_of = {key: values[row] for key, row in row_of.items() if row in values}
        top = max(read_of.values(), default=0.0)
        read = [key for key, value in read_of.items() if value == top
                and not rows[row_of[key]][1].endswith(":")]
        if top >= min_similarity and read:
            on_subject |= set(read)
    # (the context's first passage is the one the evidence checks judge answers best: its
    # strong sentences are on the subject whatever terms the others share with the question)
    first = facts[0].key
    passage_share = relative if passage_relative is None else passage_relative
    strong = [p for p in strong if bar[p.fact.key] >= passage_share * best_passage
              or (p.fact.key, p.position) in on_subject or p.fact.key == first]
    if any((p.fact.key, p.position) in defining_rows for p in strong):
        # the term is defined: the entries of the same glossary defining other terms
        # ("(5) Digital signature means ..." beside "(7) Electronic signature means ...")
        # answer another question
        strong = [p for p in strong if not _defines_other(p.text, define)]
    # (a list asked for comes first, after a sentence defining what the question names:
    # "What is a reference listed drug?" is answered by its definition, not a list)
    lists_asked = bool(listing_rows)
    strong.sort(key=lambda p: (lists_asked and (p.fact.key, p.position) not in defining_rows,
                               (p.fact.key, p.position) not in listing_rows, -p.score,
                               p.fact.key, p.position))
    at = {(f.key, position): (f, text, position, cov)
          for f, text, position, cov, _ in rows} if follow else {}
    asked = set(question_terms)
    chosen: list[Pick] = []
    chosen_terms: list[set[str]] = []
    taken: set[tuple[str, int]] = set()

    if best_read is not None and best_read not in {(p.fact.key, p.position) for p in strong}:
        best_read = None

    def room() -> int:
        """Places left for a continuation or a list item: the best read keeps one until
        taken (strong sentences compete for it by score; what merely follows them, scored
        0, must not crowd it out)."""
        return max_sentences - len(chosen) - (best_read is not None and best_read not in taken)

    def take(p: Pick) -> bool:
        terms = set(analyze(p.text))
        if (p.fact.key, p.position) in taken or any(_jaccard(terms, t) >= 0.8
                                                    for t in chosen_terms):
            return False
        chosen.append(p)
        chosen_terms.append(terms)
        taken.add((p.fact.key, p.position))
        return True

    def bring(listed_items: Sequence[Pick]) -> None:
        """A list introduction's items, while there is room."""
        for item in listed_items:
            if room() <= 0:
                break
            take(item)

    onward = next_passages(facts)

    def opens(p: Pick) -> bool:
        return opens_list(p.text, p.fact.key, p.position, items)

    for p in strong:
        if len(chosen) >= max_sentences:
            break
        # a definition already taken as another's continuation (the next glossary entry of
        # a comparison) still brings its own; any other is not picked twice
        if (p.fact.key, p.position) in taken:
            if (p.fact.key, p.position) not in defining_rows:
                continue
        elif opens(p) and room() < 2 and list_items(p, items, 1, onward):
            continue                        # a list's introduction without room for its items
        elif not take(p):
            continue
        if opens(p):                        # it introduces a list: its items, short or not
            bring(list_items(p, items, max_sentences - 1, onward))
            continue
        if items.get((p.fact.key, p.position), ("", False))[1] and room() > 0:
            intro = introduction(p, items, at, opens)   # an item: its list's introduction
            if intro is not None and take(intro):         # ... and the list, as the
                bring(list_items(intro, items, max_sentences - 1, onward))  # intro would
        back, current = 1, p.text           # the sentences it refers back to
        while back <= follow and room() > 0:
            row = at.get((p.fact.key, p.position - back))
            if row is None or not refers_back(current, row[1], asked) \
                    or not take(Pick(row[0], row[1], row[2], row[3], 0.0)):
                break
            back, current = back + 1, row[1]
        step = 1
        while True:                         # the sentences that continue it
            row = at.get((p.fact.key, p.position + step))
            if row is None or room() <= 0 or _defines_other(row[1], define) \
                    or term_first(row[1]):
                break                       # (a glossary's next entry does not continue it)
            if step > follow and not _QUALIFIES.match(row[1]):
                break                       # (past ``follow``, only what qualifies the last)
            follower = Pick(row[0], row[1], row[2], row[3], 0.0)
            if opens(follower):
                # (a list read on into the next passage when the question asks for one,
                # or for a figure or date its items may hold: else a list following the
                # answer is not what it asks for)
                listed_items = list_items(follower, items, max_sentences - 1,
                                           onward if listed or typed else None)
                if listed_items and room() >= 2 and take(follower):
                    bring(listed_items)     # a list's introduction brings its items ...
                break                       # (... or, its items cut off, does not follow)
            take(follower)
            step += 1
    # passages in the context's order (the evidence checks' judgement of which answers),
    # except that the one defining the term asked about comes first — plainly defining it
    # ("Design Space: The ...") when one does, over one merely saying what it is
    # ("Quality risk management is integral to ..."); each in its own order
    order_of = {f.key: i for i, f in enumerate(facts)}
    wanted = [set(subject) for subject in define]
    plain = {p.fact.key for p in chosen if set(defined_term(p.text)) in wanted}
    defining = plain or {p.fact.key for p in chosen if (p.fact.key, p.position) in defining_rows} \
        or {p.fact.key for p in chosen if (p.fact.key, p.position) in listing_rows}
    def place(p: Pick) -> tuple[bool, int, int]:
        key, position = p.anchor or (p.fact.key, p.position)
        return key not in defining, order_of[key], position
    return sorted(chosen, key=place)


def _defines_any(text: str, subjects: Sequence[Sequence[str]]) -> bool:
    return any(defines(text, subject) for subject in subjects)


def _defines_other(text: str, define: Sequence[Sequence[str]]) -> bool:
    """A sentence plainly defining a term other than the subjects ``define`` (any term,
    without them)."""
    term = defined_term(text)
    return bool(term) and not _defines_any(text, define)


def defines_in(text: str, subjects: Sequence[Sequence[str]]) -> bool:
    """Whether a passage holds a sentence plainly defining one of ``subjects`` (what a
    question asks to define): "Design Space: The multidimensional ...", "(7) Electronic
    signature means ...", "QUALITY RISK MANAGEMENT (QRM) A systematic ..." — the term it
    names is the subject, word for word (:func:`ragd.answer.shapes.defined_term`), or the
    abbreviation it carries ("Residence Time Distribution (RTD): ..."), or a
    sentence the subject opens by saying what it consists of ("CM involves ...",
    :func:`ragd.answer.shapes.described_term`)."""
    wanted = [set(subject) for subject in subjects if subject]
    return bool(wanted) and any(set(defined_term(text[start:end])) in wanted
                                or set(defined_abbreviation(text[start:end])) in wanted
                                or set(described_term(text[start:end])) in wanted
                                for start, end in spans(text))
