"""Build a retrieval-corpus.v1 JSONL from eCFR sources (the ``ear`` profile's corpus builder).

Sources: eCFR-style Markdown ("#### § § 764.2" per section, heading line "§ 764.2   Title." just
before it, "> [..]" source notes, which are left out) and JSONL snapshots with one section per line
(``{section_id, heading, text, source_ref?, url?}``). Sections are parsed by
``ragd.chunking.cfr``; the output is sorted by section number and written atomically, so the same
sources give the same bytes on every run. Only EAR parts (730-774) are built unless asked.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from ..chunking.cfr import CfrChunk, Section, chunk_section, parse_section
from ..errors import InvalidDocumentError, UsageError
from ..citing.cfr_ids import EAR_PARTS, normalize_id
from .io import write_corpus
from .record import SCHEMA_VERSION

ECFR_URL = "https://www.ecfr.gov/current/title-15/section-{section}"
_MD_SECTION = re.compile(r"#### §\s*§?\s*(?P<num>\d+\.\d+\w*)\s*$")
_HEADING = re.compile(r"\s*§\s*(?P<num>\d+\.\d+\w*)\s+\S")
_TITLE_LINE = re.compile(r"\s*(PARTS?|SUBPARTS?|SUBCHAPTERS?|CHAPTERS?)\b")
_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".jsonl": "jsonl", ".json": "jsonl"}


@dataclass(frozen=True)
class SourceText:
    """One source file's content, read once: its name (for messages and provenance) and text."""

    name: str
    text: str
    fmt: str                 # "markdown" | "jsonl"


