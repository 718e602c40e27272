"""CFR paragraph structure: eCFR section text -> a tree of marked paragraphs -> citable chunks.

eCFR numbers paragraphs (a) -> (1) -> (i) -> (A) -> (italic 1) -> (italic i). Only a marker at
the start of a line opens a paragraph; a marker further in is a reference ("see paragraph (b)(1)"),
except the first child written on its parent's line ("(b) Scope—(1) General.", "(a)(1) No ...").
A marker continues an open list or starts a new one a level deeper; when several levels fit
((i) after (h) or under (h)(1); (v), (x); a plain (2) at level 2 or 5) the one that lets the next
markers fit wins (look-ahead), else the deepest. A marker that fits nowhere is placed by its kind
and reported in ``Section.issues``. "()" (an italic marker whose text was lost in conversion) is
numbered from its place. "(h)-(j) [Reserved]" is one paragraph, (h). Lines without a marker are
unmarked paragraphs ("#p0001", ...) of the paragraph open at that point, or of the section.

Chunks: the section, each marked paragraph ("subsection" at the top level, "paragraph" below) and
each unmarked paragraph; a chunk's text is its paragraph with everything below it, after a
citation header ("15 CFR 764.2(b)\n§ 764.2 Violations.\n\n"); ordinals count siblings from 1.
Pure functions only: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

KINDS = ("lower", "digit", "roman", "upper", "digit", "roman")  # levels 1..6
FIRST = ("a", "1", "i", "A", "1", "i")
_ROMAN_VALUES = (("m", 1000), ("cm", 900), ("d", 500), ("cd", 400), ("c", 100), ("xc", 90),
                 ("l", 50), ("xl", 40), ("x", 10), ("ix", 9), ("v", 5), ("iv", 4), ("i", 1))
_LEAD = re.compile(r"\((?P<m>[A-Za-z]{0,8}|\d{1,3})\)(?:[-–]\((?P<end>[A-Za-z]{1,8}|\d{1,3})\))?"
                   r"(?=[\s(—]|$)")
_INLINE = re.compile(r"\s*(?P<head>[^\n]{0,200}?—)?\s*\((?P<m>1|i|A|)\)(?=[\s(—]|$)")
_URL = re.compile(r"(?:https?://|www\.)\S+")


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of a section: marked ((b), (1), ...) with its sub-paragraphs, or unmarked."""

    label: str               # "(b)" when marked, "#p0001" when unmarked
    marker: str | None       # as written in the parentheses ("" if italic and lost); None: unmarked
    level: int               # 1 (a), 2 (1), 3 (i), 4 (A), 5 italic (1), 6 italic (i); 0 unmarked
    text: str                # its own text, marker included, whitespace-normalised
    line: int                # line of the source where it starts
    inline: bool = False     # written on its parent's line
    children: tuple["Paragraph", ...] = ()


@dataclass(frozen=True)
class Section:
    """One CFR section: its number, heading line and top-level paragraphs."""

    number: str              # "764.2"
    heading: str             # "§ 764.2 Violations."
    children: tuple[Paragraph, ...]
    issues: tuple[str, ...] = ()   # "line N: what looks wrong", for the build report


@dataclass(frozen=True)
class CfrChunk:
    """One retrieval chunk of a section: its citation, container and self-contained text."""

    citation: str            # "764.2(b)(1)"; for an unmarked paragraph, its container's citation
    suffix: str              # "" or "p0001" (unmarked paragraph within ``citation``)
    parent: str | None       # citation of the immediate container; None for the section
    kind: str                # "section" | "subsection" | "paragraph"
    ordinal: int             # 1-based position among its siblings, in document order
    title: str               # the section heading
    text: str                # "15 CFR <citation>\n<heading>\n\n<body>"


def clean_line(line: str) -> str:
    """Collapse whitespace and drop Markdown emphasis (``_x_``, ``**x**``) outside URLs."""
    parts, last = [], 0
    for url in _URL.finditer(line):
        parts.append(line[last:url.start()].replace("**", "").replace("_", ""))
        parts.append(url.group())
        last = url.end()
    parts.append(line[last:].replace("**", "").replace("_", ""))
    return " ".join("".join(parts).split())


def _to_roman(n: int) -> str:
    out = []
    for sym, v in _ROMAN_VALUES:
        while n >= v:
            out.append(sym)
            n -= v
    return "".join(out)


