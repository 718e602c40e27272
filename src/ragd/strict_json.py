"""Strict JSON lines, read the same way everywhere: one JSON object per line, UTF-8, no
NaN/Infinity, no key twice (an ambiguous record cannot be checked). Used by the JSONL
loader (``ingest/jsonl.py``), the retrieval-corpus.v1 reader and validator
(``corpus/io.py``, ``corpus/validate.py``) and the evaluation sets (``read_objects``), so all
count bad bytes and word errors alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any


class LineError(ValueError):
    """A line that is not one strict JSON object (or a record with a bad field): ``reason``
    says why, ``code`` is the failure code (``encoding``, ``json``, or ``field``)."""

    def __init__(self, reason: str, code: str = "json") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def kind_of(value: Any) -> str:
    """A short JSON name for a value's type, for messages ("an array", "a number")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise LineError(f"invalid JSON: key {key!r} appears twice in one object")
            seen.add(key)
    return obj


def _constant(name: str) -> Any:
    raise LineError(f"invalid JSON: {name} is not allowed")


_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant)
"""One strict decoder for every line (``json.loads`` with hooks builds a new one per call)."""


def parse_line(raw: str | bytes) -> dict[str, Any]:
    """The JSON object of one line, or :class:`LineError` (bad UTF-8, bad JSON, not an
    object). A bad byte is reported by its offset in the line (0 for the first byte, as
    the loaders report bad bytes in files; a column is counted without the line break)."""
    raw = raw.rstrip(b"\r\n") if isinstance(raw, bytes) else raw.rstrip("\r\n")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LineError(f"not valid UTF-8 at byte {exc.start} of the line",
                            "encoding") from None
    try:
        value = _DECODER.decode(raw)
    except json.JSONDecodeError as exc:
        raise LineError(f"invalid JSON at column {exc.colno}: "
                        f"{exc.msg.removesuffix(' at').lower()}") from None
    except RecursionError:
        raise LineError("invalid JSON: nested too deeply") from None
    if type(value) is not dict:
        raise LineError(f"the line is {kind_of(value)}, not a JSON object")
    return value


def read_objects(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of a small JSON-lines file (question
    sets, labelled sets), skipping ``{"header": ...}`` lines; a bad line is an
    ``InvalidDocumentError`` naming the file and line."""
    from .errors import InvalidDocumentError

    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = parse_line(raw)
            except LineError as exc:
                raise InvalidDocumentError(exc.reason, source=str(path), line=number) from None
            if not row.get("header"):
                yield number, row
