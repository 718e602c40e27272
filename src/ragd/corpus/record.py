"""A retrieval-corpus.v1 document: its fields, a dict-backed record, its canonical JSON line,
and the rules one document must satisfy on its own (the rule names of
:data:`ragd.corpus.validate.RULES`; the rules across lines live there).

The record is the parsed JSON object itself (a ``dict`` subclass), so unknown
fields are kept as read and written back unchanged; the properties only read.
A line is written with a deterministic key order: required fields in contract
order, then optional fields in contract order, then unknown fields in their
original order, so the same record always gives the same bytes.
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from ..citing.cfr_ids import CANONICAL_PATTERN, SECTION_PATTERN, SUFFIX_PATTERN, InvalidIdError, ancestors, \
    is_container, normalize_id
from ..strict_json import kind_of

SCHEMA_VERSION = "retrieval-corpus.v1"
SCHEMA_VERSION_PREFIX = "retrieval-corpus."

REQUIRED_FIELDS = ("schema_version", "doc_id", "section_id", "text", "chunk_kind", "source",
                   "source_ref")
OPTIONAL_FIELDS = ("title", "url", "parent_id", "ordinal", "tokens_estimate", "hash")
KNOWN_FIELDS = REQUIRED_FIELDS + OPTIONAL_FIELDS
_KNOWN = frozenset(KNOWN_FIELDS)

CHUNK_KINDS = ("section", "subsection", "paragraph")
SOURCES = ("ecfr_snapshot", "ecfr_api", "other")


class CorpusRecord(dict):
    """One corpus document as read: a plain ``dict`` (every field, unknown ones included, in
    file order) with read-only accessors for the contract's fields (``None`` when absent)."""

    __slots__ = ()

    @property
    def schema_version(self) -> Any:
        return self.get("schema_version")

    @property
    def doc_id(self) -> Any:
        return self.get("doc_id")

    @property
    def section_id(self) -> Any:
        return self.get("section_id")

    @property
    def text(self) -> Any:
        return self.get("text")

    @property
    def chunk_kind(self) -> Any:
        return self.get("chunk_kind")

    @property
    def source(self) -> Any:
        return self.get("source")

    @property
    def source_ref(self) -> Any:
        return self.get("source_ref")

    @property
    def title(self) -> Any:
        return self.get("title")

    @property
    def url(self) -> Any:
        return self.get("url")

    @property
    def parent_id(self) -> Any:
        return self.get("parent_id")

    @property
    def ordinal(self) -> Any:
        return self.get("ordinal")

    @property
    def tokens_estimate(self) -> Any:
        return self.get("tokens_estimate")

    @property
    def hash(self) -> Any:  # type: ignore[override]  # dict instances are unhashable anyway
        return self.get("hash")

    @property
    def extra(self) -> dict[str, Any]:
        """The fields the contract does not name, in file order (consumers ignore them)."""
        return {k: v for k, v in self.items() if k not in _KNOWN}