_ROMANS = {_to_roman(n): n for n in range(1, 500)}


def _kinds(marker: str) -> tuple[str, ...]:
    """The kinds a marker can be: "i" is a roman numeral or a letter, "ii" only roman."""
    if marker.isdigit():
        return ("digit",)
    out = ["roman"] if marker in _ROMANS else []
    if len(marker) in (1, 2) and marker == marker[0] * len(marker):
        out.append("lower" if marker.islower() else "upper")
    return tuple(out)


def _order(marker: str, kind: str) -> int:
    """Position of a marker in its list: a=1 ... z=26, aa=27; 1, 2 ...; i=1, ii=2 ..."""
    if kind == "digit":
        return int(marker)
    if kind == "roman":
        return _ROMANS[marker]
    return (len(marker) - 1) * 26 + ord(marker[0].lower()) - ord("a") + 1


def _nth(n: int, kind: str) -> str:
    """The n-th marker of a kind (inverse of ``_order``)."""
    if kind == "digit":
        return str(n)
    if kind == "roman":
        return _to_roman(n)
    letter = chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)
    return letter.upper() if kind == "upper" else letter


_List = tuple[str, str]  # an open list: (kind, last marker in it)


def _fits(marker: str, level: int, lists: Sequence[_List]) -> bool:
    """Whether ``marker`` continues the list open at ``level`` or starts it one level deeper."""
    if level <= len(lists):
        kind, last = lists[level - 1]
        return kind in _kinds(marker) and _order(marker, kind) == _order(last, kind) + 1
    return KINDS[level - 1] in _kinds(marker) and marker == FIRST[level - 1]


def _candidates(marker: str, lists: Sequence[_List]) -> list[int]:
    """Levels the marker can take given the open lists, deepest first."""
    return [lv for lv in range(min(len(lists) + 1, 6), 0, -1) if _fits(marker, lv, lists)]


def _italic(lists: Sequence[_List]) -> tuple[int, str, str]:
    """Placement of a marker whose italic text was lost: next in an italic list, or a new one."""
    if len(lists) >= 5:
        kind, last = lists[-1]
        return len(lists), kind, _nth(_order(last, kind) + 1, kind)
    return len(lists) + 1, KINDS[len(lists)], FIRST[len(lists)]


class _Open:
    """A paragraph being built (mutable; frozen into ``Paragraph`` at the end)."""

    def __init__(self, label: str, marker: str | None, level: int, text: str, line: int,
                 inline: bool) -> None:
        self.label, self.marker, self.level, self.text = label, marker, level, text
        self.line, self.inline = line, inline
        self.children: list[_Open] = []
        self.unmarked = 0

    def freeze(self) -> Paragraph:
        return Paragraph(self.label, self.marker, self.level, self.text, self.line, self.inline,
                         tuple(c.freeze() for c in self.children))


@dataclass(frozen=True)
class _Token:
    marker: str | None       # None: an unmarked line
    text: str
    line: int
    inline: bool = False     # a first child written on its parent's line
    end: str | None = None   # last marker of a range "(h)-(j) [Reserved]"


def tokenize(lines: Sequence[tuple[int, str]]) -> list[_Token]:
    """Numbered lines -> tokens: a line's leading marker(s) and text, or an unmarked line."""
    tokens: list[_Token] = []
    for number, raw in lines:
        line = clean_line(raw)
        m = _LEAD.match(line)
        if not line:
            continue
        if m is None or not (m.group("m") == "" or _kinds(m.group("m"))):
            tokens.append(_Token(None, line, number))
            continue
        end, inline = m.group("end"), False
        while True:
            child = _INLINE.match(line, m.end())
            if child is None:
                tokens.append(_Token(m.group("m"), line, number, inline, end))
                break
            cut = child.start("m") - 1  # the "(" of the same-line child
            tokens.append(_Token(m.group("m"), line[:cut].rstrip(), number, inline, end))
            line, inline, end = line[cut:], True, None
            m = _LEAD.match(line)
            assert m is not None  # _INLINE matched a marker exactly there
    return tokens


_Placement = tuple[int, str, str]  # (level, kind, label)


