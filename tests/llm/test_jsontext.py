"""Tolerant JSON reading: fences, prose, the schema's top-level type, hostile text."""

from __future__ import annotations

import time

import pytest

from ragd.llm.jsontext import NotJSONError, parse_json_text, schema_types


@pytest.mark.parametrize("text, types, expected", [
    ('{"a": 1}', ("object",), {"a": 1}),
    ('```json\n{"a": 1}\n```', ("object",), {"a": 1}),
    ('```\n[1, 2]\n```', ("array",), [1, 2]),
    ('intro ```json {"a": 1}``` outro', ("object",), {"a": 1}),
    ('Answer: {"a": {"b": [1, {"c": "}"}]}} done', ("object",), {"a": {"b": [1, {"c": "}"}]}}),
    ('{broken} then {"a": 1}', ("object",), {"a": 1}),
    ('[1] then {"a": 1}', ("object",), {"a": 1}),
    ('{"a": 1} then [1]', ("array",), [1]),
    ('{"a": 1}', (), {"a": 1}),
    ("42", ("integer",), 42),
    ("42", ("number",), 42),
    ('"yes"', ("string", "null"), "yes"),
])
def test_recovered(text: str, types: tuple[str, ...], expected: object) -> None:
    assert parse_json_text(text, types) == expected


@pytest.mark.parametrize("text, types, found", [
    ("no json here", ("object",), None),
    ('{"a": 1', ("object",), None),
    ('```json\n{"a": \n```', ("object",), None),
    ("[1, 2]", ("object",), "array"),
    ("true", ("integer",), "boolean"),
    ('{"a": 1}', ("array",), "object"),
])
def test_refused(text: str, types: tuple[str, ...], found: str | None) -> None:
    with pytest.raises(NotJSONError) as info:
        parse_json_text(text, types)
    assert info.value.found == found


@pytest.mark.parametrize("text", ["[" * 100_000, "{" * 100_000, '{"a": ' * 50_000,
                                  "{x " * 50_000])
def test_hostile_text_fails_fast(text: str) -> None:
    started = time.monotonic()
    with pytest.raises(NotJSONError):
        parse_json_text(text, ("object",))
    assert time.monotonic() - started < 2.0


@pytest.mark.parametrize("schema, types", [
    ({"type": "object"}, ("object",)),
    ({"type": ["array", "null"]}, ("array", "null")),
    ({"properties": {}}, ()),
    ({"type": "weird"}, ()),
    (None, ()),
])
def test_schema_types(schema: object, types: tuple[str, ...]) -> None:
    assert schema_types(schema) == types
