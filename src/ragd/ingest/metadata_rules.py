"""Metadata rules of a profile: fields a document must carry, their types and allowed values.

A pure check run before a document is chunked: a document that breaks a rule
is rejected with an InvalidDocumentError naming the file and the field, and the
ingest goes on with the next one. Dates are ISO dates (``2025-09-14``; front
matter dates arrive as ISO strings already).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Mapping

from ..errors import InvalidDocumentError
from ..types import Document

_TYPES = {
    "string": lambda v: isinstance(v, str) and bool(v.strip()),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "date": lambda v: _is_date(v),
}
_NAMES = {"string": "a non-empty string", "integer": "an integer", "number": "a number",
          "boolean": "true or false", "date": "an ISO date (YYYY-MM-DD)"}


def _is_date(value: Any) -> bool:
    if isinstance(value, _dt.date):
        return True
    if not isinstance(value, str):
        return False
    try:
        _dt.date.fromisoformat(value.strip()[:10])
    except ValueError:
        return False
    return len(value.strip()) == 10 or value.strip()[10:11] in ("T", " ")


def check_metadata(doc: Document, rules: Mapping[str, Mapping[str, Any]]) -> None:
    """InvalidDocumentError (naming file and field) unless ``doc`` follows every rule."""
    where = doc.source or doc.doc_id
    missing = sorted(f for f, r in rules.items() if r.get("required") and f not in doc.metadata)
    if missing:
        raise InvalidDocumentError(
            f"missing required metadata {', '.join(repr(m) for m in missing)} (put it in the "
            "front matter)", source=where, field=missing[0])
    for name in sorted(rules):
        if name not in doc.metadata:
            continue
        value, rule = doc.metadata[name], rules[name]
        kind = rule.get("type")
        if kind and not _TYPES[kind](value):
            raise InvalidDocumentError(f"metadata {name!r} must be {_NAMES[kind]}, got {value!r}",
                                       source=where, field=name)
        allowed = rule.get("enum")
        if allowed is not None and value not in allowed:
            raise InvalidDocumentError(
                f"metadata {name!r} is {value!r}; allowed: {', '.join(map(str, allowed))}",
                source=where, field=name)
