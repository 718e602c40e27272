"""Question files (QA golden sets, labelled calibration sets) read strictly: a bad line is an
InvalidDocumentError naming the file, the line and, where it is one field, the field."""

from __future__ import annotations

import json

import pytest

from ragd.errors import InvalidDocumentError
from ragd.evaluation.calibrate import load_labelled
from ragd.evaluation.qa import load_golden

GOOD = {"id": "q1", "question": "What is theft?", "expected_not_found": False,
        "expected_sections": ["IPC 378"]}


def write(tmp_path, *lines: bytes | str):
    path = tmp_path / "set.jsonl"
    path.write_bytes(b"".join((x.encode() if isinstance(x, str) else x) + b"\n" for x in lines))
    return path


@pytest.mark.parametrize("loader", [load_golden, load_labelled])
def test_headers_and_blank_lines_are_skipped_and_rows_kept_in_order(tmp_path, loader):
    second = dict(GOOD, id="q2", expected_not_found=True, expected_sections=[])
    path = write(tmp_path, json.dumps({"header": {"v": 1}}), "", json.dumps(GOOD), "  ",
                 json.dumps(second))
    rows = loader(path)
    assert [r.id for r in rows] == ["q1", "q2"]


@pytest.mark.parametrize("loader", [load_golden, load_labelled])
@pytest.mark.parametrize("bad, line, words", [
    ("{not json", 2, "invalid JSON at column"),
    ('["an", "array"]', 2, "not a JSON object"),
    ('{"id": "q9", "id": "q8", "question": "x", "expected_not_found": false}', 2, "appears twice"),
    ('{"id": "q9", "question": NaN, "expected_not_found": false}', 2, "NaN is not allowed"),
    (b'{"id": "q9", "question": "caf\xe9", "expected_not_found": false}', 2, "not valid UTF-8"),
    ('{"id": 7, "question": "x", "expected_not_found": false}', 2, "field 'id'"),
    (json.dumps(GOOD), 2, "duplicate id 'q1'"),
])
def test_a_bad_line_names_file_and_line(tmp_path, loader, bad, line, words):
    path = write(tmp_path, json.dumps(GOOD), bad)
    with pytest.raises(InvalidDocumentError) as err:
        loader(path)
    message = str(err.value)
    assert message.startswith(f"{path}, line {line}"), message
    assert words in message, message


def test_golden_lists_must_hold_strings(tmp_path):
    path = write(tmp_path, json.dumps(dict(GOOD, must_include=["a", 3])))
    with pytest.raises(InvalidDocumentError, match="line 1, field 'must_include'"):
        load_golden(path)
