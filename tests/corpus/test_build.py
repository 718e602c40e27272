"""Building retrieval-corpus.v1 files from eCFR Markdown and JSONL snapshots."""

import hashlib
import json
from pathlib import Path

import pytest

from helpers import shared
from ragd.corpus.build import (BuildReport, build_corpus, build_records, default_source_ref,
                               read_sources)
from ragd.citing.cfr_ids import normalize_id, parent_of
from ragd.errors import InvalidDocumentError, UsageError

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLE_MD = FIXTURES / "cfr-sample.md"
SNAPSHOT = FIXTURES / "cfr-snapshot.jsonl"


def validate(path: Path) -> None:
    """The other engineer's validator when present; else the contract's rules checked here."""
    try:
        from ragd.corpus import validate_corpus
    except ImportError:  # pragma: no cover - the corpus package always has it once merged
        validate_corpus = None
    if validate_corpus is not None:
        report = validate_corpus(path)
        assert report.valid, report.errors[:5]
        return
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ids = [r["doc_id"] for r in rows]
    assert len(ids) == len(set(ids))
    for r in rows:
        assert r["schema_version"] == "retrieval-corpus.v1" and r["text"].strip()
        assert normalize_id(r["doc_id"]) == r["doc_id"]
        assert r.get("parent_id") is None or r["parent_id"] in set(ids)


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def by_id(rows: list[dict]) -> dict[str, dict]:
    return {r["doc_id"]: r for r in rows}


@pytest.mark.slow
def test_real_ecfr_file_builds_byte_identical_valid_corpus(tmp_path):
    source = shared("cfr", "title15-chapterVII-parts745-799.md").parent
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    report = build_corpus([source], first)
    build_corpus([source], second)
    assert first.read_bytes() == second.read_bytes()
    validate(first)
    assert isinstance(report, BuildReport)
    rows = read(first)
    assert report.documents == len(rows)
    assert report.sections == sum(r["chunk_kind"] == "section" for r in rows) == 121
    assert report.skipped_sections == 63          # subchapter D (parts 781-799) is not the EAR
    assert all(int(r["doc_id"][4:7]) <= 774 for r in rows)

    docs = by_id(rows)
    subs = [r for r in rows if r["section_id"].startswith("EAR-764.2(")
            and r["chunk_kind"] == "subsection"]
    assert [r["doc_id"] for r in subs] == [f"EAR-764.2({c})" for c in "abcdefghijk"]
    assert {r["parent_id"] for r in subs} == {"EAR-764.2"}
    assert [r["ordinal"] for r in subs] == list(range(1, 12))
    assert docs["EAR-764.2(g)(1)"]["parent_id"] == "EAR-764.2(g)"
    assert docs["EAR-764.2(g)(1)(iii)"]["parent_id"] == "EAR-764.2(g)(1)"
    kids = [r for r in rows if r.get("parent_id") == "EAR-764.2(g)(1)"]
    assert [r["ordinal"] for r in kids] == [1, 2, 3]

    section = docs["EAR-764.2"]
    assert section["text"].startswith("15 CFR 764.2\n§ 764.2 Violations.\n\n(a) No person may")
    assert section["title"] == "§ 764.2 Violations."
    assert section["url"] == "https://www.ecfr.gov/current/title-15/section-764.2"
    g1 = docs["EAR-764.2(g)(1)"]
    assert g1["url"] == "https://www.ecfr.gov/current/title-15/section-764.2#p-764.2(g)(1)"
    assert g1["text"].startswith("15 CFR 764.2(g)(1)\n§ 764.2 Violations.\n\n(1) No person")
    assert "(iii) For the purpose" in g1["text"]          # a paragraph holds its sub-paragraphs
    assert g1["hash"] == "sha256:" + hashlib.sha256(g1["text"].encode()).hexdigest()
    assert g1["tokens_estimate"] == len(g1["text"].split())  # words, under any model
    md = shared("cfr", "title15-chapterVII-parts745-799.md").read_bytes()
    assert g1["source_ref"] == "ecfr-md-sha256:" + hashlib.sha256(md).hexdigest()[:16]
    assert all("> [" not in r["text"] and "PART" not in r["text"][:40] for r in rows)

    # every parent is the immediate container; siblings are numbered 1..n in file order
    siblings: dict[str, list[int]] = {}
    for r in rows:
        if "parent_id" in r:
            assert r["parent_id"] == parent_of(r["doc_id"])
            siblings.setdefault(r["parent_id"], []).append(r["ordinal"])
    assert all(v == list(range(1, len(v) + 1)) for v in siblings.values())