def _strict(tok: _Token, lists: Sequence[_List]) -> list[_Placement]:
    """Placements of a marked token that continue the open lists, deepest first."""
    depth, marker = len(lists), tok.marker or ""
    if marker == "":
        return [_italic(lists)]
    if tok.inline:
        fits = depth < 6 and _fits(marker, depth + 1, lists)
        return [(depth + 1, KINDS[depth], marker)] if fits else []
    return [(lv, lists[lv - 1][0] if lv <= depth else KINDS[lv - 1], marker)
            for lv in _candidates(marker, lists)]


def _advance(lists: Sequence[_List], placed: _Placement, end: str | None) -> list[_List]:
    """The open lists after a placement (a range "(h)-(j)" continues from its last marker)."""
    level, kind, label = placed
    return [*lists[:level - 1], (kind, end if end and kind in _kinds(end) else label)]


def _greedy_run(tokens: Sequence[_Token], lists: list[_List], limit: int = 3) -> int:
    """How many of the next marked tokens fit, each at its deepest level (the look-ahead)."""
    fitted = 0
    for tok in [t for t in tokens if t.marker is not None][:limit]:
        options = _strict(tok, lists)
        if not options:
            break
        lists, fitted = _advance(lists, options[0], tok.end), fitted + 1
    return fitted


def _place(tokens: Sequence[_Token], i: int, lists: list[_List],
           issues: list[str]) -> _Placement | None:
    """Placement of marked token ``i``, or None to keep it as unmarked text."""
    tok, depth = tokens[i], len(lists)
    marker = tok.marker or ""
    where = f"line {tok.line}: ({marker}) after {''.join(f'({x})' for _, x in lists) or 'start'}"
    options = _strict(tok, lists)
    if len(options) > 1:
        return max(options, key=lambda p: (_greedy_run(tokens[i + 1:],
                                                       _advance(lists, p, tok.end)), p[0]))
    if options:
        if marker == "" and options[0][0] < 5:
            issues.append(f"{where}: italic marker at level {options[0][0]}")
        return options[0]
    if tok.inline:
        return None
    ahead = [lv for lv in range(depth, 0, -1) if lists[lv - 1][0] in _kinds(marker)
             and _order(marker, lists[lv - 1][0]) > _order(lists[lv - 1][1], lists[lv - 1][0])]
    if ahead:
        issues.append(f"{where}: skips a marker, placed at level {ahead[0]}")
        return ahead[0], lists[ahead[0] - 1][0], marker
    if depth < 6 and KINDS[depth] in _kinds(marker):
        issues.append(f"{where}: a list that does not start at {FIRST[depth]}")
        return depth + 1, KINDS[depth], marker
    first = [k for k, f in zip(KINDS[:4], FIRST[:4]) if f == marker]
    if first and depth < 6:
        issues.append(f"{where}: irregular nesting, placed at level {depth + 1}")
        return depth + 1, first[0], marker
    issues.append(f"{where}: fits no level, kept as unmarked text")
    return None


def _continues(text: str, previous: str) -> bool:
    """A line broken in the source: lowercase start after a line without closing punctuation."""
    return text[:1].islower() and not re.search(r"[.:;!?][\"'”’)\]]*$", previous)


