"""What a document or chunk row may hold, checked the same way by both backends before any
write: strings without NUL characters or lone surrogates (PostgreSQL text cannot hold them,
and SQLite refuses them too, so a store behaves alike), integers within 32 bits, a
chunk_index of 0 or more, metadata that is JSON. A refusal is an
:class:`~ragd.errors.InvalidDocumentError` whose message names the document (and chunk)
and whose ``field`` is the field at fault.

Documents coming through the loaders never reach these checks with a NUL: text, titles
and tags are normalised (control characters removed) and metadata holding a NUL is refused
at load time (:func:`ragd.ingest.normalize.json_safe`).
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from ..errors import InvalidDocumentError
from ..types import Chunk
from .base import DocumentRecord

_INT4_RANGE = range(-(1 << 31), 1 << 31)
_JSON = json.JSONEncoder(allow_nan=False)  # json.dumps builds an encoder per call for options


def _invalid(where: str, field: str, problem: str) -> InvalidDocumentError:
    """``WHERE: FIELD PROBLEM``, with ``field`` set."""
    exc = InvalidDocumentError(f"{where}: {field} {problem}")
    exc.field = field
    return exc


def _where(chunk: Chunk) -> str:
    return f"document {chunk.doc_id!r}, chunk {chunk.chunk_index}"


_STRINGS = ("doc_id", "chunk_id", "section_id", "parent_id", "kind", "context", "text")
_OPTIONAL = ("section_id", "parent_id", "start_offset", "end_offset", "page")
_INTS = ("chunk_index", "tokens", "start_offset", "end_offset", "page")


def holds_nul(*values: str) -> bool:
    """Whether a lookup value holds a NUL. No stored value does (:func:`check_text` refuses
    them), so a lookup by one finds nothing, on both backends, and is never sent to a
    server (PostgreSQL would refuse the text)."""
    return any("\x00" in v for v in values)


def check_text(where: str, name: str, value: Any) -> None:
    """Refuse a text field no store may hold: not a string, a NUL, a lone surrogate."""
    if not isinstance(value, str):
        raise _invalid(where, name, f"must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise _invalid(where, name, "contains a NUL character, which no store holds")
    if not _is_unicode(value):
        raise _invalid(where, name, "contains a lone surrogate, which is not Unicode text")


def check_chunk(chunk: Chunk) -> None:
    """Refuse, naming the document, chunk and field, what a chunk row cannot hold: NUL
    characters and lone surrogates (PostgreSQL text cannot), non-strings, integers beyond
    32 bits, a negative chunk_index, metadata that is not JSON."""
    for name in _STRINGS + ("tags",):
        values = chunk.tags if name == "tags" else (getattr(chunk, name),)
        for value in values:
            if value is None and name in _OPTIONAL:
                continue
            check_text(_where(chunk), name, value)
    for name in _INTS:
        value = getattr(chunk, name)
        if value is None and name in _OPTIONAL:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise _invalid(_where(chunk), name, f"must be an integer, got {value!r}")
        if int(value) not in _INT4_RANGE:
            raise _invalid(_where(chunk), name, f"{value} does not fit an integer of 32 bits")
    if chunk.chunk_index < 0:
        raise _invalid(_where(chunk), "chunk_index", "must be >= 0")
    _metadata_json(chunk)


def _metadata_json(chunk: Chunk) -> bytes:
    return metadata_json(_where(chunk), chunk.metadata)


def metadata_json(where: str, metadata: Mapping[str, Any]) -> bytes:
    """``metadata`` as JSON text, or an InvalidDocumentError that starts with ``where``."""
    try:
        text = _JSON.encode(dict(metadata))
    except (TypeError, ValueError) as exc:
        raise _invalid(where, "metadata", f"is not JSON: {exc}") from None
    # The escapes only hint (a literal backslash before "u0000" looks the same): the
    # strings themselves decide.
    if "\\u0000" in text and any("\x00" in x for x in _strings(metadata)):
        raise _invalid(where, "metadata", "contains a NUL character, which no store holds")
    if "\\ud" in text and not all(map(_is_unicode, _strings(metadata))):
        raise _invalid(where, "metadata", "contains a lone surrogate, which is not Unicode text")
    return text.encode("ascii")


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _is_unicode(value: str) -> bool:
    """Whether a string encodes as UTF-8 (no lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_document(record: DocumentRecord) -> None:
    """Refuse what a document row cannot hold, naming the document and field."""
    where = f"document {record.doc_id!r}"
    for name in ("doc_id", "title", "source", "content_hash", "ingested_at", "source_path"):
        check_text(where, name, getattr(record, name))
    if record.metadata:
        metadata_json(where, record.metadata)


def check_chunks(chunks: Sequence[Chunk], metadata: bool = True) -> None:
    """:func:`check_chunk` for many chunks: one scan of all their text and integers, and
    the chunk-by-chunk checks only to name what failed. ``metadata=False`` leaves the
    metadata to a caller that checks it as it encodes it."""
    try:
        strings = "".join([s for c in chunks for s in (
            c.doc_id, c.chunk_id, c.kind, c.context, c.text, *c.tags,
            *(x for x in (c.section_id, c.parent_id) if x is not None))])
        ints = [v for c in chunks for v in (
            c.chunk_index, c.tokens,
            *(x for x in (c.start_offset, c.end_offset, c.page) if x is not None))]
        fine = ("\x00" not in strings and (strings.isascii() or _is_unicode(strings))
                and set(map(type, ints)) <= {int}
                and (not ints or (min(ints) in _INT4_RANGE and max(ints) in _INT4_RANGE))
                and min(c.chunk_index for c in chunks) >= 0)
    except (TypeError, ValueError):
        fine = False
    for c in chunks:
        if not fine:
            check_chunk(c)
        elif metadata and c.metadata:
            _metadata_json(c)