def ordered(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record's fields in canonical order: required, optional (contract order), unknown
    (original order). Fields are never added, dropped or changed."""
    out = {k: record[k] for k in KNOWN_FIELDS if k in record}
    if len(out) != len(record):
        out.update((k, v) for k, v in record.items() if k not in _KNOWN)
    return out


def dump_record(record: Mapping[str, Any]) -> str:
    """One JSON line (no newline) for a record: canonical key order, UTF-8 text kept as is
    (``ensure_ascii=False``), the standard ``", "``/``": "`` separators, NaN refused."""
    return json.dumps(ordered(record), ensure_ascii=False, allow_nan=False)


def dump_lines(records: Iterable[Mapping[str, Any]]) -> Iterable[str]:
    """Lines (with ``\\n``) for records, streamed."""
    for record in records:
        yield dump_record(record) + "\n"


# -- the rules of one document --------------------------------------------------------------
_INTEGER_FIELDS = ("ordinal", "tokens_estimate")
_STRING_FIELDS = ("title", "url", "hash")
_KINDS, _SOURCES = frozenset(CHUNK_KINDS), frozenset(SOURCES)


def _show(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 4] + "...'"


def _kind(value: Any) -> str:
    """:func:`~ragd.strict_json.kind_of`, showing a number's or a string's value."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {_show(value, 40)}"
    return kind_of(value)


def _not_canonical(name: str, value: str) -> str:
    try:
        return f"{name} {_show(value)} is not canonical; canonical form: {normalize_id(value)!r}"
    except InvalidIdError as exc:
        return f"{name} {_show(value)} is not an EAR id: {exc.reason}"


def _check_doc_id(doc_id: str, out: list[tuple[str, str, str]]) -> None:
    head, hash_sign, suffix = doc_id.partition("#")
    if not SECTION_PATTERN.match(head):
        out.append(("doc_id", "doc_id_pattern", _not_canonical("doc_id", head) if hash_sign
                    else _not_canonical("doc_id", doc_id)))
    if hash_sign and not SUFFIX_PATTERN.match(suffix):
        why = "is empty" if not suffix else (
            "must be lowercase" if SUFFIX_PATTERN.match(suffix.lower())
            else "must match [a-z0-9][a-z0-9:._-]*")
        out.append(("doc_id", "suffix", f"chunk suffix {_show(suffix)} after '#' {why}"))


def check_record(obj: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The rules one record breaks on its own, as ``(field, rule, message)``; the rules
    across lines (duplicates, parents present, immediacy) need
    :func:`ragd.corpus.validate_corpus`."""
    out: list[tuple[str, str, str]] = []
    check_fields(obj, out)
    return out


NO_PARENT, PARENT_ID, PARENT_CONTAINER = 0, 1, 2
"""What :func:`check_fields` says a parent_id allows to check across lines: nothing, that it
exists (a canonical id), or also that it is the immediate container (a container)."""


def check_fields(obj: Mapping[str, Any], out: list[tuple[str, str, str]]) -> int:
    """Append the per-line rules ``obj`` breaks to ``out`` as ``(field, rule, message)``;
    return what its parent_id allows to check across lines (see ``NO_PARENT``)."""
    get = obj.get
    values = tuple(map(get, REQUIRED_FIELDS))      # one C-level pass: this runs per line
    if None in values:
        for name, value in zip(REQUIRED_FIELDS, values):
            if value is None and name != "text":
                out.append((name, "required", f"missing required field {name!r}"
                            if name not in obj else f"required field {name!r} is null"))
    version, doc_id, section_id, text, kind, source, ref = values
    if version != SCHEMA_VERSION and version is not None:
        if not isinstance(version, str):
            out.append(("schema_version", "type", f"must be a string, got {_kind(version)}"))
        elif version.startswith(SCHEMA_VERSION_PREFIX):
            out.append(("schema_version", "schema_version", f"unsupported schema_version "
                        f"{_show(version)}: this ragd reads {SCHEMA_VERSION!r} only"))
        else:
            out.append(("schema_version", "schema_version",
                        f"schema_version {_show(version)} is not {SCHEMA_VERSION!r}"))
    doc_ok = section_ok = False
    if isinstance(doc_id, str):
        doc_ok = CANONICAL_PATTERN.match(doc_id) is not None
        if not doc_ok:
            _check_doc_id(doc_id, out)
    elif doc_id is not None:
        out.append(("doc_id", "type", f"must be a string, got {_kind(doc_id)}"))
    if isinstance(section_id, str):
        section_ok = SECTION_PATTERN.match(section_id) is not None
        if not section_ok:
            head, hash_sign, _ = section_id.partition("#")
            out.append(("section_id", "section_id_pattern", (
                f"section_id {_show(section_id)} must not carry a '#suffix' (its section is "
                f"{_show(head)})") if hash_sign and SECTION_PATTERN.match(head)
                else _not_canonical("section_id", section_id)))
    elif section_id is not None:
        out.append(("section_id", "type", f"must be a string, got {_kind(section_id)}"))
    if doc_ok and section_ok and doc_id != section_id and doc_id.partition("#")[0] != section_id:
        out.append(("doc_id", "doc_id_section", f"doc_id {doc_id!r} is neither section_id "
                    f"{section_id!r} nor {section_id + '#'!r} + suffix"))
    if text is None:
        out.append(("text", "text_empty" if "text" in obj else "required",
                    "text is null" if "text" in obj else "missing required field 'text'"))
    elif not isinstance(text, str):
        out.append(("text", "type", f"must be a string, got {_kind(text)}"))
    elif not text or text.isspace():
        out.append(("text", "text_empty", "text is empty" if not text
                    else "text is whitespace only"))
    if kind not in _KINDS and kind is not None:
        _check_enum("chunk_kind", kind, _KINDS, out)
    if source not in _SOURCES and source is not None:
        _check_enum("source", source, _SOURCES, out)
    if ref is not None and (not isinstance(ref, str) or not ref or ref.isspace()):
        out.append(("source_ref", "type", f"must be a string, got {_kind(ref)}")
                   if not isinstance(ref, str) else
                   ("source_ref", "source_ref_empty", "source_ref is empty" if not ref
                    else "source_ref is whitespace only"))
    if len(obj) <= len(REQUIRED_FIELDS):
        return NO_PARENT
    for name in _INTEGER_FIELDS:
        value = get(name)
        if value is not None and type(value) is not int:
            hint = " (write it without a fraction)" if isinstance(value, float) \
                and value.is_integer() else ""
            out.append((name, "type", f"must be an integer, got {_kind(value)}{hint}"))
    for name in _STRING_FIELDS:
        value = get(name)
        if value is not None and not isinstance(value, str):
            out.append((name, "type", f"must be a string, got {_kind(value)}"))
    return _check_parent(get("parent_id"), doc_id if doc_ok else None, out)


def _check_enum(name: str, value: Any, allowed: frozenset[str],
                out: list[tuple[str, str, str]]) -> None:
    if not isinstance(value, str):
        out.append((name, "type", f"must be a string, got {_kind(value)}"))
    else:
        out.append((name, f"{name}_enum", f"{name} {_show(value)} is not one of "
                    f"{', '.join(sorted(allowed))}"))


def _check_parent(parent: Any, doc_id: str | None, out: list[tuple[str, str, str]]) -> int:
    if parent is None:
        return NO_PARENT
    if not isinstance(parent, str):
        out.append(("parent_id", "type", f"must be a string, got {_kind(parent)}"))
    elif not CANONICAL_PATTERN.match(parent):
        out.append(("parent_id", "parent_pattern", _not_canonical("parent_id", parent)))
    elif parent == doc_id:
        out.append(("parent_id", "parent_self", "parent_id is the document's own doc_id"))
    elif doc_id is None:
        return PARENT_ID
    elif not is_container(parent, doc_id):
        out.append(("parent_id", "parent_not_container", f"parent_id {parent!r} does not "
                    f"contain {doc_id!r} (its containers: {', '.join(ancestors(doc_id)) or 'none'})"))
        return PARENT_ID
    else:
        return PARENT_CONTAINER
    return NO_PARENT


assert set(OPTIONAL_FIELDS) == {*_INTEGER_FIELDS, *_STRING_FIELDS, "parent_id"}