def test_markdown_fixture_structure(tmp_path):
    out = tmp_path / "c.jsonl"
    report = build_corpus([SAMPLE_MD], out)
    validate(out)
    rows = read(out)
    assert [r["doc_id"] for r in rows] == [
        "EAR-764.1", "EAR-764.2", "EAR-764.2(a)", "EAR-764.2(b)", "EAR-764.2(f)",
        "EAR-764.2(g)", "EAR-764.2(g)(1)", "EAR-764.2(g)(1)(i)", "EAR-764.2(g)(1)(ii)",
        "EAR-764.2(g)(1)(iii)", "EAR-764.2(g)(2)", "EAR-764.2(h)", "EAR-764.2(i)",
        "EAR-764.2(j)", "EAR-764.3", "EAR-764.3#p0001", "EAR-764.3(a)", "EAR-764.3(a)(1)",
        "EAR-764.3(a)(2)", "EAR-764.3(a)(2)#p0001", "EAR-764.3(b)", "EAR-764.3(b)(1)",
        "EAR-764.4"]
    assert (report.sections, report.subsections, report.paragraphs) == (4, 9, 10)
    assert report.skipped_sections == 1                      # part 791
    assert any("764.2: line" in i and "(f) after (b)" in i for i in report.issues)
    docs = by_id(rows)
    intro = docs["EAR-764.3#p0001"]
    assert (intro["section_id"], intro["parent_id"], intro["chunk_kind"]) == \
        ("EAR-764.3", "EAR-764.3", "paragraph")
    assert docs["EAR-764.3(a)"]["text"].startswith(
        "15 CFR 764.3(a)\n§ 764.3 Sanctions.\n\n(a) Civil penalties—(1) Monetary penalty.")
    assert docs["EAR-764.2(b)"]["text"].endswith("See paragraph (g)(1) of this section and "
                                                 "§ 764.3(a).")
    assert docs["EAR-764.4"]["text"] == "15 CFR 764.4\n§ 764.4 [Reserved]"
    assert docs["EAR-764.1"]["source_ref"] == default_source_ref(read_sources([SAMPLE_MD])[0])


def test_jsonl_snapshot_builds_the_same_structure(tmp_path):
    md = [r for r in build_records(read_sources([SAMPLE_MD])) if r["doc_id"] != "EAR-764.4"]
    snap = list(build_records(read_sources([SNAPSHOT])))
    keys = ("doc_id", "section_id", "parent_id", "chunk_kind", "ordinal", "title", "text", "url",
            "hash", "tokens_estimate")
    assert [[r.get(k) for k in keys] for r in snap] == [[r.get(k) for k in keys] for r in md]
    assert {r["source_ref"] for r in snap} == {"ecfr:2025-01-01:title15:part764"}
    out = tmp_path / "s.jsonl"
    build_corpus([SNAPSHOT], out)
    validate(out)


def test_source_ref_override_and_all_parts(tmp_path):
    rows = list(build_records(read_sources([SAMPLE_MD]),
                              source_ref="ecfr-2025-01-01", parts=None))
    assert {r["source_ref"] for r in rows} == {"ecfr-2025-01-01"}
    assert "EAR-791.1(a)" in by_id(rows)
    snap = list(build_records(read_sources([SNAPSHOT]), source_ref="mine"))
    assert {r["source_ref"] for r in snap} == {"mine"}


def test_directory_source_and_sorted_sections(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "b.jsonl").write_text(json.dumps(
        {"section_id": "764.10", "heading": "Ten.", "text": "(a) Ten."}) + "\n", encoding="utf-8")
    (tmp_path / "src" / "a.jsonl").write_text(json.dumps(
        {"section_id": "§ 764.9", "heading": "Nine.", "text": "(a) Nine."}) + "\n",
        encoding="utf-8")
    (tmp_path / "src" / "README.txt").write_text("ignored", encoding="utf-8")
    report = build_corpus([tmp_path / "src"], tmp_path / "out.jsonl")
    rows = read(report.out)
    assert [r["doc_id"] for r in rows] == ["EAR-764.9", "EAR-764.9(a)", "EAR-764.10",
                                           "EAR-764.10(a)"]
    assert rows[0]["title"] == "§ 764.9 Nine."
    assert [r["ordinal"] for r in rows if r["chunk_kind"] == "section"] == [1, 2]
    assert rows[0]["source_ref"].startswith("ecfr-jsonl-sha256:")


def test_bad_sources_are_reported_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"section_id": "764.2", "text": "(a) A."}\nnot json\n', encoding="utf-8")
    with pytest.raises(InvalidDocumentError, match=r"bad.jsonl.*line 2"):
        list(build_records(read_sources([bad])))
    bad.write_text('{"section_id": "764.2(b)", "text": "(a) A."}\n', encoding="utf-8")
    with pytest.raises(InvalidDocumentError, match="section_id"):
        list(build_records(read_sources([bad])))
    bad.write_text('{"section_id": "764.2", "text": " "}\n', encoding="utf-8")
    with pytest.raises(InvalidDocumentError, match="'text'"):
        list(build_records(read_sources([bad])))
    twice = r"cfr-snapshot.jsonl, line 1: section 764.1 also at .*cfr-sample.md line 23"
    with pytest.raises(InvalidDocumentError, match=twice):
        list(build_records(read_sources([SAMPLE_MD, SNAPSHOT])))
    with pytest.raises(UsageError):
        read_sources([tmp_path / "missing.md"])
    out = tmp_path / "never.jsonl"
    with pytest.raises(InvalidDocumentError):
        build_corpus([SAMPLE_MD, SNAPSHOT], out)
    assert not out.exists()
