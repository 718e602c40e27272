"""The rows of a Postgres bulk write, encoded by ragd: chunks as binary ``COPY`` data,
documents as one JSON array; and the checks that name what a row cannot hold.

The bulk path streams chunks with ``COPY … FROM STDIN (FORMAT BINARY)``. Going through
psycopg's per-value adapters cost about 50 µs per chunk (pgvector's and ``Jsonb``'s dumpers
are Python); encoding the rows here, with every vector of the batch converted to
big-endian in one numpy call, costs a few µs.

The format (PostgreSQL's "Binary Format" of COPY): an 11-byte signature, an int32 flags
field and an int32 header-extension length (:data:`SIGNATURE`); per row an int16 field
count, then per field an int32 byte length (-1 for NULL) and the value in the type's
binary ``recv`` format; an int16 -1 at the end (:data:`TRAILER`). All big-endian.
"""

from __future__ import annotations

import json
import struct
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from ..errors import UsageError
from ..types import Chunk
from .base import DocumentRecord

SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
TRAILER = b"\xff\xff"
TEXT_OID = 25
FIELDS = 17  # columns per row: postgres_sql.WRITE_COLUMNS
_LEN = struct.Struct(">i")
_INT4 = struct.Struct(">ii")          # length 4, value
_ARRAY = struct.Struct(">iiiiii")     # length, ndim 1, no NULLs, element oid, size, lower bound 1
_NULL = _LEN.pack(-1)
_EMPTY_TAGS = _LEN.pack(12) + struct.pack(">iii", 0, 0, TEXT_OID)
_EMPTY_JSON = _LEN.pack(3) + b"\x01{}"   # jsonb: format version 1, then the JSON text
_INT4_RANGE = range(-(1 << 31), 1 << 31)
_JSON = json.JSONEncoder(allow_nan=False)  # json.dumps builds an encoder per call for options


def _text(value: str) -> bytes:
    data = value.encode("utf-8")
    return _LEN.pack(len(data)) + data


def _tags(tags: Sequence[str]) -> bytes:
    if not tags:
        return _EMPTY_TAGS
    items = [_text(t) for t in tags]
    size = 20 + sum(map(len, items))
    return _ARRAY.pack(size, 1, 0, TEXT_OID, len(items), 1) + b"".join(items)


def _json(chunk: Chunk) -> bytes:
    if not chunk.metadata:
        return _EMPTY_JSON
    data = _metadata_json(chunk)
    return _LEN.pack(len(data) + 1) + b"\x01" + data


def _where(chunk: Chunk) -> str:
    return f"document {chunk.doc_id!r}, chunk {chunk.chunk_index}"


_STRINGS = ("doc_id", "chunk_id", "section_id", "parent_id", "kind", "context", "text")
_OPTIONAL = ("section_id", "parent_id", "start_offset", "end_offset", "page")
_INTS = ("chunk_index", "tokens", "start_offset", "end_offset", "page")


def _check_text(where: str, name: str, value: Any) -> None:
    """Refuse a text field PostgreSQL cannot store: not a string, a NUL, a lone surrogate."""
    if not isinstance(value, str):
        raise UsageError(f"{where}: {name} must be a string, got {type(value).__name__}")
    if "\x00" in value:
        raise UsageError(f"{where}: {name} contains a NUL character, which PostgreSQL "
                         "cannot store")
    if not _is_unicode(value):
        raise UsageError(f"{where}: {name} contains a lone surrogate, which is not Unicode "
                         "text PostgreSQL can store")


def check_chunk(chunk: Chunk) -> None:
    """Refuse, naming the document, chunk and field, what a chunk row cannot hold: NUL
    characters and lone surrogates (PostgreSQL text cannot), non-strings, integers beyond
    32 bits, a negative chunk_index, metadata that is not JSON."""
    for name in _STRINGS + ("tags",):
        values = chunk.tags if name == "tags" else (getattr(chunk, name),)
        for value in values:
            if value is None and name in _OPTIONAL:
                continue
            _check_text(_where(chunk), name, value)
    for name in _INTS:
        value = getattr(chunk, name)
        if value is None and name in _OPTIONAL:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise UsageError(f"{_where(chunk)}: {name} must be an integer, got {value!r}")
        if int(value) not in _INT4_RANGE:
            raise UsageError(f"{_where(chunk)}: {name} {value} does not fit a PostgreSQL "
                             "integer (32 bits)")
    if chunk.chunk_index < 0:
        raise UsageError(f"{_where(chunk)}: chunk_index must be >= 0")
    _metadata_json(chunk)


