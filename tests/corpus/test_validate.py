"""The streaming validator: one bad fixture per rule, every error reported, caps, real corpus."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import shared
from ragd.corpus import RULES, check_record, validate_corpus, validate_records
from ragd.citing.cfr_ids import ancestors, is_container
from ragd.corpus.validate import BEYOND_CONTRACT, Violation

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = FIXTURES / "v1-good.jsonl"
BAD = sorted((FIXTURES / "v1-bad").glob("*.jsonl"))


def rule_of(fixture: Path) -> str:
    """``v1-bad/<rule>.<case>.jsonl`` breaks exactly ``<rule>``."""
    return fixture.name.split(".")[0]


def good_lines() -> list[str]:
    return GOOD.read_text(encoding="utf-8").splitlines()


def test_the_good_fixture_is_valid():
    report = validate_corpus(GOOD)
    assert report.valid and report.documents == 7 and report.errors == ()
    assert report.errors_total == 0 and dict(report.errors_by_rule) == {}


def test_every_rule_has_a_bad_fixture():
    assert {rule_of(f) for f in BAD} == set(RULES)
    assert set(BEYOND_CONTRACT) <= set(RULES)


@pytest.mark.parametrize("fixture", BAD, ids=[f.stem for f in BAD])
def test_each_bad_fixture_breaks_exactly_its_rule(fixture):
    report = validate_corpus(fixture)
    assert not report.valid
    assert dict(report.errors_by_rule) == {rule_of(fixture): 1}, report.errors
    (error,) = report.errors
    assert error.rule == rule_of(fixture) and error.line == 6 and error.message
    assert error.format(str(fixture)).startswith(f"{fixture}:6: ")


@pytest.mark.parametrize("fixture, where", [
    ("doc_id_pattern.uppercase_label", ("EAR-736.2(C)", "doc_id", "canonical form: 'EAR-736.2(c)'")),
    ("parent_pattern.cfr_form", ("EAR-736.2(c)", "parent_id", "canonical form: 'EAR-736.2'")),
    ("schema_version.v2", ("EAR-736.2(c)", "schema_version", "unsupported schema_version")),
    ("duplicate_doc_id.repeated_line", ("EAR-736.2(a)", "doc_id", "line 4")),
    ("parent_not_immediate.skips_subsection", ("EAR-736.2(b)(2)", "parent_id", "'EAR-736.2(b)'")),
    ("text_empty.null", ("EAR-736.2(c)", "text", "null")),
    ("type.ordinal_string", ("EAR-736.2(c)", "ordinal", "integer")),
    ("json.truncated", (None, None, "invalid JSON at column")),
])
def test_errors_say_where_and_what(fixture, where):
    (error,) = validate_corpus(FIXTURES / "v1-bad" / f"{fixture}.jsonl").errors
    doc_id, field, words = where
    assert (error.doc_id, error.field) == (doc_id, field)
    assert words in error.message


def test_every_error_of_a_document_is_reported():
    record = json.loads(good_lines()[0])
    record.update(doc_id="EAR-736.2(B)", section_id="736.2", text="  ", chunk_kind="part",
                  source="web", source_ref="", ordinal="2", title=5)
    del record["schema_version"]
    rules = sorted(rule for _, rule, _ in check_record(record))
    assert rules == sorted(["required", "doc_id_pattern", "section_id_pattern", "text_empty",
                            "chunk_kind_enum", "source_enum", "source_ref_empty", "type",
                            "type"])


def test_parent_missing_is_settled_at_the_end_and_reported_at_the_referring_line():
    lines = good_lines()
    child = json.loads(lines[1])                    # EAR-736.2(b)(1) -> EAR-736.2(b), ahead
    assert child["parent_id"] == "EAR-736.2(b)"
    assert validate_corpus(lines).valid             # a forward reference is fine
    without_parent = [x for x in lines if '"doc_id": "EAR-736.2(b)",' not in x]
    report = validate_corpus(without_parent)
    missing = [e for e in report.errors if e.rule == "parent_missing"]
    assert [(e.line, e.doc_id) for e in missing] == [(2, "EAR-736.2(b)(1)"),
                                                     (4, "EAR-736.2(b)#p0001")]


def test_errors_are_capped_but_all_counted():
    lines = good_lines()
    broken = [x.replace('"ecfr_snapshot"', '"crawl"') for x in lines] * 3
    report = validate_corpus(broken, max_errors=4)
    assert report.errors_total == 6 * 3 + 7 * 2   # 6 bad sources a copy; copies 2, 3 repeat ids
    assert len(report.errors) == 4 and report.truncated
    assert report.errors_by_rule == {"source_enum": 18, "duplicate_doc_id": 14}
    assert [e.line for e in report.errors] == sorted(e.line for e in report.errors)
    none = validate_corpus(broken, max_errors=0)
    assert none.errors == () and none.errors_total == report.errors_total


def test_report_as_dict_is_json():
    report = validate_corpus(FIXTURES / "v1-bad" / "suffix.uppercase.jsonl")
    data = json.loads(json.dumps(report.as_dict()))
    assert data["valid"] is False and data["documents"] == 6 and data["errors_total"] == 1
    assert data["errors"][0]["rule"] == "suffix" and data["errors_by_rule"] == {"suffix": 1}
    assert str(report.errors[0]).startswith("line 6: EAR-736.2(c)#P0001 doc_id: [suffix]")


def test_null_optional_fields_count_as_absent():
    record = json.loads(good_lines()[0])
    record.update(title=None, url=None, parent_id=None, ordinal=None, tokens_estimate=None,
                  hash=None)
    assert check_record(record) == []


def test_integer_rules():
    base = json.loads(good_lines()[0])
    for value, ok in ((0, True), (-1, True), (10**30, True), (True, False), (1.0, False),
                      ("1", False), ([1], False)):
        assert (check_record({**base, "ordinal": value}) == []) is ok, value
        assert (check_record({**base, "tokens_estimate": value}) == []) is ok, value


def test_validate_records_in_memory():
    records = [json.loads(x) for x in good_lines()]
    assert validate_records(records).valid
    records[6]["doc_id"] = records[0]["doc_id"]       # EAR-740.9 (no parent) takes EAR-736.2
    report = validate_records(records)
    assert {e.rule for e in report.errors} == {"duplicate_doc_id", "doc_id_section"}


def test_undecodable_and_non_object_lines():
    lines = [x.encode() for x in good_lines()] + [b'{"text": "\xff"}', b"42", b"null"]
    report = validate_corpus(lines)
    assert report.errors_by_rule == {"json": 3} and report.documents == 10
    assert "UTF-8" in report.errors[0].message and "a number" in report.errors[1].message


def test_violation_is_frozen():
    error = Violation(1, "EAR-736.2", "text", "text_empty", "text is empty")
    with pytest.raises(AttributeError):
        error.line = 2  # type: ignore[misc]


@pytest.mark.slow
def test_the_real_corpus_is_valid():
    report = validate_corpus(shared("ear-corpus", "ear-parts-736-746.v1.jsonl"))
    assert report.valid, report.errors[:5]
    assert report.documents == 3040


def test_a_reversed_corpus_is_still_valid():
    assert validate_corpus(list(reversed(good_lines()))).valid   # parents may come later


_label = st.sampled_from(["a", "b", "1", "10", "ii", "iv"])


@st.composite
def id_pairs(draw) -> tuple[str, str]:
    """A canonical doc id and a candidate parent: one of its containers, or a near miss."""
    labels = draw(st.lists(_label, max_size=4))
    section = "EAR-736.2" + "".join(f"({x})" for x in labels)
    doc_id = section + draw(st.sampled_from(["", "#p0001"]))
    cut = draw(st.integers(0, len(labels)))
    candidates = ["EAR-736.2" + "".join(f"({x})" for x in labels[:cut]), "EAR-736.20",
                  "EAR-736.2(b)#p0001", "EAR-736", "EAR-736.2.1", section + "(zz)", section]
    return doc_id, draw(st.sampled_from(candidates))


@given(id_pairs())
def test_the_container_test_is_ancestors(pair):
    doc_id, parent = pair
    assert is_container(parent, doc_id) is (parent in ancestors(doc_id))
