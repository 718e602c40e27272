"""The JSON Schema of one document line agrees with the Python validator where it can."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.corpus import (CANONICAL_PATTERN, CHUNK_KINDS, OPTIONAL_FIELDS, REQUIRED_FIELDS,
                         RULES, SECTION_PATTERN, SOURCES, check_record, load_schema, schema_path,
                         validate_corpus)

jsonschema = pytest.importorskip("jsonschema")

FIXTURES = Path(__file__).parent / "fixtures"
BAD = sorted((FIXTURES / "v1-bad").glob("*.jsonl"))

SCHEMA_BLIND = {"json", "duplicate_doc_id", "parent_missing", "parent_not_immediate",
                "doc_id_section", "parent_self", "parent_not_container"}
"""Rules JSON Schema cannot express: across lines, between two fields, or before parsing."""
SCHEMA_BLIND_CASES = {"type.ordinal_fraction"}
"""JSON Schema's data model has 1.0 == 1, an integer; the validator refuses a fraction."""


@pytest.fixture(scope="module")
def validator():
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def schema_verdict(validator, path: Path) -> bool:
    with path.open(encoding="utf-8") as stream:
        return all(validator.is_valid(json.loads(line)) for line in stream if line.strip())


def test_schema_file_is_packaged_and_draft_2020_12():
    assert schema_path().is_file()
    schema = load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["required"] == list(REQUIRED_FIELDS)
    assert set(schema["properties"]) == set(REQUIRED_FIELDS) | set(OPTIONAL_FIELDS)
    assert schema["properties"]["schema_version"] == {"const": "retrieval-corpus.v1"}
    assert schema["properties"]["chunk_kind"]["enum"] == list(CHUNK_KINDS)
    assert schema["properties"]["source"]["enum"] == list(SOURCES)
    assert schema.get("additionalProperties", True) is True


def test_schema_patterns_are_the_python_patterns():
    props = load_schema()["properties"]
    assert props["doc_id"]["pattern"] == CANONICAL_PATTERN.pattern
    assert props["parent_id"]["pattern"] == CANONICAL_PATTERN.pattern
    assert props["section_id"]["pattern"] == SECTION_PATTERN.pattern


def test_description_lists_what_the_schema_cannot_express():
    description = load_schema()["description"]
    for rule in SCHEMA_BLIND:
        assert rule in description, rule
    assert "1.0" in description
    assert SCHEMA_BLIND <= set(RULES)


def test_good_fixture_is_valid_for_both(validator):
    good = FIXTURES / "v1-good.jsonl"
    assert schema_verdict(validator, good) and validate_corpus(good).valid


@pytest.mark.parametrize("fixture", [f for f in BAD if not f.name.startswith("json.")],
                         ids=lambda f: f.stem)
def test_same_verdict_on_every_bad_fixture(validator, fixture):
    assert not validate_corpus(fixture).valid
    blind = fixture.name.split(".")[0] in SCHEMA_BLIND or fixture.stem in SCHEMA_BLIND_CASES
    assert schema_verdict(validator, fixture) is blind


def test_trailing_newline_in_an_id_is_refused_by_both(validator):
    record = json.loads((FIXTURES / "v1-good.jsonl").read_text(encoding="utf-8").splitlines()[0])
    for field in ("doc_id", "section_id"):
        bad = {**record, field: record[field] + "\n"}
        assert not validator.is_valid(bad) and check_record(bad)


# -- the schema and check_record agree on random records ------------------------------------
_IDS = ["EAR-736.2", "EAR-736.2(b)", "EAR-736.2(b)#p0001", "EAR-736.2(B)", "736.2", "EAR-736",
        "EAR-736.2#", "EAR-736.2#P1", "EAR-736.2(b)(1)\n", "", " ", "EAR-73.2", 5, None, True]
_TEXTS = ["text", "", "   ", "\u00a0\n", "\u2003x", "\x1c", 0, None, ["a"]]
_VALUES = {
    "schema_version": st.sampled_from(["retrieval-corpus.v1", "retrieval-corpus.v2", "", 1,
                                       None]),
    "doc_id": st.sampled_from(_IDS),
    "section_id": st.sampled_from(_IDS),
    "text": st.sampled_from(_TEXTS),
    "chunk_kind": st.sampled_from(list(CHUNK_KINDS) + ["Section", "", 3, None]),
    "source": st.sampled_from(list(SOURCES) + ["crawl", None, False]),
    "source_ref": st.sampled_from(_TEXTS),
    "title": st.sampled_from(["t", "", None, 1]),
    "url": st.sampled_from(["u", None, {}]),
    "hash": st.sampled_from(["h", None, 0]),
    "parent_id": st.sampled_from(_IDS),
    "ordinal": st.sampled_from([0, 3, -1, 2**70, None, True, "1", 1.5]),
    "tokens_estimate": st.sampled_from([0, 12, None, False, "12", 2.5]),
}


@st.composite
def records(draw) -> dict:
    record = {}
    for name, values in _VALUES.items():
        required = name in REQUIRED_FIELDS
        if draw(st.integers(0, 9)) < (9 if required else 5):
            record[name] = draw(values)
    if draw(st.booleans()):
        record["extra"] = {"anything": [1, None]}
    return record


@settings(max_examples=600)
@given(records())
def test_schema_and_check_record_agree(validator, record):
    expressible = [rule for _, rule, _ in check_record(record) if rule not in SCHEMA_BLIND]
    assert validator.is_valid(record) is (not expressible), (record, expressible)
