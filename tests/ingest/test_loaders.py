"""Loaders: text, Markdown (front matter), JSONL; walking, filters, symlinks, limits, failures."""

from __future__ import annotations

import gzip
import json
import logging
import os
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import SHARED_DATA
from ragd.errors import DocumentTooLargeError, InvalidDocumentError, UsageError
from ragd.ingest.loaders import LoadFailure, LoadOptions, iter_documents, normalize_text

ASVS = SHARED_DATA / "markdown-asvs"
SCIFACT = SHARED_DATA / "scifact" / "corpus.jsonl.gz"


def load(paths, **options):
    """All documents and failures of one call (tests only: real callers stream)."""
    failures: list[LoadFailure] = []
    docs = list(iter_documents(paths, LoadOptions(**options), on_failure=failures.append))
    return docs, failures


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def by_source(failures: list[LoadFailure]) -> dict[str, LoadFailure]:
    return {f.source: f for f in failures}


# --- plain text -------------------------------------------------------------------------------

def test_text_file_in_a_directory(tmp_path):
    write(tmp_path / "sub" / "a.txt", "\n\n  Short title  \nbody line\n")
    docs, failures = load([tmp_path])
    assert failures == []
    [doc] = docs
    assert doc.doc_id == "sub/a.txt"
    assert doc.title == "Short title"
    assert doc.format == "text"
    assert doc.source == os.path.join(str(tmp_path), "sub", "a.txt")
    assert doc.text == "  Short title\nbody line"


def test_text_file_given_directly_uses_its_name_and_long_first_line_gives_stem(tmp_path):
    path = write(tmp_path / "dir" / "notes.text", "x" * 121 + "\nmore\n")
    docs, failures = load([str(path)])
    assert failures == []
    [doc] = docs
    assert doc.doc_id == "notes.text"
    assert doc.title == "notes"
    assert doc.source == str(path)


def test_title_of_exactly_120_chars_is_kept(tmp_path):
    path = write(tmp_path / "t.txt", "y" * 120 + "\n")
    [doc], _ = load([path])
    assert doc.title == "y" * 120


# --- markdown and front matter ----------------------------------------------------------------

def test_markdown_front_matter_mapping(tmp_path):
    write(tmp_path / "rules.md", (
        "---\n"
        "title: Game Rules\n"
        "tags: [core, 2024]\n"
        "id: rules-v1\n"
        "author: Ann\n"
        "published: 2024-01-05\n"
        "updated: 2024-01-05T10:20:30Z\n"
        "nested: {a: [1, 2.5, true, null]}\n"
        "---\n"
        "# Heading ignored for title\n\nBody text.\n"))
    [doc], failures = load([tmp_path])
    assert failures == []
    assert doc.doc_id == "rules-v1"
    assert doc.title == "Game Rules"
    assert doc.format == "markdown"
    assert doc.tags == ("core", "2024")
    assert dict(doc.metadata) == {
        "author": "Ann", "published": "2024-01-05", "updated": "2024-01-05T10:20:30+00:00",
        "nested": {"a": [1, 2.5, True, None]}}
    json.dumps(dict(doc.metadata))      # JSON-ready
    assert doc.text == "# Heading ignored for title\n\nBody text."


def test_markdown_tags_as_comma_string_and_doc_id_key_and_dots_closer(tmp_path):
    write(tmp_path / "a.markdown", "---\ndoc_id: 42\ntags: 'a, b ,, a'\n...\nHello\n")
    [doc], failures = load([tmp_path])
    assert failures == []
    assert (doc.doc_id, doc.tags, doc.title, doc.text) == ("42", ("a", "b"), "a", "Hello")


def test_markdown_title_from_first_h1_not_inside_code_fence(tmp_path):
    write(tmp_path / "x.md", "intro\n\n```bash\n# not a title\n```\n\n## Sub\n\n# Real Title #\n")
    write(tmp_path / "y.md", "Setext Title\n============\n\ntext\n")
    write(tmp_path / "z.md", "no heading here\n")
    docs, failures = load([tmp_path])
    assert failures == []
    assert [d.title for d in docs] == ["Real Title", "Setext Title", "z"]


