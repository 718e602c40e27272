"""Sentence spans of a passage's quote, read as a reader reads them.

Pure functions over one quote: where its sentences start and end (a list item's label
moved to the item it labels, a glossary's term to the definition it names, a bulleted
item a sentence of its own unless it completes its stem), whether a sentence is a list
item, the head of one the passage's end cuts off, or its document's title block.
"""

from __future__ import annotations

import re

from ..chunking import split_sentences


BULLETS = "•■●▪◦"
_BULLET = re.compile(rf"\s[{BULLETS}]\s")


_TRAILING_LABEL = re.compile(r"[:;]\s*((?:[ivx]{1,5}|[a-z]|\d{1,2})[.)])\s*$")


# a glossary's term in lower case ending the sentence before its definition, which opens
# in capitals: "... becomes a bulk product. large-volume parenterals. Sterile solutions ..."
# (no figures; not a clause, "and (b) ...", nor the rest of a sentence after an
# abbreviation the splitter keeps whole, "e.g. audit trails.", "max. two hours at ...")
_TERM = (r"(?!(?:and|or|but|nor|the|a|an|of|to|in|on|at|by|for|with|as|from|see)\b)"
         r"[a-z][^.!?;:\d]{0,80}[.:]")
_TRAILING_TERM = re.compile(rf"(?P<before>[^\W\d_]{{2,}})\.\s+(?P<term>{_TERM})\s*$")
_TERM_FIRST = re.compile(rf"\s*({_TERM})\s+[A-Z]")
_NOT_AN_END = frozenset("""eg ie etc cf al vs viz approx ca max min no nos nr ref refs fig
figs vol vols ed eds eq resp incl sec art ch chap para pt pp op cit ex inc ltd co corp dept
""".split())
TERM_WORDS = 6
GLOSSARY_ENTRIES = 2     # terms so written in one passage before they are read as one


def term_first(sentence: str) -> bool:
    """Whether a sentence opens with a glossary's term in lower case ("large-volume
    parenterals. Sterile solutions ..."), the shape :func:`sentences` moves a term to."""
    m = _TERM_FIRST.match(sentence)
    return bool(m) and len(m.group(1).split()) <= TERM_WORDS


