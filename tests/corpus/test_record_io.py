"""Reading and writing corpora: streamed, strict JSON, deterministic bytes, unknown fields kept."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from helpers import shared
from ragd.corpus import (CorpusRecord, UnsupportedSchemaVersionError, dump_record, ordered,
                         read_corpus, write_corpus)
from ragd.errors import InvalidDocumentError

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = FIXTURES / "v1-good.jsonl"


def test_read_yields_line_numbers_and_records():
    rows = list(read_corpus(GOOD))
    assert [n for n, _ in rows] == list(range(1, 8))
    line, first = rows[0]
    assert isinstance(first, CorpusRecord) and isinstance(first, dict)
    assert first.doc_id == "EAR-736.2" and first.chunk_kind == "section"
    assert first.parent_id is None and first.ordinal == 2 and first.hash == "sha256:3f7a1c"
    assert first.extra == {"x_snapshot": {"date": "2026-02-10", "parts": [736, 740]}}
    assert rows[1][1].url is None


def test_round_trip_of_the_fixture_is_byte_identical(tmp_path):
    out = tmp_path / "out.jsonl"
    assert write_corpus((r for _, r in read_corpus(GOOD)), out) == 7
    assert out.read_bytes() == GOOD.read_bytes()


@pytest.mark.slow
def test_round_trip_of_the_real_corpus_is_byte_identical(tmp_path):
    path = shared("ear-corpus", "ear-parts-736-746.v1.jsonl")
    out = tmp_path / "ear.jsonl"
    assert write_corpus((r for _, r in read_corpus(path)), out) == 3040
    assert out.read_bytes() == path.read_bytes()


def test_key_order_is_required_then_optional_then_unknown_in_original_order():
    record = {"zeta": 1, "hash": "h", "text": "t", "alpha": {"b": 1, "a": 2}, "doc_id": "EAR-736.2",
              "ordinal": 3, "schema_version": "retrieval-corpus.v1", "source_ref": "r",
              "title": "§ 736.2 — T", "section_id": "EAR-736.2", "source": "other",
              "chunk_kind": "section", "parent_id": None}
    assert list(ordered(record)) == ["schema_version", "doc_id", "section_id", "text",
                                     "chunk_kind", "source", "source_ref", "title", "parent_id",
                                     "ordinal", "hash", "zeta", "alpha"]
    line = dump_record(record)
    assert "§ 736.2 — T" in line and "\n" not in line          # ensure_ascii=False, one line
    assert json.loads(line) == record
    assert dump_record(record) == line                          # deterministic


def test_same_records_in_any_key_order_give_the_same_bytes(tmp_path):
    records = [r for _, r in read_corpus(GOOD)]
    shuffled = [dict(sorted(r.items())) for r in records]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_corpus(records, a)
    write_corpus(shuffled, b)
    assert a.read_bytes() == b.read_bytes()


def test_unknown_fields_survive(tmp_path):
    out = tmp_path / "out.jsonl"
    write_corpus((r for _, r in read_corpus(GOOD)), out)
    back = [r for _, r in read_corpus(out)]
    assert back[0]["x_snapshot"] == {"date": "2026-02-10", "parts": [736, 740]}
    assert back[2]["review_note"] == "kept as is"


def test_unsupported_schema_version_is_a_clear_error(tmp_path):
    path = tmp_path / "v2.jsonl"
    lines = GOOD.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2].replace("retrieval-corpus.v1", "retrieval-corpus.v2")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = read_corpus(path)
    next(rows), next(rows)
    with pytest.raises(UnsupportedSchemaVersionError) as caught:
        next(rows)
    assert caught.value.line == 3 and caught.value.field == "schema_version"
    assert "unsupported schema_version 'retrieval-corpus.v2'" in str(caught.value)
    assert f"{path}, line 3" in str(caught.value)


def test_bad_json_names_file_and_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(GOOD.read_text(encoding="utf-8") + '{"doc_id": \n', encoding="utf-8")
    with pytest.raises(InvalidDocumentError) as caught:
        list(read_corpus(path))
    assert caught.value.line == 8 and "invalid JSON" in str(caught.value)


def test_blank_lines_bom_crlf_and_gzip(tmp_path):
    text = GOOD.read_text(encoding="utf-8")
    lines = text.splitlines()
    messy = "\ufeff" + lines[0] + "\r\n\n   \n" + "\r\n".join(lines[1:]) + "\r\n"
    path = tmp_path / "messy.jsonl"
    path.write_bytes(messy.encode("utf-8"))
    rows = list(read_corpus(path))
    assert [n for n, _ in rows] == [1, 4, 5, 6, 7, 8, 9]
    assert [r for _, r in rows] == [json.loads(x) for x in lines]
    gz = tmp_path / "c.jsonl.gz"
    write_corpus((r for _, r in rows), gz)
    assert gzip.decompress(gz.read_bytes()) == GOOD.read_bytes()
    first = gz.read_bytes()
    write_corpus((r for _, r in rows), gz)
    assert gz.read_bytes() == first                      # fixed gzip header: same bytes
    assert [r for _, r in read_corpus(gz)] == [r for _, r in rows]


def test_lines_in_memory_and_text_streams():
    lines = GOOD.read_text(encoding="utf-8").splitlines()
    assert len(list(read_corpus(lines))) == 7
    assert len(list(read_corpus([x.encode() for x in lines]))) == 7
    buffer = io.StringIO()
    assert write_corpus((r for _, r in read_corpus(lines)), buffer) == 7
    assert buffer.getvalue() == GOOD.read_text(encoding="utf-8")


def test_write_is_atomic(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")

    def records():
        yield {"schema_version": "retrieval-corpus.v1", "doc_id": "EAR-736.2"}
        raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError):
        write_corpus(records(), out)
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_write_refuses_nan(tmp_path):
    with pytest.raises(ValueError):
        write_corpus([{"doc_id": "EAR-736.2", "ordinal": float("nan")}], tmp_path / "x.jsonl")
    assert list(tmp_path.iterdir()) == []