def parse_section(number: str, heading: str, body: str, *, first_line: int = 1) -> Section:
    """Parse a section's body (its text after the heading line) into a paragraph tree.

    Where a list cannot hang from the section ("...the following criteria:" then "(1)", as in
    definitions sections), that list and every later list that follows an unmarked paragraph
    of the section stay inside that paragraph's text.
    """
    tokens = tokenize([(first_line + k, s) for k, s in enumerate(body.split("\n"))])
    root = _Open("", None, 0, "", first_line, False)
    stack: list[tuple[_Open, str, str]] = []   # (paragraph, kind, last marker of its list)
    issues: list[str] = []
    last: _Open | None = None     # the paragraph that took the previous token
    local: _Open | None = None    # a section-level unmarked paragraph taking a list
    local_lists = False
    for i, tok in enumerate(tokens):
        lists = [(kind, seq) for _, kind, seq in stack]
        if tok.marker is None:
            local = None
            if last is not None and _continues(tok.text, last.text):
                last.text = f"{last.text} {tok.text}"
                issues.append(f"line {tok.line}: broken line joined to line {last.line}")
            else:
                last = _unmarked(stack[-1][0] if stack else root, tok)
            continue
        if local is None and last is not None and last.marker is None and not stack \
                and not tok.inline and (local_lists or not _strict(tok, lists)):
            local, local_lists = last, True
            issues.append(f"line {tok.line}: list kept inside unmarked paragraph {last.label}")
        if local is not None:
            local.text += _joiner(local.text) if tok.inline else "\n\n"
            local.text += tok.text
            continue
        placed = _place(tokens, i, lists, issues)
        if placed is not None:
            level, kind, label = placed
            parent = stack[level - 2][0] if level > 1 else root
            if not any(c.label.lower() == f"({label})".lower() for c in parent.children):
                text = tok.text if tok.marker else f"({label}){tok.text[2:]}"  # restore "()"
                last = _Open(f"({label})", tok.marker, level, text, tok.line, tok.inline)
                parent.children.append(last)
                del stack[level - 1:]
                stack.append((last, *_advance(lists, placed, tok.end)[-1]))
                _check_run_in(last, kind, issues)
                continue
            issues.append(f"line {tok.line}: duplicate ({label}) in "
                          f"{''.join(n.label for n, _, _ in stack[:level - 1]) or 'section'}, "
                          "kept as unmarked text")
        if tok.inline and last is not None:  # a same-line "child" that is none: glue it back
            last.text += _joiner(last.text) + tok.text
        else:
            last = _unmarked(stack[-1][0] if stack else root, tok)
    if len(root.children) > 1 and not any(c.marker is not None for c in root.children):
        issues.append(f"no marked paragraphs ({len(root.children)} unmarked)")
    if not root.children and "[Reserved]" not in heading:
        issues.append("empty section")
    return Section(number, " ".join(heading.split()), tuple(c.freeze() for c in root.children),
                   tuple(issues))


def _unmarked(container: _Open, tok: _Token) -> _Open:
    """Append an unmarked paragraph ("#p0001", ...) to its container."""
    container.unmarked += 1
    node = _Open(f"#p{container.unmarked:04d}", None, 0, tok.text, tok.line, False)
    container.children.append(node)
    return node


def _joiner(text: str) -> str:
    """What joins a same-line child to its parent's text: nothing after a dash, else a space."""
    return "" if text.endswith("—") else " "


def _check_run_in(node: _Open, kind: str, issues: list[str]) -> None:
    """Report a next sibling run into this paragraph's line ("...; and (x) Company ...")."""
    if node.marker and kind in _kinds(node.marker):
        nxt = _nth(_order(node.marker, kind) + 1, kind)
        if re.search(rf"[;,] (?:and|or) \({re.escape(nxt)}\) [A-Z]", node.text):
            issues.append(f"line {node.line}: ({nxt}) seems run into {node.label}'s line")


def render(p: Paragraph) -> str:
    """A paragraph with everything below it, as text (same-line children stay on the line)."""
    out = p.text
    for child in p.children:
        out += (_joiner(out) if child.inline else "\n\n") + render(child)
    return out


def chunk_section(section: Section, *, ordinal: int = 1) -> list[CfrChunk]:
    """The section, its subsections and paragraphs as chunks, in document order.

    Every chunk's text holds its own paragraph and everything below it, after a citation header.
    A section whose whole body is one unmarked paragraph yields no "#p0001" (it would repeat it).
    """
    body = "\n\n".join(render(c) for c in section.children)
    out = [_chunk(section, section.number, "", None, "section", ordinal, body)]
    lone = len(section.children) == 1 and section.children[0].marker is None
    if not lone:
        _walk(section, section.children, section.number, out)
    return out


def _walk(section: Section, children: Sequence[Paragraph], container: str,
          out: list[CfrChunk]) -> None:
    for ordinal, p in enumerate(children, start=1):
        if p.marker is None:
            out.append(_chunk(section, container, p.label[1:], container, "paragraph", ordinal,
                              p.text))
            continue
        citation = container + p.label
        kind = "subsection" if p.level == 1 else "paragraph"
        out.append(_chunk(section, citation, "", container, kind, ordinal, render(p)))
        _walk(section, p.children, citation, out)


def _chunk(section: Section, citation: str, suffix: str, parent: str | None, kind: str,
           ordinal: int, body: str) -> CfrChunk:
    head = f"15 CFR {citation}\n{section.heading}"
    return CfrChunk(citation, suffix, parent, kind, ordinal, section.heading,
                    f"{head}\n\n{body}" if body else head)