@pytest.mark.parametrize("front, expected", [
    ("- a\n- b\n", "must be a mapping of keys to values, got an array"),
    ("just a string\n", "must be a mapping of keys to values, got a string"),
    ("42\n", "got a number"),
])
def test_front_matter_that_is_not_a_mapping_is_a_failure(tmp_path, front, expected):
    write(tmp_path / "bad.md", f"---\n{front}---\nbody\n")
    write(tmp_path / "good.md", "# Good\n")
    docs, failures = load([tmp_path])
    assert [d.doc_id for d in docs] == ["good.md"]
    [failure] = failures
    assert failure.source == str(tmp_path / "bad.md")
    assert expected in failure.reason
    assert failure.code == "front_matter"


def test_invalid_yaml_front_matter_names_the_file_line(tmp_path):
    write(tmp_path / "bad.md", "---\ntitle: ok\nkey: [unclosed\nother: 1\n---\nbody\n")
    docs, [failure] = load([tmp_path])
    assert docs == []
    assert "invalid YAML in front matter at line" in failure.reason
    # PyYAML points at the line where the flow sequence turned out unclosed (file line 5,
    # the closing '---' being outside the YAML); any line of the block is 2..5.
    line = int(failure.reason.split("at line ")[1].split(":")[0])
    assert 3 <= line <= 5

    write(tmp_path / "bad.md", "---\ntitle: ok\n  bad: indent\n---\nbody\n")
    _, [failure] = load([tmp_path])
    assert "at line 3:" in failure.reason
    assert str(failure).startswith(str(tmp_path / "bad.md") + ": ")


def test_unclosed_front_matter_is_a_failure(tmp_path):
    write(tmp_path / "open.md", "---\ntitle: x\nbody without end\n")
    _, [failure] = load([tmp_path])
    assert "never closed" in failure.reason


@pytest.mark.parametrize("line, expected", [
    ("when: !!set {a, b}", "front matter key 'when'"),
    ("big: .inf", "not a finite number"),
    ("1: one", "front matter key 1 is a number, not a string"),
    ("blob: !!binary aGVsbG8=", "cannot be stored as JSON"),
])
def test_front_matter_values_json_cannot_hold_are_failures(tmp_path, line, expected):
    write(tmp_path / "m.md", f"---\n{line}\n---\nbody\n")
    docs, [failure] = load([tmp_path])
    assert docs == []
    assert expected in failure.reason
    assert failure.code == "metadata"


@pytest.mark.parametrize("front, expected", [
    ("title: [a, b]", "'title' must be a string"),
    ("tags: {a: 1}", "'tags' must be a list of strings"),
    ("tags: [a, [b]]", "'tags' item 2 is an array"),
    ("id: ''", "'id' must be a non-empty string or integer"),
    ("id: a\ndoc_id: b", "two different ids"),
])
def test_front_matter_special_keys_are_checked(tmp_path, front, expected):
    write(tmp_path / "m.md", f"---\n{front}\n---\nbody\n")
    _, [failure] = load([tmp_path])
    assert expected in failure.reason


def test_empty_front_matter_and_front_matter_only(tmp_path):
    write(tmp_path / "a.md", "---\n---\n# A\n")
    write(tmp_path / "b.md", "---\ntitle: B\n---\n\n   \n")
    docs, failures = load([tmp_path])
    assert [d.title for d in docs] == ["A"]
    assert [(f.source, f.code) for f in failures] == [(str(tmp_path / "b.md"), "empty")]


def test_a_thematic_break_that_is_not_front_matter(tmp_path):
    write(tmp_path / "a.md", "text first\n---\nmore\n")
    [doc], _ = load([tmp_path])
    assert doc.text == "text first\n---\nmore"


# --- decoding and normalisation ---------------------------------------------------------------

def test_bom_is_stripped(tmp_path):
    write(tmp_path / "a.txt", b"\xef\xbb\xbfTitle\nbody\n")
    write(tmp_path / "b.md", b"\xef\xbb\xbf---\r\ntitle: FM\r\n---\r\nbody\r\n")
    docs, failures = load([tmp_path])
    assert failures == []
    assert [(d.title, d.text) for d in docs] == [("Title", "Title\nbody"), ("FM", "body")]