def _head(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _restated(quote: str, term_start: int, end: int) -> bool:
    """Whether the definition after a lone glossary term opens by restating the term's last
    word ("semi-permeable containers. Containers that allow ..."): a term, not a chance."""
    entry = [w.strip(".,:;()\"'") for w in quote[term_start:end].split()]
    words = len(_TERM_FIRST.match(quote, term_start).group(1).split())
    return len(entry) > words and bool(entry[words]) \
        and _head(entry[words - 1]) == _head(entry[words])


def sentences(quote: str) -> list[tuple[int, int]]:
    """Sentence spans, a list item's label ending a sentence ("... as appropriate: i.")
    moved to the item it labels ("i. Batch records ..."), and, in a glossary written "term.
    Definition." with its terms in lower case (at least :data:`GLOSSARY_ENTRIES` of them in
    the passage, or one whose definition restates it), each term a sentence splitter leaves
    at the end of the entry before ("... a bulk product. large-volume parenterals.") moved
    to the definition it names."""
    cuts = list(split_sentences(quote))
    terms: dict[int, int] = {}           # span index -> where its trailing term starts
    for i in range(len(cuts) - 1):
        start, end = cuts[i]
        m = _TRAILING_LABEL.search(quote, start, end)
        if m and m.start(1) > start:
            cuts[i] = (start, m.start(1))
            cuts[i + 1] = (m.start(1), cuts[i + 1][1])
            continue
        m = _TRAILING_TERM.search(quote, start, end)
        if m and m.start("term") > start and m.group("before").lower() not in _NOT_AN_END \
                and term_first(quote[m.start("term"):cuts[i + 1][1]]):
            terms[i] = m.start("term")
    if len(terms) < GLOSSARY_ENTRIES:    # one alone: only a term its definition restates
        terms = {i: cut for i, cut in terms.items() if _restated(quote, cut, cuts[i + 1][1])}
    if terms:
        for i, cut in terms.items():
            cuts[i] = (cuts[i][0], cut)
            cuts[i + 1] = (cut, cuts[i + 1][1])
    cuts = [(start, end) for start, end in cuts if quote[start:end].strip()]
    return _lower_entries(quote, cuts)


# a glossary's term in lower case, no mark after it, opening an entry after the one before
# ends, its definition in capitals: "... or reprocessing. sampling Operations designed to
# obtain ...", "... for quality. quarantine The status of ..." (the splitter reads on)
_LOWER_ENTRY = re.compile(r"(?<=[.!?])\s+(?P<term>[a-z][a-z/-]*(?:\s+[a-z][a-z/-]*){0,3})\s+"
                          r"(?=[A-Z][a-z]*\s+[a-z])")


def _lower_entries(quote: str, cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``cuts`` split before each lower-case glossary term that opens an entry inside a
    span (:data:`_LOWER_ENTRY`), when the passage holds at least
    :data:`GLOSSARY_ENTRIES` of them (one is a chance: "approx. the Agency ...")."""
    found = [(i, m.start("term")) for i, (start, end) in enumerate(cuts)
             for m in _LOWER_ENTRY.finditer(quote, start, end)
             if _word_before(quote, m.start()) not in _NOT_AN_END]
    if len(found) < GLOSSARY_ENTRIES:
        return cuts
    at: dict[int, list[int]] = {}
    for i, cut in found:
        at.setdefault(i, []).append(cut)
    out: list[tuple[int, int]] = []
    for i, (start, end) in enumerate(cuts):
        for cut in at.get(i, []):
            out.append((start, cut))
            start = cut
        out.append((start, end))
    return [(start, end) for start, end in out if quote[start:end].strip()]


def _word_before(quote: str, at: int) -> str:
    """The word ending just before ``at`` (its final mark aside), lower-cased."""
    m = re.search(r"([^\W\d_]+)\W*$", quote[max(0, at - 40):at])
    return m.group(1).lower() if m else ""


def _stem(quote: str, start: int, end: int) -> bool:
    """Whether the sentence at ``start`` is a stem its bulleted items complete: "Decision
    makers should • take responsibility for ...; and • assure that ..." — no mark ends the
    words before the first bullet and the item after it goes on in lower case."""
    m = _BULLET.search(quote, start, end)
    if m is None:
        return False
    before, after = quote[start:m.start()].rstrip(), quote[m.end():end].lstrip()
    return bool(before) and before[-1].isalnum() and after[:1].islower()


# a label written inside running text, after white space: "(iii) An air supply ...",
# never a reference's part ("211.42(c)", "§ 11.1(c)")
_INLINE_LABEL = re.compile(r"(?<=\s)\((?P<label>[a-z]|[ivx]{1,5}|\d{1,2})\)\s")
_ROMAN = {"i": 1, "v": 5, "x": 10}
INLINE_ITEMS = 3         # labels in a row that make a list inside a sentence


def _ordinal(label: str, system: str) -> int | None:
    """A label's place in its numbering ``system`` (digit, letter or roman), or None."""
    if system == "digit":
        return int(label) if label.isdigit() else None
    if system == "letter":
        return ord(label) - 96 if len(label) == 1 and label.isalpha() else None
    if not label or any(ch not in _ROMAN for ch in label):
        return None
    values = [_ROMAN[ch] for ch in label]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v
               for i, v in enumerate(values))


def inline_items(quote: str, start: int, end: int) -> list[int]:
    """Where the items of a list written inside one sentence start: labels in running text
    ("(i) Floors ...; (ii) Temperature ...; (iii) An air supply ..."), counted in order
    in one numbering (digits, letters or roman numerals) by at least :data:`INLINE_ITEMS`
    in a row — a lone "(4)" is a source's mark or a reference, no list, and "(1) design
    ... and (2) qualification ..." reads as one sentence."""
    found = [(m.start(), m.group("label")) for m in _INLINE_LABEL.finditer(quote, start, end)]
    cuts: set[int] = set()
    for system in ("digit", "letter", "roman"):
        run: list[int] = []
        last = None
        for at, label in found:
            value = _ordinal(label, system)
            if value is None:
                continue
            if last is not None and value == last + 1:
                run.append(at)
            else:
                if len(run) >= INLINE_ITEMS:
                    cuts.update(run)
                run = [at]
            last = value
        if len(run) >= INLINE_ITEMS:
            cuts.update(run)
    return sorted(cut for cut in cuts if cut > start)


def spans(quote: str) -> list[tuple[int, int]]:
    """Sentence spans of a quote, a bulleted item (``•``) counting as a sentence of its own
    — unless the items complete the sentence's opening words (:func:`_stem`): then the
    stem and its items are one sentence, as they read — and so an item of a list written
    inside a sentence (:func:`inline_items`)."""
    out: list[tuple[int, int]] = []
    for start, end in sentences(quote):
        if _stem(quote, start, end):
            out.append((start, end))
            continue
        cut = start
        bullets = [(m.start(), m.end()) for m in _BULLET.finditer(quote, start, end)]
        for at, after in sorted(bullets + [(at, at) for at in inline_items(quote, start, end)]):
            if quote[cut:at].strip():
                out.append((cut, at))
            cut = after
        if quote[cut:end].strip():
            out.append((cut, end))
    return out


_LABEL = re.compile(r"\(?(?:[a-z]{1,2}|[0-9]{1,2}|[ivx]{1,5})[.)]\s")


def is_item(quote: str, start: int) -> bool:
    """Whether the sentence at ``start`` is a list item: after a bullet, or labelled."""
    before = quote[:start].rstrip()
    return bool(before) and before[-1] in BULLETS or bool(_LABEL.match(quote, start))


def ends_in_list(quote: str) -> bool:
    """Whether a passage ends inside a list: its last sentence is a bulleted or labelled
    item, or introduces or runs on to one (":", ";"), so the document's next passage
    goes on with it."""
    cuts = spans(quote)
    if not cuts:
        return False
    start, end = cuts[-1]
    return is_item(quote, start) or quote[start:end].rstrip().endswith((":", ";"))


_CUT_OFF = re.compile(r"[^\W\d_],?\s*$")


def cut_off(sentence: str) -> bool:
    """Whether a passage's last sentence is the head of one its end cuts off: it stops on a
    word, or a comma, without a closing mark ("The reference sample should be contained in
    its finished primary", "... described in Article 51 of Directive"). A heading ends so
    too, the heading of what the next passage holds: no answer either."""
    return len(sentence.split()) >= 4 and bool(_CUT_OFF.search(sentence))


TITLE_WORDS = 4
"""A document title this long (words) or longer opening a sentence marks its title block."""


def letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def title_block(sentence: str, title: str) -> bool:
    """Whether a sentence opens with its document's whole title (``title``: its letters and
    digits only, as :func:`letters` keeps them, so that "Out-ofSpecification" as extracted
    still reads "Out-of-Specification"): "Investigating Out-of-Specification (OOS) Test
    Results for Pharmaceutical Production Guidance for Industry U.S. Department of Health
    ..." is a title page's or running head's text, which names the document (the citation
    does that) and states nothing."""
    return bool(title) and letters(sentence).startswith(title)
