"""The rows of a Postgres bulk write, encoded by ragd: chunks as binary ``COPY`` data,
documents as one JSON array (what a row may hold is checked by :mod:`ragd.stores.rows`).

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
from typing import Callable, Sequence

import numpy as np

from ..types import Chunk
from .base import DocumentRecord
from .postgres_sql import CHUNK_COLUMNS, WRITE_COLUMNS
from .rows import _metadata_json

SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
TRAILER = b"\xff\xff"
TEXT_OID = 25
_LEN = struct.Struct(">i")
_INT4 = struct.Struct(">ii")          # length 4, value
_ARRAY = struct.Struct(">iiiiii")     # length, ndim 1, no NULLs, element oid, size, lower bound 1
_NULL = _LEN.pack(-1)
_EMPTY_TAGS = _LEN.pack(12) + struct.pack(">iii", 0, 0, TEXT_OID)
_EMPTY_JSON = _LEN.pack(3) + b"\x01{}"   # jsonb: format version 1, then the JSON text
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


def documents_json(records: Sequence[DocumentRecord], now: str) -> str:
    """The document rows of a bulk write as one JSON array, for ``jsonb_to_recordset``:
    one parameter instead of an array per column, which psycopg dumps value by value.
    ``now`` stands in for an empty ``ingested_at``. The records have passed
    :func:`~ragd.stores.rows.check_document`."""
    return _JSON.encode([{"doc_id": r.doc_id, "title": r.title, "source": r.source,
                          "metadata": dict(r.metadata), "content_hash": r.content_hash,
                          "ingested_at": r.ingested_at or now, "source_path": r.source_path}
                         for r in records])


def _int4(value: int) -> bytes:
    return _INT4.pack(4, value)


def _optional(encode: Callable[[object], bytes], name: str) -> Callable[[Chunk], bytes]:
    def field(chunk: Chunk) -> bytes:
        value = getattr(chunk, name)
        return _NULL if value is None else encode(value)  # type: ignore[arg-type]
    return field


_ENCODERS: dict[str, Callable[[Chunk], bytes]] = {
    "doc_id": lambda c: _text(c.doc_id),
    "chunk_index": lambda c: _int4(c.chunk_index),
    "chunk_id": lambda c: _text(c.chunk_id),
    "section_id": _optional(_text, "section_id"),  # type: ignore[arg-type]
    "parent_id": _optional(_text, "parent_id"),  # type: ignore[arg-type]
    "kind": lambda c: _text(c.kind),
    "context": lambda c: _text(c.context),
    "text": lambda c: _text(c.text),
    "tags": lambda c: _tags(c.tags),
    "metadata": _json,
    "tokens": lambda c: _int4(c.tokens),
    "start_offset": _optional(_int4, "start_offset"),  # type: ignore[arg-type]
    "end_offset": _optional(_int4, "end_offset"),  # type: ignore[arg-type]
    "page": _optional(_int4, "page"),  # type: ignore[arg-type]
}
"""How each chunk column is encoded; rows follow ``postgres_sql.WRITE_COLUMNS``, so the SQL
decides the order and the field count, and a column without an encoder fails here."""

if WRITE_COLUMNS != ("collection_id", *CHUNK_COLUMNS, "embedding", "tsv") or (
        set(_ENCODERS) != set(CHUNK_COLUMNS)):  # pragma: no cover - a schema change
    raise ImportError("pg_copy encodes collection_id, the chunk columns, embedding and tsv: "
                      f"postgres_sql.WRITE_COLUMNS is {WRITE_COLUMNS}, encoders are for "
                      f"{sorted(_ENCODERS)}")
FIELDS = len(WRITE_COLUMNS)
_CHUNK_FIELDS = tuple(_ENCODERS[name] for name in CHUNK_COLUMNS)


def chunk_rows(cid: int, chunks: Sequence[Chunk], vectors: np.ndarray,
               lexical: Sequence[bytes]) -> bytes:
    """The binary COPY rows of ``chunks``, in ``postgres_sql.WRITE_COLUMNS`` order, without
    the signature and trailer. ``vectors`` is the (n, dims) float32 matrix, ``lexical`` each
    chunk's binary tsvector; the chunks have passed :func:`~ragd.stores.rows.check_chunks`."""
    n, dims = vectors.shape
    if n != len(chunks) or n != len(lexical):
        raise ValueError(f"{len(chunks)} chunks, {n} vectors, {len(lexical)} tsvectors")
    head = struct.pack(">h", FIELDS) + _INT4.pack(4, int(cid))
    vector_head = _LEN.pack(4 + 4 * dims) + struct.pack(">HH", dims, 0)
    floats = memoryview(np.ascontiguousarray(vectors, dtype=">f4").tobytes())
    width = 4 * dims
    parts: list[bytes | memoryview] = []
    add = parts.extend
    for i, (c, tsv) in enumerate(zip(chunks, lexical)):
        parts.append(head)
        add([encode(c) for encode in _CHUNK_FIELDS])
        add((vector_head, floats[i * width:(i + 1) * width], _LEN.pack(len(tsv)), tsv))
    return b"".join(parts)