def test_crlf_cr_controls_nfc_and_trailing_whitespace(tmp_path):
    raw = "Caf\u0065\u0301 \t\r\nline2\rline3\x00\x07x\x1b\ttab\u00a0 \r\n\x0cpage\n"
    write(tmp_path / "a.txt", raw.replace("\x00", ""))
    [doc], _ = load([tmp_path])
    assert doc.text == "Caf\u00e9\nline2\nline3x\ttab\n\npage"
    assert normalize_text(raw) == "Caf\u00e9\nline2\nline3x\ttab\n\npage"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60)
       | st.text(alphabet="a \t\r\n\x00\x0b\x0c\x85\u2028e\u0301\u00a0", max_size=30))
def test_normalize_text_properties(text):
    out = normalize_text(text)
    assert normalize_text(out) == out                                   # idempotent
    assert unicodedata.is_normalized("NFC", out)
    assert all(ch in "\n\t" or unicodedata.category(ch) != "Cc" for ch in out)
    assert all(line == line.rstrip() for line in out.split("\n"))
    assert not out.startswith("\n") and not out.endswith("\n")


def test_normalize_text_rules():
    assert normalize_text("a\r\nb\rc\n") == "a\nb\nc"
    assert normalize_text("\n\n  x  \n\n") == "  x"
    assert normalize_text("a\u0085b\u2028c") == "a\nb\nc"
    assert normalize_text("e\u0301") == "\u00e9"
    assert normalize_text("del\x7f and c1\x9b gone") == "del and c1 gone"
    assert normalize_text("\t") == ""
    text = "x\u200b y"                           # format characters (Cf) are kept
    assert normalize_text(text) == text


def test_invalid_utf8_reports_byte_offset(tmp_path):
    write(tmp_path / "latin1.txt", "caf\u00e9 ok".encode("latin-1"))
    write(tmp_path / "bom.txt", b"\xef\xbb\xbfab\xc3")
    docs, failures = load([tmp_path])
    assert docs == []
    reasons = {Path(f.source).name: f.reason for f in failures}
    assert reasons["latin1.txt"].startswith("not valid UTF-8 at byte 3 ")
    assert reasons["bom.txt"].startswith("not valid UTF-8 at byte 5 ")
    assert all(f.code == "encoding" for f in failures)


def test_binary_files_are_failures(tmp_path):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"
    write(tmp_path / "image.txt", png)
    write(tmp_path / "nul.md", b"# Title\n" + b"a" * 100 + b"\x00rest")
    write(tmp_path / "utf16.txt", "hello".encode("utf-16"))
    docs, failures = load([tmp_path])
    assert docs == []
    reasons = {Path(f.source).name: (f.code, f.reason) for f in failures}
    assert reasons["image.txt"] == ("binary", "binary file (NUL byte at byte 8)")
    assert reasons["nul.md"] == ("binary", "binary file (NUL byte at byte 108)")
    assert reasons["utf16.txt"][0] == "encoding" and "UTF-16" in reasons["utf16.txt"][1]


def test_empty_and_whitespace_only_files_are_failures(tmp_path):
    write(tmp_path / "empty.txt", b"")
    write(tmp_path / "blank.md", " \n\t\r\n\x00"[:-1])
    write(tmp_path / "ok.txt", "fine")
    docs, failures = load([tmp_path])
    assert [d.doc_id for d in docs] == ["ok.txt"]
    assert sorted((Path(f.source).name, f.code) for f in failures) == [
        ("blank.md", "empty"), ("empty.txt", "empty")]
    assert all("empty document" in f.reason for f in failures)


# --- size limit -------------------------------------------------------------------------------

def test_file_over_the_size_limit_is_refused_with_a_clear_message(tmp_path, monkeypatch):
    write(tmp_path / "big.txt", "x" * 101)
    write(tmp_path / "fits.txt", "y" * 100)
    real_open = open

    def guarded_open(path, *args, **kwargs):
        assert not str(path).endswith("big.txt"), "size must be checked before reading"
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", guarded_open)
    docs, [failure] = load([tmp_path], max_document_bytes=100)
    assert [d.doc_id for d in docs] == ["fits.txt"]
    assert failure.source == str(tmp_path / "big.txt")
    assert failure.code == "too_large"
    for part in ("101 bytes", "limit of 100 bytes", "max_document_bytes", "--max-document-mb"):
        assert part in failure.reason
    error = failure.as_error()
    assert isinstance(error, DocumentTooLargeError)
    assert str(error).startswith(str(tmp_path / "big.txt"))


