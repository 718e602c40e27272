"""Legal documents: loading the Indian acts, the contract's nine rules, the legal chunkers."""

from __future__ import annotations

import json

import pytest

from helpers import shared
from ragd.chunking import chunk_document
from ragd.errors import InvalidDocumentError
from ragd.ingest.legal import LegalDocument, legal_doc_id, validate
from ragd.ingest.loaders import LoadOptions, iter_documents
from ragd.types import ChunkPolicy, Document

LEGAL = ChunkPolicy(chunker="legal")


@pytest.fixture(scope="module")
def acts():
    failures = []
    docs = list(iter_documents([shared("india")], LoadOptions(exclude=("SOURCE.txt",)),
                               on_failure=failures.append))
    assert failures == []
    return {d.metadata["act"]: d for d in docs}


def test_the_four_json_acts_load_as_documents(acts):
    assert set(acts) == {"IPC", "CrPC", "IEA", "CPC"}
    ipc = acts["IPC"]
    assert ipc.doc_id == legal_doc_id("bare_act", "IPC") and len(ipc.doc_id) == 16
    assert ipc.title == "Indian Penal Code, 1860" and ipc.metadata["year"] == 1860
    assert "Section 420. Cheating and dishonestly inducing delivery of property.\nWhoever " \
        "cheats" in ipc.text


def test_sections_subsections_explanations_and_repeals(acts):
    ipc = chunk_document(acts["IPC"], LEGAL)
    by_section = {}
    for c in ipc:
        by_section.setdefault(c.metadata["section"], []).append(c)
    [s420] = by_section["420"]
    assert (s420.section_id, s420.metadata["citation"], s420.kind) == (
        "IPC-420", "Section 420, IPC", "section")
    assert len(s420.chunk_id) == 16 and s420.chunk_id == chunk_document(
        acts["IPC"], LEGAL)[s420.chunk_index].chunk_id  # deterministic
    assert acts["IPC"].text[s420.start_offset:s420.end_offset] == s420.text
    assert all(len(v) >= 1 for v in by_section.values())
    assert {c.metadata["section"] for c in ipc} >= {"1", "302", "498A", "511"}
    assert sum(bool(c.metadata.get("repealed")) for c in ipc) >= 10
    cpc = [c for c in chunk_document(acts["CPC"], LEGAL) if c.metadata["section"] == "9"]
    kinds = [(c.kind, c.metadata["subsection"]) for c in cpc]
    assert ("explanation", "Explanation I") in kinds and ("explanation", "Explanation II") in kinds
    assert all(c.section_id == "CPC-9" for c in cpc)
    sections_per_chunk = [len({c.metadata["section"]}) for c in cpc]
    assert set(sections_per_chunk) == {1}  # never two sections in one chunk


def test_illustrations_are_separate_chunks():
    text = ("Section 1. Title.\nThis Act may be called the Test Act and extends to all places.\n\n"
            "Section 2. Theft.\nWhoever takes property dishonestly commits theft.\n"
            "Explanation 1.—A thing so long as it is attached to the earth is not movable.\n"
            "Illustrations\n(a) A cuts down a tree on Z's ground; A has committed theft.\n"
            "(b) A puts a bait for dogs in his pocket; A has committed theft.\n")
    doc = Document(doc_id="t", text=text, title="Test Act", source="t.txt",
                   metadata={"act": "IPC", "doc_type": "bare_act", "year": 1860})
    chunks = chunk_document(doc, LEGAL)
    assert [(c.metadata["section"], c.kind, c.metadata["subsection"]) for c in chunks] == [
        ("1", "section", None), ("2", "section", None),
        ("2", "explanation", "Explanation 1"), ("2", "illustration", "Illustration (a)"),
        ("2", "illustration", "Illustration (b)")]


def test_case_law_paragraphs_and_headings():
    text = ("JUDGMENT\n\n1. The appellant was convicted under Section 302 of the IPC by the "
            "trial court.\n\n2. The High Court confirmed the sentence after hearing both sides.\n\n"
            "HELD\n\n3. The conviction cannot stand because the evidence was circumstantial.\n")
    doc = Document(doc_id="c", text=text, title="A v State", source="a.md",
                   metadata={"doc_type": "case_law", "court": "Supreme Court of India",
                             "year": 2012})
    chunks = chunk_document(doc, LEGAL)
    assert [(c.metadata["paragraph"], c.metadata["heading"]) for c in chunks] == [
        (1, "JUDGMENT"), (2, "JUDGMENT"), (3, "HELD")]
    assert all(c.metadata["court"] == "Supreme Court of India" for c in chunks)


def _doc(**changes):
    base = dict(doc_id="0123456789abcdef", title="Test Act", doc_type="bare_act", act="IPC",
                court=None, year=1860, citation=None, source="t.txt",
                raw_text="Section 1. Short title.\nThis Act may be called the Test Act, 1860.")
    base.update(changes)
    return LegalDocument(**base)


@pytest.mark.parametrize("changes, rule", [
    ({"raw_text": "Section 1. Short."}, "rule 1"), ({"title": " "}, "rule 2"),
    ({"doc_type": "statute"}, "rule 3"), ({"year": 2999}, "rule 4"), ({"year": 1700}, "rule 4"),
    ({"source": ""}, "rule 5"), ({"doc_id": "not-hex"}, "rule 6"),
    ({"raw_text": "Section 1a.b. Short title.\nThis Act may be called the Test Act, 1860."},
     "rule 7"),
    ({"doc_type": "case_law", "act": None, "raw_text": "x" * 60}, "rule 8"),
    ({"act": None}, "rule 9"),
])
def test_each_rule_is_named(changes, rule):
    with pytest.raises(InvalidDocumentError, match=rule):
        validate(_doc(**changes))
    good = _doc()
    assert validate(good) is good


def test_bad_json_arrays_are_refused_naming_the_file(tmp_path):
    (tmp_path / "ipc.json").write_text(json.dumps([{"Section": "12.3.4", "section_desc": "x"}]))
    (tmp_path / "weird.json").write_text(json.dumps([{"a": 1}]))
    (tmp_path / "obj.json").write_text(json.dumps({"a": 1}))
    (tmp_path / "docs.json").write_text(json.dumps([{"id": "d1", "text": "Plain words here."}]))
    failures = []
    docs = list(iter_documents([tmp_path], LoadOptions(), on_failure=failures.append))
    reasons = {f.source.rsplit("/", 1)[-1]: f.reason for f in failures}
    assert "rule 7" in reasons["ipc.json:1"]
    assert "unrecognised JSON array" in reasons["weird.json"]
    assert "must hold an array" in reasons["obj.json"]
    assert [d.doc_id for d in docs] == ["d1"]