@dataclass(frozen=True)
class SectionInput:
    """One section as found in a source, before paragraph parsing."""

    number: str              # "764.2"
    heading: str             # "§ 764.2 Violations."
    body: str                # the text after the heading line
    source_ref: str
    url: str | None          # the source's URL of the section; None: the eCFR URL
    source: str              # the file, for messages
    line: int                # where the section starts in it
    body_line: int           # line number of the body's first line (1 in a JSONL text field)


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote: counts per chunk kind, sections left out, and parse issues."""

    out: Path
    documents: int
    sections: int
    subsections: int
    paragraphs: int
    skipped_sections: int    # sections outside the selected parts
    issues: tuple[str, ...]  # "764.2: line 3120: ..." per suspicious spot
    seconds: float


def read_sources(paths: Sequence[Path]) -> list[SourceText]:
    """Read source files; a directory contributes its *.md and *.jsonl files, sorted by name."""
    files: list[Path] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix.lower() in _SUFFIXES))
        elif path.is_file():
            if path.suffix.lower() not in _SUFFIXES:
                raise UsageError(f"{path}: not an eCFR source (expected .md or .jsonl)")
            files.append(path)
        else:
            raise UsageError(f"{path}: no such file or directory")
    if not files:
        raise UsageError("no eCFR sources (.md or .jsonl) found in " + ", ".join(map(str, paths)))
    return [SourceText(str(p), p.read_text(encoding="utf-8"), _SUFFIXES[p.suffix.lower()])
            for p in files]


def default_source_ref(source: SourceText) -> str:
    """Provenance of a source from its content: "ecfr-md-sha256:<16 hex>"."""
    digest = hashlib.sha256(source.text.encode("utf-8")).hexdigest()[:16]
    return f"ecfr-{'md' if source.fmt == 'markdown' else 'jsonl'}-sha256:{digest}"


def markdown_sections(source: SourceText, source_ref: str) -> Iterator[SectionInput]:
    """Sections of an eCFR Markdown file; a body ends at the next heading, title line or note."""
    lines = source.text.split("\n")
    ends = set()
    for i, line in enumerate(lines):
        if line.startswith("#") or line.startswith("**Authority:**") \
                or line.startswith("**Source:**"):
            ends.add(i)
            j = i - 1
            while j >= 0 and not lines[j].strip():
                j -= 1
            if j >= 0 and (_TITLE_LINE.match(lines[j]) or _HEADING.match(lines[j])):
                ends.add(j)
    for i, line in enumerate(lines):
        m = _MD_SECTION.match(line)
        if m is None:
            continue
        number = m.group("num")
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        h = _HEADING.match(lines[j]) if j >= 0 else None
        heading = lines[j] if h and h.group("num") == number else f"§ {number}"
        k = i + 1
        while k < len(lines) and k not in ends:
            k += 1
        body = "\n".join(s for s in lines[i + 1:k] if not s.startswith(">"))
        yield SectionInput(number, " ".join(heading.split()), body, source_ref, None,
                           source.name, i + 1, i + 2)


def jsonl_sections(source: SourceText, source_ref: str | None) -> Iterator[SectionInput]:
    """Sections of a JSONL snapshot: {section_id, heading, text, source_ref?, url?} per line."""
    for n, raw in enumerate(source.text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except ValueError as exc:
            raise InvalidDocumentError(f"not JSON ({exc.msg})", source=source.name, line=n) from exc
        if not isinstance(row, dict):
            raise InvalidDocumentError("expected an object", source=source.name, line=n)
        for key in ("section_id", "text"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise InvalidDocumentError("missing or empty", source=source.name, line=n,
                                           field=key)
        number = _section_number(row["section_id"], source.name, n)
        heading = " ".join(str(row.get("heading") or "").split())
        if not heading.startswith("§"):
            heading = f"§ {number} {heading}".strip()
        body = row["text"]
        first = body.lstrip("\n").split("\n", 1)
        h = _HEADING.match(first[0])
        if h and h.group("num") == number:  # the text repeats the heading line
            body = first[1] if len(first) > 1 else ""
        ref = source_ref or row.get("source_ref") or default_source_ref(source)
        url = row.get("url") if isinstance(row.get("url"), str) and row.get("url") else None
        yield SectionInput(number, heading, body, str(ref), url, source.name, n, 1)


def _section_number(section_id: str, name: str, line: int) -> str:
    try:
        canonical = normalize_id(section_id)
    except ValueError as exc:
        raise InvalidDocumentError(f"not an EAR section id: {section_id!r}", source=name,
                                   line=line, field="section_id") from exc
    number = canonical.removeprefix("EAR-")
    if not re.fullmatch(r"\d+\.\d+\w*", number):
        raise InvalidDocumentError(f"not a section (paragraph ids are not accepted): "
                                   f"{section_id!r}", source=name, line=line, field="section_id")
    return number


def _sort_key(number: str) -> tuple:
    return tuple((int(m.group(1)), m.group(2)) for m in re.finditer(r"(\d+)(\D*)", number))


def select_sections(sources: Sequence[SourceText], *, source_ref: str | None = None,
                    parts: range | None = EAR_PARTS) -> tuple[list[SectionInput], int]:
    """All sections in the selected parts (None: all), sorted by number; and how many were left out.

    The same section in two sources is an error (which one wins would be a guess).
    """
    found: dict[str, SectionInput] = {}
    skipped = 0
    for source in sources:
        if source.fmt == "markdown":
            sections: Iterable[SectionInput] = markdown_sections(
                source, source_ref or default_source_ref(source))
        else:
            sections = jsonl_sections(source, source_ref)
        for sec in sections:
            part = int(sec.number.split(".")[0])
            if parts is not None and part not in parts:
                skipped += 1
                continue
            if sec.number in found:
                first = found[sec.number]
                raise InvalidDocumentError(f"section {sec.number} also at {first.source} line "
                                           f"{first.line}", source=sec.source, line=sec.line)
            found[sec.number] = sec
    return sorted(found.values(), key=lambda s: _sort_key(s.number)), skipped


def parse_sections(inputs: Sequence[SectionInput]) -> list[tuple[SectionInput, Section]]:
    """Each section input with its parsed paragraph tree."""
    return [(s, parse_section(s.number, s.heading, s.body, first_line=s.body_line)) for s in inputs]


def section_records(inp: SectionInput, section: Section, ordinal: int) -> list[dict]:
    """The v1 records of one parsed section, in document order."""
    return [_record(inp, c, len(c.text.split())) for c in chunk_section(section, ordinal=ordinal)]


def _record(inp: SectionInput, c: CfrChunk, tokens: int) -> dict:
    section_id = normalize_id(c.citation)
    base = (inp.url or ECFR_URL.format(section=inp.number)).split("#", 1)[0]
    url = base if c.citation == inp.number else f"{base}#p-{c.citation}"
    record = {
        "schema_version": SCHEMA_VERSION,
        "doc_id": f"{section_id}#{c.suffix}" if c.suffix else section_id,
        "section_id": section_id,
        "chunk_kind": c.kind,
        "parent_id": normalize_id(c.parent) if c.parent else None,
        "ordinal": c.ordinal,
        "title": c.title,
        "text": c.text,
        "url": url,
        "source": "ecfr_snapshot",
        "source_ref": inp.source_ref,
        "tokens_estimate": tokens,
        "hash": "sha256:" + hashlib.sha256(c.text.encode("utf-8")).hexdigest(),
    }
    return {k: v for k, v in record.items() if v is not None}


def build_records(sources: Sequence[SourceText], *, source_ref: str | None = None,
                  parts: range | None = EAR_PARTS) -> Iterator[dict]:
    """v1 records of the sources, sorted by section, each section in document order (pure)."""
    inputs, _ = select_sections(sources, source_ref=source_ref, parts=parts)
    yield from _records(parse_sections(inputs))


def _records(parsed: Sequence[tuple[SectionInput, Section]]) -> Iterator[dict]:
    counters: dict[str, int] = {}
    for inp, section in parsed:
        part = inp.number.split(".")[0]
        counters[part] = counters.get(part, 0) + 1
        yield from section_records(inp, section, counters[part])


def build_corpus(sources: Sequence[Path], out: Path, *, source_ref: str | None = None,
                 parts: range | None = EAR_PARTS) -> BuildReport:
    """Read eCFR sources, build the v1 corpus and write it to ``out`` atomically."""
    start = time.perf_counter()
    inputs, skipped = select_sections(read_sources(sources), source_ref=source_ref, parts=parts)
    parsed = parse_sections(inputs)
    counts = {"section": 0, "subsection": 0, "paragraph": 0}

    def counted(records: Iterable[dict]) -> Iterator[dict]:
        for record in records:
            counts[record["chunk_kind"]] += 1
            yield record

    write_corpus(counted(_records(parsed)), Path(out))
    issues = tuple(f"{inp.number}: {issue}" for inp, sec in parsed for issue in sec.issues)
    return BuildReport(Path(out), sum(counts.values()), counts["section"], counts["subsection"],
                       counts["paragraph"], skipped, issues, time.perf_counter() - start)
