"""Pure normalisation of loaded input: bytes to text, text to canonical text, values to JSON.

Everything here is locale-independent and deterministic (for one Python/Unicode
version), so the same file gives the same document text, and hence the same
content hash and chunk ids, on every machine.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import math
import unicodedata
from typing import Any, Mapping

from ..strict_json import kind_of

SNIFF_BYTES = 8192
"""A NUL byte within this many leading bytes marks a file as binary."""

MAX_METADATA_NODES = 100_000
"""Cap on values visited in one metadata tree (defuses YAML alias bombs)."""

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _control_table() -> dict[int, str | None]:
    """Translation table: C0/C1 controls and DEL removed; vertical breaks become newlines."""
    table: dict[int, str | None] = {cp: None for cp in [*range(0x20), 0x7F, *range(0x80, 0xA0)]}
    del table[0x09], table[0x0A]          # tab and newline stay
    for cp in (0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029):  # VT, FF, CR, NEL, LS, PS: line breaks
        table[cp] = "\n"
    return table


_CONTROLS = _control_table()


class DecodeProblem(ValueError):
    """Bytes that are not UTF-8 text; ``reason`` is one line, ``code`` a category."""

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def decode_utf8(data: bytes) -> str:
    """Decode UTF-8 (a leading BOM dropped) or raise :class:`DecodeProblem` saying why not.

    Byte offsets in messages count from the start of ``data``, BOM included.
    """
    if data.startswith(_UTF16_BOMS):
        raise DecodeProblem("UTF-16/UTF-32 text (byte order mark found); convert it to UTF-8",
                            "encoding")
    nul = data.find(b"\x00", 0, SNIFF_BYTES)
    if nul != -1:
        raise DecodeProblem(f"binary file (NUL byte at byte {nul})", "binary")
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return str(memoryview(data)[start:], "utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeProblem(
            f"not valid UTF-8 at byte {start + exc.start} "
            "(a binary file or another encoding; convert it to UTF-8)", "encoding") from None


def unify_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n`` (and nothing else changes)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def normalize_text(text: str) -> str:
    """The canonical form of document text.

    Line breaks (``\\r\\n``, ``\\r``, and also VT, FF, NEL, U+2028, U+2029) become
    ``\\n``; other control characters except ``\\t`` are removed; Unicode NFC;
    trailing whitespace of every line stripped; leading and trailing blank lines
    dropped. Idempotent: ``normalize_text(normalize_text(t)) == normalize_text(t)``.
    """
    text = text.replace("\r\n", "\n").translate(_CONTROLS)
    text = unicodedata.normalize("NFC", text)
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def clean_title(value: str) -> str:
    """A title on one line: normalised, whitespace runs collapsed to one space."""
    return " ".join(normalize_text(value).split())


class UnsafeValue(ValueError):
    """A metadata value that cannot be stored as JSON; ``where`` names the key path."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


def json_safe(value: Any, where: str = "metadata") -> Any:
    """A JSON-ready copy of ``value``: dates and datetimes become ISO strings.

    Mappings need string keys; floats must be finite; anything else (sets, bytes,
    objects) raises :class:`UnsafeValue` naming the key path (``where`` is its root
    name; with ``""`` paths start at the top-level key).
    """
    budget = [MAX_METADATA_NODES]

    def convert(item: Any, path: str) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise UnsafeValue(where or "metadata", f"more than {MAX_METADATA_NODES:,} values")
        if item is None or isinstance(item, (str, bool, int)):
            return item
        if isinstance(item, float):
            if not math.isfinite(item):
                raise UnsafeValue(path, f"{item} is not a finite number")
            return item
        if isinstance(item, (_dt.date, _dt.datetime)):   # datetime is a date subclass
            return item.isoformat()
        if isinstance(item, Mapping):
            out = {}
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise UnsafeValue(path, f"key {key!r} is {kind_of(key)}, not a string")
                out[key] = convert(sub, f"{path}.{key}" if path else key)
            return out
        if isinstance(item, (list, tuple)):
            return [convert(sub, f"{path}[{i}]") for i, sub in enumerate(item)]
        raise UnsafeValue(path, f"{kind_of(item)} cannot be stored as JSON")

    try:
        return convert(value, where)
    except RecursionError:
        raise UnsafeValue(where or "metadata", "nested too deeply") from None
