"""A rule-based, deterministic sentence splitter (no locale, no model).

``split_sentences`` returns ``(start, end)`` character spans into its input, so
callers keep exact offsets: ``text[start:end]`` is one sentence with no
surrounding whitespace. Boundaries are of three kinds:

* hard breaks: blank lines (paragraphs) and line starts that look like a list
  item, a table row or a Markdown heading (``- ``, ``* ``, ``1. ``, ``|``, ``# ``);
* sentence ends: ``.``, ``!`` or ``?`` (plus closing quotes/brackets) followed by
  whitespace and a capital letter, a digit, an uncased letter (CJK, ...) or an
  opening quote/bracket;
* full-width ends (``。！？``), which need no whitespace after them.

A ``.`` is not an end after a common abbreviation (e.g., Dr., Sec., U.S.), a
capital initial before a name ("J. Smith"), a section number ("§ 736.2.",
"Sec. 5. Definitions") or a bare enumerator ("1.", "(a).", "IV."), so legal
text is not cut into junk.
"""

from __future__ import annotations

import re

__all__ = ["split_sentences"]

_OPENERS = "\"'“‘«([{"
_CLOSERS = "\"'”’»)]}」』"

# Hard breaks: a blank line, or a newline before a list item, table row or heading.
_BREAK = re.compile(
    r"\n[^\S\n]*\n"
    r"|\n(?=[^\S\n]*(?:[-*+•][^\S\n]|\d{1,3}[.)][^\S\n]|\||#{1,6}[^\S\n]))")
_TERM = re.compile(r"[.!?]+[" + re.escape(_CLOSERS) + r"]*|[。！？]+[" + re.escape(_CLOSERS) + r"]*")
_SPACE = re.compile(r"\s+")

_ABBREVIATIONS = frozenset("""
e.g. i.e. etc. cf. al. vs. v. viz. ibid. id. approx. resp. incl.
mr. mrs. ms. dr. prof. sr. jr. st. mt. rev. hon. gov. sen. rep. gen. col. lt. sgt. capt.
no. nos. sec. secs. subsec. art. arts. ch. chap. para. paras. subpara. cl. pt. pp. p.
fig. figs. vol. vols. ed. eds. eq. eqs. ref. refs. reg. regs. ord. op. cit. ex.
inc. ltd. co. corp. dept. univ. assn. bros.
jan. feb. apr. jun. jul. aug. sep. sept. oct. nov. dec.
u.s. u.k. u.n. e.u. u.s.c. c.f.r. ph.d.
""".split())
_SECTION_MARKERS = frozenset("""
§ §§ sec secs section sections subsection part parts subpart art article articles rule rules
chapter ch chap title clause para paragraph subparagraph appendix schedule supplement no nos
regulation reg order item
""".split())
_INITIALS = re.compile(r"(?:[A-Za-z]\.){2,}")
_SECTION_NUMBER = re.compile(
    r"(?:\d+[A-Za-z]?(?:[.\-–]\d+[A-Za-z]?)*|[IVXLCDM]{1,6}|[ivxlcdm]{1,6}|[A-Za-z])"
    r"(?:\([0-9A-Za-z]{1,4}\))*\.")
# A left piece made only of enumerators: "1.", "(a).", "2.1.", "IV.", "§ 4.", "(b)(1)."
_ENUM = r"[(\[]?(?:\d+(?:\.\d+)*|[A-Za-z]|[ivxlcdm]{2,6}|[IVXLCDM]{2,6})[.)\]]+"
_ENUMERATORS = re.compile(rf"(?:§+\s*)?{_ENUM}(?:\s*{_ENUM})*")
_ENUM_MAX = 40  # longer left pieces are never enumerator-only (and the check stays cheap)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text`` in order; whitespace-only input gives ``[]``."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BREAK.finditer(text):
        _split_block(text, start, m.start(), spans)
        start = m.end()
    _split_block(text, start, len(text), spans)
    return spans


def _split_block(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Split one paragraph/line block at sentence ends and append the spans."""
    sent = start
    for m in _TERM.finditer(text, start, end):
        cut = m.end()
        if text[m.start()] not in "。！？":
            ws = _SPACE.match(text, cut, end)
            if ws is None or ws.end() >= end:
                continue
            nxt = text[ws.end()]
            if not _starts_sentence(nxt):
                continue
            if m.group().rstrip(_CLOSERS) == "." and not _dot_ends(text, sent, m.start(), nxt):
                continue
        _emit(text, sent, cut, out)
        sent = cut
    _emit(text, sent, end, out)


def _starts_sentence(ch: str) -> bool:
    """Whether ``ch`` can open a sentence: not lower case; a letter, digit or opener."""
    return ch in _OPENERS or (ch.isalnum() and not ch.islower())


def _dot_ends(text: str, sent: int, dot: int, nxt: str) -> bool:
    """Whether the single ``.`` at ``dot`` ends the sentence that began at ``sent``."""
    tok_start = dot
    while tok_start > sent and not text[tok_start - 1].isspace():
        tok_start -= 1
    token = text[tok_start:dot + 1].lstrip(_OPENERS)
    low = token.lower()
    if low in _ABBREVIATIONS or _INITIALS.fullmatch(token):
        return False
    if len(token) == 2 and token[0].isupper() and nxt.isalpha():
        return False  # an initial before a name: "J. Smith"
    section_sign = token.startswith("§")
    number = token.lstrip("§").lstrip()
    if _SECTION_NUMBER.fullmatch(number) and (section_sign or _previous_word(text, sent, tok_start)
                                                in _SECTION_MARKERS):
        return False  # "§ 736.2. General", "Sec. 5. Definitions"
    left = text[sent:dot + 1]
    return len(left) > _ENUM_MAX or not _ENUMERATORS.fullmatch(left.strip())


def _previous_word(text: str, sent: int, pos: int) -> str:
    """The lower-cased word before ``pos`` (same sentence), trailing dot removed."""
    end = pos
    while end > sent and text[end - 1].isspace():
        end -= 1
    begin = end
    while begin > sent and not text[begin - 1].isspace():
        begin -= 1
    return text[begin:end].lower().rstrip(".")


def _emit(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    """Append ``text[start:end]`` stripped of whitespace, unless it is empty."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        out.append((start, end))
