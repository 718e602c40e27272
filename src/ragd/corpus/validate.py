"""Streaming validation of a retrieval-corpus.v1 file against every rule of the contract.

Memory is constant in the corpus size except for the doc_ids seen (for duplicates and
parents) and the parent references that can only be settled at the end of the file.
Every error is reported as a :class:`Violation` (line, doc_id, field, rule, message) up
to ``max_errors``; beyond that they are only counted, in total and per rule.

Rule names are stable strings (see :data:`RULES`). Null in an optional field counts as
absent; null in a required field is ``required``, except ``text`` (``text_empty``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ..citing.cfr_ids import _parent  # parent_of without re-checking an id already known canonical
from ..citing.cfr_ids import ancestors
from .io import LineError, Source, is_path, iter_lines, parse_line
from .record import NO_PARENT, PARENT_CONTAINER, check_fields

RULES: dict[str, str] = {
    "json": "the line is one JSON object: valid UTF-8 and JSON, no NaN/Infinity, no key twice",
    "required": "every required field is present and not null",
    "type": "strings are strings; ordinal and tokens_estimate are integers (not true, not 1.0); "
            "title, url, hash and parent_id are strings when present",
    "schema_version": "schema_version is 'retrieval-corpus.v1' (another version is unsupported)",
    "doc_id_pattern": "doc_id (before any '#') is a canonical EAR id",
    "suffix": "a chunk suffix after '#' is lowercase ASCII [a-z0-9][a-z0-9:._-]*",
    "section_id_pattern": "section_id is a canonical EAR section id (no '#suffix')",
    "doc_id_section": "doc_id is section_id or section_id + '#' + suffix",
    "text_empty": "text is not null, empty or whitespace only",
    "chunk_kind_enum": "chunk_kind is section, subsection or paragraph",
    "source_enum": "source is ecfr_snapshot, ecfr_api or other",
    "source_ref_empty": "source_ref is not empty or whitespace only",
    "duplicate_doc_id": "no doc_id appears twice in the file",
    "parent_pattern": "parent_id is a canonical EAR id",
    "parent_self": "parent_id is not the document's own doc_id",
    "parent_not_container": "parent_id is a container of doc_id (a paragraph level up, or a "
                            "chunk's section)",
    "parent_missing": "parent_id is the doc_id of a document of the same file",
    "parent_not_immediate": "no document of the file lies between parent_id and doc_id",
}
"""Every rule, by stable name, with what it checks."""

BEYOND_CONTRACT = ("parent_self", "parent_not_container", "parent_not_immediate")
"""Rules that are not in the contract's list of validation rules but follow from its text:
a parent MUST be "another doc_id" and MUST "point to the immediate container". The ``type``
checks of title/url/hash and the refusal of ``1.0`` as an integer are decisions too."""



@dataclass(frozen=True)
class Violation:
    """One broken rule: where (line, doc_id, field), which rule, and a message saying what."""

    line: int
    doc_id: str | None
    field: str | None
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.doc_id or '-'} {self.field or '-'}: " \
               f"[{self.rule}] {self.message}"

    def format(self, source: str) -> str:
        """``FILE:LINE: doc_id field: [rule] message`` (compiler style)."""
        return f"{source}:{self.line}: {self.doc_id or '-'} {self.field or '-'}: " \
               f"[{self.rule}] {self.message}"

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "doc_id": self.doc_id, "field": self.field,
                "rule": self.rule, "message": self.message}


@dataclass(frozen=True)
class ValidationReport:
    """The verdict on a corpus: counts, the first ``max_errors`` errors (by line), totals."""

    source: str
    documents: int
    errors: tuple[Violation, ...]
    errors_total: int
    errors_by_rule: Mapping[str, int] = field(default_factory=dict)
    max_errors: int = 100
    seconds: float = 0.0

    @property
    def valid(self) -> bool:
        return self.errors_total == 0

    @property
    def truncated(self) -> bool:
        """Whether more errors were found than are listed."""
        return self.errors_total > len(self.errors)

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "valid": self.valid, "documents": self.documents,
                "errors_total": self.errors_total, "errors_by_rule": dict(self.errors_by_rule),
                "truncated": self.truncated, "max_errors": self.max_errors,
                "seconds": round(self.seconds, 3), "errors": [e.as_dict() for e in self.errors]}


class _Run:
    """The state of one validation: counts, the listed errors, ids seen, pending parents."""

    def __init__(self, max_errors: int) -> None:
        self.max_errors = max(0, max_errors)
        self.errors: list[Violation] = []
        self.total = 0
        self.by_rule: dict[str, int] = {}
        self.documents = 0
        self.seen: dict[str, int] = {}                    # doc_id -> first line
        self.parents: list[tuple[int, str | None, str]] = []                 # not seen yet
        self.skips: list[tuple[int, str | None, str, tuple[str, ...]]] = []  # skip levels

    def error(self, line: int, doc_id: str | None, field_: str | None, rule: str,
              message: str) -> None:
        self.total += 1
        self.by_rule[rule] = self.by_rule.get(rule, 0) + 1
        if len(self.errors) < self.max_errors:
            self.errors.append(Violation(line, doc_id, field_, rule, message))

    def bad_line(self, line: int, reason: str) -> None:
        self.documents += 1
        self.error(line, None, None, "json", reason)

    def record(self, line: int, obj: Mapping[str, Any]) -> None:
        self.documents += 1
        doc_id = obj.get("doc_id")
        shown = None
        if isinstance(doc_id, str):
            shown = doc_id if len(doc_id) <= 200 else doc_id[:197] + "..."
            first = self.seen.setdefault(doc_id, line)
            if first != line:
                self.error(line, shown, "doc_id", "duplicate_doc_id",
                           f"doc_id {doc_id!r} is already the doc_id of line {first}")
        problems: list[tuple[str, str, str]] = []
        parent_state = check_fields(obj, problems)
        for field_, rule, message in problems:
            self.error(line, shown, field_, rule, message)
        if parent_state == NO_PARENT:
            return
        parent = obj["parent_id"]
        if parent not in self.seen:
            self.parents.append((line, shown, parent))
        if parent_state == PARENT_CONTAINER and _parent(doc_id) != parent:
            containers = ancestors(doc_id)
            self.skips.append((line, shown, parent,
                               tuple(containers[:containers.index(parent)])))

    def finish(self, source: str, seconds: float) -> ValidationReport:
        for line, doc_id, parent in self.parents:
            if parent not in self.seen:
                self.error(line, doc_id, "parent_id", "parent_missing",
                           f"parent_id {parent!r} is not the doc_id of any document")
        for line, doc_id, parent, between in self.skips:
            nearer = next((c for c in between if c in self.seen), None)
            if nearer is not None:
                self.error(line, doc_id, "parent_id", "parent_not_immediate",
                           f"parent_id {parent!r} is not the immediate container: {nearer!r} "
                           f"(line {self.seen[nearer]}) lies between")
        return ValidationReport(source=source, documents=self.documents,
                                errors=tuple(sorted(self.errors, key=lambda e: e.line)),
                                errors_total=self.total, errors_by_rule=dict(self.by_rule),
                                max_errors=self.max_errors, seconds=seconds)


def validate_corpus(source: Source, max_errors: int = 100) -> ValidationReport:
    """Validate a corpus file (``.jsonl``/``.jsonl.gz``) or its lines, streamed; the report
    lists the first ``max_errors`` errors (sorted by line; end-of-file checks come last)
    and counts all. Missing or unreadable files raise ``OSError``."""
    start = time.perf_counter()
    run = _Run(max_errors)
    for line, raw in iter_lines(source):
        try:
            obj = parse_line(raw)
        except LineError as exc:
            run.bad_line(line, exc.reason)
            continue
        run.record(line, obj)
    name = str(source) if is_path(source) else "<lines>"
    return run.finish(name, time.perf_counter() - start)


def validate_records(records: Iterable[Mapping[str, Any]], max_errors: int = 100,
                     source: str = "<records>") -> ValidationReport:
    """Validate records already parsed (e.g. before writing them); line = 1-based position."""
    start = time.perf_counter()
    run = _Run(max_errors)
    for line, obj in enumerate(records, 1):
        run.record(line, obj)
    return run.finish(source, time.perf_counter() - start)