def test_jsonl_is_exempt_from_the_file_limit_but_not_per_line(tmp_path):
    lines = [json.dumps({"id": f"d{i}", "text": "t" * 40}) for i in range(5)]
    lines.insert(2, json.dumps({"id": "huge", "text": "h" * 500}))
    write(tmp_path / "c.jsonl", "\n".join(lines) + "\n")
    docs, [failure] = load([tmp_path], max_document_bytes=100)
    assert [d.doc_id for d in docs] == ["d0", "d1", "d2", "d3", "d4"]
    assert failure.source == f"{tmp_path / 'c.jsonl'}:3"
    assert failure.code == "too_large" and "line is" in failure.reason


def test_jsonl_line_limit_boundary(tmp_path):
    def line(doc_id, size):                      # a JSON line of exactly `size` bytes
        head = json.dumps({"id": doc_id, "text": ""})[:-2]
        return head + "x" * (size - len(head) - 2) + '"}'
    limit = 80
    write(tmp_path / "c.jsonl", "\r\n".join([line("fits", limit), line("over", limit + 1),
                                              line("last", limit)]))
    docs, [failure] = load([tmp_path], max_document_bytes=limit)
    assert [d.doc_id for d in docs] == ["fits", "last"]
    assert failure.source.endswith("c.jsonl:2") and "81 bytes" in failure.reason


def test_invalid_options_are_usage_errors():
    with pytest.raises(UsageError):
        LoadOptions(max_document_bytes=0)
    with pytest.raises(UsageError):
        LoadOptions(include=("",))
    with pytest.raises(UsageError, match="metadata"):
        LoadOptions(metadata={"x": {1, 2}})


# --- JSONL ------------------------------------------------------------------------------------

def test_jsonl_good_lines_load_and_each_bad_line_is_reported(tmp_path):
    lines = [
        '{"doc_id": "a", "text": "Alpha", "title": "A", "tags": ["t1"], '
        '"metadata": {"k": 1}, "lang": "en", "format": "markdown"}',   # 1 ok
        '{"id": 7, "text": "Seven"}',                                   # 2 ok, int id
        '',                                                             # 3 blank
        '{"_id": "b", "text": "Beta", "title": "B", "metadata": {}}',   # 4 ok (BEIR)
        '{"doc_id": "c", "text": "x"',                                  # 5 invalid JSON
        '["not", "an", "object"]',                                      # 6 not object
        '{"text": "no id"}',                                            # 7 missing id
        '{"id": "  ", "text": "x"}',                                    # 8 empty id
        '{"id": "d"}',                                                  # 9 missing text
        '{"id": "e", "text": 5}',                                       # 10 text not str
        '{"id": "f", "text": "x", "tags": "t"}',                        # 11 tags wrong
        '{"id": "g", "text": "x", "metadata": [1]}',                    # 12 metadata wrong
        '{"id": "h", "text": "x", "format": "pdf"}',                    # 13 format wrong
        '{"id": "a", "text": "again"}',                                 # 14 duplicate
        '{"id": true, "text": "x"}',                                    # 15 bool id
        '{"id": "i", "text": NaN}',                                     # 16 NaN
        '{"id": "j", "text": "x", "text": "y"}',                        # 17 repeated key
        '{"id": "k", "text": "   "}',                                   # 18 empty text
        '{"id": "l", "text": "x", "tags": ["ok", 3]}',                  # 19 tag item
        '{"id": "z", "text": "Last"}',                                  # 20 ok
    ]
    path = write(tmp_path / "corpus.jsonl", "\n".join(lines) + "\n")
    docs, failures = load([path])
    assert [d.doc_id for d in docs] == ["a", "7", "b", "z"]
    a = docs[0]
    assert (a.title, a.tags, a.format, a.text) == ("A", ("t1",), "markdown", "Alpha")
    assert dict(a.metadata) == {"k": 1, "lang": "en"}
    assert a.source == f"{path}:1"
    assert docs[2].title == "B" and docs[2].source == f"{path}:4"
    got = {int(f.source.rsplit(":", 1)[1]): f.reason for f in failures}
    assert sorted(got) == list(range(5, 20))
    expected = {
        5: "invalid JSON at column", 6: "the line is an array, not a JSON object",
        7: "missing id", 8: "field 'id' is empty", 9: "missing field 'text'",
        10: "field 'text' must be a string, got a number",
        11: "field 'tags' must be a list of strings, got a string",
        12: "field 'metadata' must be an object, got an array",
        13: "field 'format' must be 'text' or 'markdown'",
        14: "duplicate doc_id 'a' (first on line 1)",
        15: "field 'id' must be a string or an integer, got a boolean",
        16: "NaN is not allowed", 17: "key 'text' appears twice",
        18: "field 'text' is empty", 19: "field 'tags' item 2 is a number",
    }
    for line, text in expected.items():
        assert text in got[line], (line, got[line])
    assert all(f.source.startswith(f"{path}:") for f in failures)