def _metadata_json(chunk: Chunk) -> bytes:
    return metadata_json(_where(chunk), chunk.metadata)


def metadata_json(where: str, metadata: Mapping[str, Any]) -> bytes:
    """``metadata`` as JSON text, or a UsageError that starts with ``where``."""
    try:
        text = _JSON.encode(dict(metadata))
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: metadata is not JSON: {exc}") from None
    # The escapes only hint (a literal backslash before "u0000" looks the same): the
    # strings themselves decide.
    if "\\u0000" in text and any("\x00" in x for x in _strings(metadata)):
        raise UsageError(f"{where}: metadata contains a NUL character, which PostgreSQL "
                         "cannot store")
    if "\\ud" in text and not all(map(_is_unicode, _strings(metadata))):
        raise UsageError(f"{where}: metadata contains a lone surrogate, which is not Unicode "
                         "text PostgreSQL can store")
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
        _check_text(where, name, getattr(record, name))
    if record.metadata:
        metadata_json(where, record.metadata)


def documents_json(records: Sequence[DocumentRecord], now: str) -> str:
    """The document rows of a bulk write as one JSON array, for ``jsonb_to_recordset``:
    one parameter instead of an array per column, which psycopg dumps value by value.
    ``now`` stands in for an empty ``ingested_at``. The records have passed
    :func:`check_document`."""
    return _JSON.encode([{"doc_id": r.doc_id, "title": r.title, "source": r.source,
                          "metadata": dict(r.metadata), "content_hash": r.content_hash,
                          "ingested_at": r.ingested_at or now, "source_path": r.source_path}
                         for r in records])


def check_chunks(chunks: Sequence[Chunk], metadata: bool = True) -> None:
    """:func:`check_chunk` for many chunks: one scan of all their text and integers, and
    the chunk-by-chunk checks only to name what failed. ``metadata=False`` leaves the
    metadata to :func:`chunk_rows`, which encodes it with the same checks."""
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


def chunk_rows(cid: int, chunks: Sequence[Chunk], vectors: np.ndarray,
               lexical: Sequence[bytes]) -> bytes:
    """The binary COPY rows of ``chunks``, 17 fields in ``postgres_sql.WRITE_COLUMNS``
    order, without the signature and trailer. ``vectors`` is the (n, dims) float32 matrix, ``lexical`` each chunk's
    binary tsvector; the chunks have passed :func:`check_chunks`."""
    n, dims = vectors.shape
    if n != len(chunks) or n != len(lexical):
        raise ValueError(f"{len(chunks)} chunks, {n} vectors, {len(lexical)} tsvectors")
    head = struct.pack(">h", FIELDS) + _INT4.pack(4, int(cid))
    vector_head = _LEN.pack(4 + 4 * dims) + struct.pack(">HH", dims, 0)
    floats = memoryview(np.ascontiguousarray(vectors, dtype=">f4").tobytes())
    width = 4 * dims
    int4, text, null = _INT4.pack, _text, _NULL
    parts: list[bytes | memoryview] = []
    add = parts.extend
    for i, (c, tsv) in enumerate(zip(chunks, lexical)):
        add((head, text(c.doc_id), int4(4, c.chunk_index), text(c.chunk_id),
             null if c.section_id is None else text(c.section_id),
             null if c.parent_id is None else text(c.parent_id),
             text(c.kind), text(c.context), text(c.text), _tags(c.tags), _json(c),
             int4(4, c.tokens),
             null if c.start_offset is None else int4(4, c.start_offset),
             null if c.end_offset is None else int4(4, c.end_offset),
             null if c.page is None else int4(4, c.page),
             vector_head, floats[i * width:(i + 1) * width], _LEN.pack(len(tsv)), tsv))
    return b"".join(parts)
