"""Write a resolved profile back as TOML (``ragd profiles show``, ``ragd calibrate``).

Covers what profiles hold: tables, strings, numbers, booleans, dates and lists of
them; a table of scalars only becomes an inline table when it sits in a list.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Mapping

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(key: str) -> str:
    return key if _BARE.match(key) else _string(key)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _is_table(v: Any) -> bool:
    return isinstance(v, Mapping)


def to_toml(data: Mapping[str, Any]) -> str:
    """TOML text whose ``tomllib.loads`` equals ``data``."""
    lines: list[str] = []
    _emit(data, (), lines)
    return "\n".join(lines).strip() + "\n"


def _inline(key: str, value: Mapping[str, Any], path: tuple[str, ...]) -> bool:
    """Written as ``key = { ... }``: an empty table, or a small table of scalars."""
    return not value or (bool(path) and key in ("weights", "options")
                         and all(not _is_table(x) for x in value.values()))


def _emit(table: Mapping[str, Any], path: tuple[str, ...], lines: list[str]) -> None:
    inline = [(k, v) for k, v in table.items() if not _is_table(v) or _inline(k, v, path)]
    nested = [(k, v) for k, v in table.items() if _is_table(v) and not _inline(k, v, path)]
    if path and (inline or not nested):
        lines.append("")
        lines.append("[" + ".".join(_key(p) for p in path) + "]")
    for k, v in inline:
        lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in nested:
        _emit(v, path + (k,), lines)