def test_jsonl_section_id_is_the_documents_section_and_every_chunk_carries_it(tmp_path):
    from ragd.chunking.dispatch import chunk_document
    from ragd.types import ChunkPolicy

    long_text = "\n\n".join(f"Paragraph {i} says something about rule {i}. " * 20 for i in range(6))
    path = write(tmp_path / "c.jsonl", "\n".join([
        json.dumps({"id": "s", "section_id": " EAR-744.21 ", "text": long_text}),
        '{"id": "n", "text": "no section"}',
        '{"id": "e", "section_id": "  ", "text": "x"}',
        '{"id": "w", "section_id": 744, "text": "x"}',
    ]) + "\n")
    docs, failures = load([path])
    assert [(d.doc_id, d.section_id) for d in docs] == [("s", "EAR-744.21"), ("n", None)]
    assert "section_id" not in docs[0].metadata
    assert {f.source.rsplit(":", 1)[1]: f.reason for f in failures} == {
        "3": "field 'section_id' must be a non-empty string, got '  '",
        "4": "field 'section_id' must be a non-empty string, got a number"}
    chunks = chunk_document(docs[0], ChunkPolicy(target_tokens=64, overlap_tokens=0, max_unit_tokens=80))
    assert len(chunks) > 1 and {c.section_id for c in chunks} == {"EAR-744.21"}
    assert {c.section_id for c in chunk_document(docs[1])} == {None}


def test_jsonl_id_precedence_and_other_id_keys_go_to_metadata(tmp_path):
    path = write(tmp_path / "c.jsonl", '{"_id": "x", "id": 3, "doc_id": "main", "text": "t"}\n')
    [doc], _ = load([path])
    assert doc.doc_id == "main"
    assert dict(doc.metadata) == {"_id": "x", "id": 3}


def test_jsonl_gz_crlf_and_bom(tmp_path):
    body = "\ufeff" + "\r\n".join(json.dumps({"_id": str(i), "title": f"T{i}", "text": f"x{i}"})
                                  for i in range(3)) + "\r\n"
    path = tmp_path / "c.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8", newline="") as handle:
        handle.write(body)
    docs, failures = load([tmp_path])
    assert failures == []
    assert [(d.doc_id, d.title, d.text) for d in docs] == [
        ("0", "T0", "x0"), ("1", "T1", "x1"), ("2", "T2", "x2")]
    assert docs[1].source == f"{path}:2"


