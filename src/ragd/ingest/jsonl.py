"""JSONL corpora: one document per line, read as a stream (``.jsonl`` or ``.jsonl.gz``).

A record is ``{"doc_id"|"id"|"_id": str|int, "text": str, "title"?: str,
"tags"?: [str], "metadata"?: {...}, "format"?: "text"|"markdown", "section_id"?: str}``,
which covers BEIR corpora (``{_id, title, text, metadata}``). ``section_id`` names the
section the whole record is (``EAR-744.21``): every chunk of it carries it, so a citation
scheme can cite it and a question naming the section finds it. Other top-level keys go
into metadata (``metadata``'s own keys win over them). Each bad line is one
failure ``file:LINE`` and the other lines still load.
"""

from __future__ import annotations

import codecs
import gzip
import zlib
from typing import IO, Any, Iterator, cast

from ..config import DEFAULT_MAX_DOCUMENT_BYTES
from ..strict_json import LineError, kind_of, parse_line
from ..types import Document
from .base import FileRef, LoadFailure, clean_tags, too_large_reason
from .normalize import SNIFF_BYTES, clean_title, normalize_text

ID_KEYS = ("doc_id", "id", "_id")
"""Accepted id fields, by precedence; ids under the other names go to metadata."""

FORMATS = ("text", "markdown")
_READ_BYTES = 1 << 20


class _BadLine(LineError):
    """A record whose fields are wrong (code ``field`` unless said)."""

    def __init__(self, reason: str, code: str = "field") -> None:
        super().__init__(reason, code)


def _open(path: str) -> IO[bytes]:
    if path.lower().endswith(".gz"):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return open(path, "rb")


def _lines(stream: IO[bytes], limit: int) -> Iterator[tuple[bytes | None, int]]:
    """``(line, size)`` per physical line, line break dropped (and not counted); ``line`` is
    ``None`` when it is over ``limit`` bytes (then it is skipped, never held whole in memory)."""
    while True:
        line = stream.readline(limit + 2)
        if not line:
            return
        size, tail = len(line), line[-2:]
        while not tail.endswith(b"\n") and size > limit:
            more = stream.readline(_READ_BYTES)
            if not more:
                break
            size, tail = size + len(more), (tail + more)[-2:]
        if tail.endswith(b"\n"):
            size -= 2 if tail == b"\r\n" else 1
        yield (None, size) if size > limit else (line[:size], size)


def record_to_document(record: dict[str, Any], source: str) -> Document:
    """Validate one record and build its document (text normalised); :class:`_BadLine` if bad."""
    key = next((k for k in ID_KEYS if k in record), None)
    if key is None:
        raise _BadLine("missing id: give one of the fields 'doc_id', 'id' or '_id'")
    doc_id = record[key]
    if isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)):
        raise _BadLine(f"field {key!r} must be a string or an integer, got {kind_of(doc_id)}")
    doc_id = str(doc_id)
    if not doc_id.strip():
        raise _BadLine(f"field {key!r} is empty")
    if "text" not in record:
        raise _BadLine("missing field 'text'")
    if not isinstance(record["text"], str):
        raise _BadLine(f"field 'text' must be a string, got {kind_of(record['text'])}")
    title = record.get("title")
    if title is not None and not isinstance(title, str):
        raise _BadLine(f"field 'title' must be a string, got {kind_of(title)}")
    tags = record.get("tags")
    if tags is None:
        tags = []
    if not isinstance(tags, list):
        raise _BadLine(f"field 'tags' must be a list of strings, got {kind_of(tags)}")
    for i, tag in enumerate(tags):
        if not isinstance(tag, str):
            raise _BadLine(f"field 'tags' item {i + 1} is {kind_of(tag)}, not a string")
    metadata = record.get("metadata")
    if metadata is None:
        metadata = {}
    if not isinstance(metadata, dict):
        raise _BadLine(f"field 'metadata' must be an object, got {kind_of(metadata)}")
    fmt = record.get("format")
    if fmt is None:
        fmt = "text"
    if fmt not in FORMATS:
        raise _BadLine(f"field 'format' must be 'text' or 'markdown', got {fmt!r}")
    section_id = record.get("section_id")
    if section_id is not None and (not isinstance(section_id, str) or not section_id.strip()):
        raise _BadLine("field 'section_id' must be a non-empty string, got "
                       + (repr(section_id) if isinstance(section_id, str) else kind_of(section_id)))
    text = normalize_text(record["text"])
    if not text:
        raise _BadLine("empty document: field 'text' is empty", "empty")
    known = {key, "text", "title", "tags", "metadata", "format", "section_id"}
    extra = {k: v for k, v in record.items() if k not in known}
    return Document(doc_id=doc_id, text=text, title=clean_title(title or ""), source=source,
                    format=fmt, tags=clean_tags(tags), metadata={**extra, **metadata},
                    section_id=section_id.strip() if section_id else None)


def first_line(path: str, limit: int = DEFAULT_MAX_DOCUMENT_BYTES) -> bytes:
    """The first non-blank line of a (possibly gzipped) JSONL file (up to ``limit`` bytes,
    BOM removed); empty when unreadable or blank (the loader then reports why)."""
    try:
        with _open(path) as stream:
            for _ in range(1000):
                raw = stream.readline(limit)
                if not raw:
                    break
                if raw.strip():
                    return raw.removeprefix(codecs.BOM_UTF8)
    except (OSError, EOFError, zlib.error):
        pass
    return b""


def load_jsonl(ref: FileRef, limit: int) -> Iterator[Document | LoadFailure]:
    """Documents of a JSONL file, line by line; each bad line a failure ``source:LINE``.

    The whole-file size limit does not apply; a line over ``limit`` bytes is refused.
    Repeated ids within the file are failures (the first one loads).
    """
    try:
        with _open(ref.source) as stream:
            head = stream.read(SNIFF_BYTES)
    except (OSError, EOFError, zlib.error) as exc:
        yield LoadFailure(ref.source, f"cannot read: {_describe(exc)}", "unreadable")
        return
    if b"\x00" in head:
        yield LoadFailure(ref.source, f"binary file (NUL byte at byte {head.index(0)})", "binary")
        return
    seen: dict[str, int] = {}
    lineno = records = 0
    try:
        with _open(ref.source) as stream:
            for raw, size in _lines(stream, limit):
                lineno += 1
                where = f"{ref.source}:{lineno}"
                if raw is None:
                    records += 1
                    yield LoadFailure(where, too_large_reason(size, limit, "line"), "too_large")
                    continue
                if lineno == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8):]
                if not raw.strip():
                    continue
                records += 1
                try:
                    doc = record_to_document(parse_line(raw), where)
                except LineError as exc:
                    yield LoadFailure(where, exc.reason, exc.code)
                    continue
                first = seen.setdefault(doc.doc_id, lineno)
                if first != lineno:
                    yield LoadFailure(where, f"duplicate doc_id {doc.doc_id!r} "
                                      f"(first on line {first})", "duplicate")
                    continue
                yield doc
    except (OSError, EOFError, zlib.error) as exc:
        yield LoadFailure(ref.source, f"cannot read after line {lineno}: {_describe(exc)}",
                          "unreadable")
        return
    if records == 0:
        yield LoadFailure(ref.source, "empty document: the file has no records", "empty")


def _describe(exc: BaseException) -> str:
    return " ".join(str(getattr(exc, "strerror", None) or exc or type(exc).__name__).split())
