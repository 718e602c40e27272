"""One strict JSON line parser: the JSONL loader and the corpus validator word a bad line
alike (the same reason, the same byte offset), and one kind name per JSON type."""

from __future__ import annotations

import pytest

from ragd.corpus import validate_corpus
from ragd.errors import EmbedModelMismatchError
from ragd.ingest.loaders import LoadOptions, iter_documents
from ragd.strict_json import LineError, kind_of, parse_line

BAD_LINES = [
    (b'{"doc_id": "b", "text": "\xff"}', "encoding", "not valid UTF-8 at byte 25 of the line"),
    (b'{"doc_id": "b", "text": NaN}', "json", "invalid JSON: NaN is not allowed"),
    (b'{"doc_id": "b", "doc_id": "c"}', "json",
     "invalid JSON: key 'doc_id' appears twice in one object"),
    (b'[1, 2]', "json", "the line is an array, not a JSON object"),
    (b'{"doc_id": ', "json", "invalid JSON at column 12: expecting value"),
]


@pytest.mark.parametrize("raw, code, reason", BAD_LINES)
def test_both_readers_report_a_bad_line_in_the_same_words(tmp_path, raw, code, reason):
    with pytest.raises(LineError) as caught:
        parse_line(raw)
    assert (caught.value.code, caught.value.reason) == (code, reason)

    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"doc_id": "a", "text": "ok"}\n' + raw + b"\n")
    failures: list = []
    docs = list(iter_documents([path], LoadOptions(), on_failure=failures.append))
    assert [d.doc_id for d in docs] == ["a"]
    [failure] = failures
    assert (failure.source, failure.code, failure.reason) == (f"{path}:2", code, reason)

    report = validate_corpus(path)
    [error] = [e for e in report.errors if e.line == 2]
    assert reason in error.message


def test_kind_names_are_json_names():
    assert [kind_of(v) for v in (None, True, 3, 1.5, "s", [1], (1,), {"a": 1})] == [
        "null", "a boolean", "a number", "a number", "a string", "an array", "an array",
        "an object"]
    assert kind_of({1}) == "a set"


def test_one_model_mismatch_message():
    EmbedModelMismatchError.check("c", ("m", 4), ("m", 4))
    with pytest.raises(EmbedModelMismatchError, match=r"^collection 'c' is bound to embedding "
                       r"model m \(4 dims\), not n \(8 dims\)$"):
        EmbedModelMismatchError.check("c", ("m", 4), ("n", 8))