def test_truncated_gzip_reports_after_loading_what_it_could(tmp_path):
    data = gzip.compress(("\n".join(json.dumps({"id": str(i), "text": "w " * 50})
                                    for i in range(2000)) + "\n").encode())
    write(tmp_path / "c.jsonl.gz", data[: len(data) // 2])
    docs, failures = load([tmp_path])
    assert 0 < len(docs) < 2000
    assert failures[-1].source == str(tmp_path / "c.jsonl.gz")
    assert failures[-1].code == "unreadable"


def test_jsonl_binary_and_empty_files(tmp_path):
    write(tmp_path / "bin.jsonl", b'{"id": "a"}\n\x00\x01')
    write(tmp_path / "blank.jsonl", "\n\n  \n")
    docs, failures = load([tmp_path])
    assert docs == []
    assert [(Path(f.source).name, f.code) for f in failures] == [
        ("bin.jsonl", "binary"), ("blank.jsonl", "empty")]


def test_jsonl_invalid_utf8_line(tmp_path):
    write(tmp_path / "c.jsonl", b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "\xff"}\n')
    docs, [failure] = load([tmp_path])
    assert [d.doc_id for d in docs] == ["a"]
    assert failure.source.endswith("c.jsonl:2")
    assert failure.reason == "not valid UTF-8 at byte 21 of the line"


# --- walking: order, filters, hidden files, symlinks ------------------------------------------

def test_deterministic_byte_order_and_paths_in_given_order(tmp_path):
    root = tmp_path / "r"
    for rel in ("a.txt", "a-b.txt", "a/b.txt", "B.txt", "\u00e9.txt", "z/y/x.txt", "a/a.md"):
        write(root / rel, f"text of {rel}")
    other = write(tmp_path / "first.txt", "given first")
    docs, _ = load([other, root])
    order = [d.doc_id for d in docs]
    assert order == ["first.txt", "B.txt", "a-b.txt", "a.txt", "a/a.md", "a/b.txt", "z/y/x.txt",
                     "\u00e9.txt"]
    assert order[1:] == sorted(order[1:], key=lambda rel: rel.encode("utf-8"))
    assert [d.doc_id for d in load([other, root])[0]] == order


def test_include_and_exclude_globs(tmp_path):
    for rel in ("a.md", "b.txt", "docs/c.md", "docs/drafts/d.md", "e.docx", "notes/e.md"):
        write(tmp_path / rel, f"# {rel}\n")
    ids = lambda **kw: [d.doc_id for d in load([tmp_path], **kw)[0]]  # noqa: E731
    assert ids() == ["a.md", "b.txt", "docs/c.md", "docs/drafts/d.md", "notes/e.md"]
    assert ids(include=("*.md",)) == ["a.md", "docs/c.md", "docs/drafts/d.md", "notes/e.md"]
    assert ids(include=("**/*.md",), exclude=("drafts",)) == ["a.md", "docs/c.md", "notes/e.md"]
    assert ids(include=("docs/*",), exclude=("docs/drafts/*",)) == ["docs/c.md"]
    assert ids(exclude=("*.md",)) == ["b.txt"]
    assert ids(include=("b.txt", "notes/*")) == ["b.txt", "notes/e.md"]
    # an unsupported file is reported (not silently dropped), unless the filters leave it out
    _, [failure] = load([tmp_path])
    assert (failure.source, failure.code) == (str(tmp_path / "e.docx"), "unsupported")
    assert "unsupported file type '.docx'" in failure.reason and ".md" in failure.reason
    assert load([tmp_path], include=("*.md",))[1] == []
    assert load([tmp_path], exclude=("*.docx",))[1] == []
    _, failures = load([tmp_path], include=("*.docx",))
    assert [(f.source, f.code) for f in failures] == [(str(tmp_path / "e.docx"), "unsupported")]


def test_filters_apply_to_files_given_directly_and_unsupported_is_a_failure(tmp_path):
    md = write(tmp_path / "a.md", "# A\n")
    pdf = write(tmp_path / "a.docx", "PK")
    assert load([md], exclude=("a.*",)) == ([], [])
    assert load([md], include=("*.txt",)) == ([], [])
    docs, [failure] = load([md, pdf])
    assert [d.doc_id for d in docs] == ["a.md"]
    assert failure.source == str(pdf) and "unsupported file type" in failure.reason


def test_hidden_files_and_directories_are_skipped(tmp_path):
    write(tmp_path / ".hidden.txt", "secret")
    write(tmp_path / ".git" / "notes.md", "# git")
    write(tmp_path / "sub" / ".cache" / "x.txt", "cache")
    write(tmp_path / "visible.txt", "shown")
    docs, failures = load([tmp_path], include=("*",))
    assert [d.doc_id for d in docs] == ["visible.txt"]
    assert failures == []


def test_symlinks_inside_followed_outside_reported_not_followed(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(outside / "secret.txt", "do not load")
    write(outside / "dir" / "inner.md", "# no")
    write(root / "real" / "doc.txt", "inside doc")
    (root / "alias.txt").symlink_to(root / "real" / "doc.txt")
    (root / "linked").symlink_to(root / "real", target_is_directory=True)
    (root / "leak.txt").symlink_to(outside / "secret.txt")
    (root / "leakdir").symlink_to(outside / "dir", target_is_directory=True)
    (root / "dangling.md").symlink_to(root / "missing.md")
    docs, failures = load([root])
    assert [d.doc_id for d in docs] == ["alias.txt", "real/doc.txt"]
    assert all("do not load" not in d.text for d in docs)
    reasons = {Path(f.source).name: f.reason for f in failures}
    assert set(reasons) == {"leak.txt", "leakdir", "linked", "dangling.md"}
    assert reasons["leak.txt"].startswith("symlink leaves the root")
    assert reasons["leakdir"].startswith("symlink leaves the root")
    assert "walked under its own path" in reasons["linked"]  # 'real' is walked as itself
    assert reasons["dangling.md"].startswith("broken symlink")
    assert all(f.code == "symlink" for f in failures)


def test_symlinked_directory_into_a_hidden_one_is_walked_once(tmp_path):
    root = tmp_path / "root"
    write(root / ".store" / "v2" / "doc.md", "# Doc")
    (root / "current").symlink_to(root / ".store" / "v2", target_is_directory=True)
    (root / "latest").symlink_to(root / ".store" / "v2", target_is_directory=True)
    docs, [failure] = load([root])
    assert [d.doc_id for d in docs] == ["current/doc.md"]
    assert failure.source == str(root / "latest") and "already walked" in failure.reason


def test_symlink_loop_terminates(tmp_path):
    root = tmp_path / "root"
    write(root / "a" / "doc.txt", "x")
    (root / "a" / "up").symlink_to(root, target_is_directory=True)
    (root / "a" / "self").symlink_to(root / "a", target_is_directory=True)
    (root / "l1.txt").symlink_to(root / "l2.txt")
    (root / "l2.txt").symlink_to(root / "l1.txt")
    docs, failures = load([root])
    assert [d.doc_id for d in docs] == ["a/doc.txt"]
    assert {Path(f.source).name for f in failures} == {"up", "self", "l1.txt", "l2.txt"}


def test_a_fifo_is_ignored_in_a_walk_and_refused_when_given(tmp_path):
    write(tmp_path / "ok.txt", "fine")
    os.mkfifo(tmp_path / "pipe.txt")
    docs, failures = load([tmp_path])           # would hang if the fifo were opened
    assert [d.doc_id for d in docs] == ["ok.txt"] and failures == []
    with pytest.raises(UsageError, match="not a regular file"):
        iter_documents([tmp_path / "pipe.txt"])


def test_unreadable_directory_and_file_are_failures(tmp_path, monkeypatch):
    write(tmp_path / "locked" / "a.txt", "x")
    write(tmp_path / "secret.txt", "y")
    write(tmp_path / "ok.txt", "z")
    real_scandir, real_open = os.scandir, open

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def fake_open(path, *args, **kwargs):
        if str(path).endswith("secret.txt"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr("builtins.open", fake_open)     # works as root too, unlike chmod
    docs, failures = load([tmp_path])
    assert [d.doc_id for d in docs] == ["ok.txt"]
    assert [(Path(f.source).name, f.code, f.reason) for f in failures] == [
        ("locked", "unreadable", "cannot read directory: Permission denied"),
        ("secret.txt", "unreadable", "cannot read: Permission denied")]


# --- the call itself --------------------------------------------------------------------------

def test_missing_path_is_a_usage_error_before_any_work(tmp_path):
    write(tmp_path / "a.txt", "x")
    with pytest.raises(UsageError, match="does-not-exist"):
        iter_documents([tmp_path, tmp_path / "does-not-exist"])   # raised at the call
    with pytest.raises(UsageError):
        iter_documents([])


def test_a_single_path_string_is_accepted(tmp_path):
    write(tmp_path / "a.txt", "x")
    assert [d.doc_id for d in iter_documents(str(tmp_path))] == ["a.txt"]


def test_streaming_reads_lazily(tmp_path):
    write(tmp_path / "a.txt", "first")
    write(tmp_path / "b.txt", "")
    failures: list[LoadFailure] = []
    stream = iter_documents([tmp_path], on_failure=failures.append)
    assert next(stream).doc_id == "a.txt"
    assert failures == []                      # b.txt not read yet
    assert list(stream) == [] and len(failures) == 1


def test_options_tags_and_metadata_are_merged_caller_wins(tmp_path):
    write(tmp_path / "a.md", "---\ntags: [x, shared]\nlang: de\nkeep: 1\n---\nbody\n")
    options = LoadOptions(tags=("shared", "batch"), metadata={"lang": "en"})
    [doc] = iter_documents([tmp_path], options)
    assert doc.tags == ("x", "shared", "batch")
    assert dict(doc.metadata) == {"lang": "en", "keep": 1}


def test_duplicate_doc_id_across_files_is_a_failure_first_wins(tmp_path):
    write(tmp_path / "a.jsonl", '{"id": "same", "text": "from a"}\n')
    write(tmp_path / "b.md", "---\nid: same\n---\nfrom b\n")
    docs, [failure] = load([tmp_path])
    assert [d.text for d in docs] == ["from a"]
    assert failure.code == "duplicate"
    assert failure.source == str(tmp_path / "b.md")
    assert str(tmp_path / "a.jsonl") in failure.reason


def test_failures_are_logged_without_a_callback(tmp_path, caplog):
    write(tmp_path / "e.txt", "")
    with caplog.at_level(logging.WARNING, logger="ragd.ingest"):
        assert list(iter_documents([tmp_path])) == []
    assert "e.txt: empty document" in caplog.text


def test_load_failure_as_error():
    error = LoadFailure("f.jsonl:3", "missing field 'text'", "field").as_error()
    assert type(error) is InvalidDocumentError
    assert str(error) == "f.jsonl:3: missing field 'text'"


def test_register_loader_adds_a_format(tmp_path, monkeypatch):
    from ragd.ingest import loaders
    from ragd.types import Document

    def load_csv(ref, options):
        yield Document(doc_id=ref.rel, text=Path(ref.source).read_text(), format="text")

    monkeypatch.setattr(loaders.LOADERS, "_items", dict(loaders.LOADERS._items))
    write(tmp_path / "t.csv", "a,b")
    docs, [failure] = load([tmp_path])
    assert docs == [] and failure.code == "unsupported"
    loaders.register_loader(".CSV", load_csv)
    assert ".csv" in loaders.supported_suffixes()
    docs, failures = load([tmp_path])
    assert failures == []
    assert [(d.doc_id, d.text) for d in docs] == [("t.csv", "a,b")]
    with pytest.raises(UsageError):
        loaders.register_loader("csv", load_csv)


# --- real data --------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(not ASVS.is_dir(), reason="ASVS markdown not present")
def test_real_asvs_markdown_chapters():
    docs, failures = load([ASVS], include=("0x*.md",))
    assert failures == []
    assert len(docs) == 27
    titles = {d.doc_id: d.title for d in docs}
    assert titles["0x16-V7-Session-Management.md"] == "V7 Session Management"
    assert titles["0x17-V8-Authorization.md"] == "V8 Authorization"
    assert titles["0x90-Appendix-A_Glossary.md"] == "Appendix A: Glossary"
    assert all(d.format == "markdown" and d.text.startswith("# ") for d in docs)
    assert [d.doc_id for d in docs] == sorted(titles)


@pytest.mark.slow
@pytest.mark.skipif(not SCIFACT.is_file(), reason="SciFact corpus not present")
def test_real_scifact_jsonl_gz():
    docs, failures = load([SCIFACT])
    assert failures == []
    assert len(docs) == 5183
    assert len({d.doc_id for d in docs}) == 5183
    assert all(d.title and d.text for d in docs)
    assert docs[0].doc_id == "4983"
    assert docs[0].title.startswith("Microstructural development of human newborn")
    assert docs[0].source == f"{SCIFACT}:1"
