"""Tolerant reading of the JSON a chat model wrote: code fences, prose around it, its type.

Models asked for JSON often wrap it (```json fences, "Here is the answer: {...}").
:func:`parse_json_text` recovers the value from the whole text, else from a fenced
block, else from the first ``{`` or ``[`` where a JSON value that parses begins.
Only the top-level type is checked against the schema; deeper checks belong to
the caller.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json5?|jsonc)?[ \t]*\r?\n?(.*?)```", re.S | re.I)
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "number": (int, float),
    "integer": (int,), "boolean": (bool,), "null": (type(None),),
}
_MAX_STARTS = 200  # brackets tried before giving up (bounds the work on hostile text)
_DECODER = json.JSONDecoder()


class NotJSONError(ValueError):
    """The text holds no JSON value (of the wanted type, when ``found`` names another)."""

    def __init__(self, message: str, found: str | None = None) -> None:
        super().__init__(message)
        self.found = found


def schema_types(schema: Any) -> tuple[str, ...]:
    """The top-level JSON types a schema allows (``"type"``, a name or a list), or ()."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    names = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    return tuple(n for n in names if n in _TYPES)


def type_name(value: Any) -> str:
    """The JSON type name of a parsed value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    for name in ("object", "array", "string", "number"):
        if isinstance(value, _TYPES[name]):
            return name
    return "null"


def has_type(value: Any, types: tuple[str, ...]) -> bool:
    """True when ``value`` is one of the JSON ``types`` (all types when empty)."""
    if not types:
        return True
    name = type_name(value)
    return name in types or (name == "integer" and "number" in types)


def parse_json_text(text: str, types: tuple[str, ...] = ()) -> Any:
    """The first JSON value in ``text`` of one of ``types`` (any type when empty).

    Raises :class:`NotJSONError` when there is none; its ``found`` names the type of a
    value that did parse but has the wrong type.
    """
    found: str | None = None
    for candidate in [text, *(m.group(1) for m in _FENCE.finditer(text))]:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
            continue
        if has_type(value, types):
            return value
        found = found or type_name(value)
    for tries, match in enumerate(re.finditer(r"[{\[]", text)):
        if tries >= _MAX_STARTS:
            break
        try:
            value, _ = _DECODER.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            continue
        if has_type(value, types):
            return value
        found = found or type_name(value)
    if found is not None:
        raise NotJSONError(f"a JSON {found} where the schema asks for {' or '.join(types)}",
                           found)
    raise NotJSONError("no JSON value in the text")
