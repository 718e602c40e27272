"""Re-ingest of unchanged PDFs: a file whose fingerprint, place and run settings are those
recorded for it is counted unchanged without being read (no pypdfium2 child process);
anything that could change its document makes it read again."""

from __future__ import annotations

import importlib

import pytest
from support.pdfs import make_pdf

from ragd import open_collection
from ragd.embedding.toy import ToyEmbedder
from ragd.ingest.loaders import LoadOptions
from ragd.ingest.pipeline import SOURCE_KEY, ingest
from ragd.types import ChunkPolicy

pdf_module = importlib.import_module("ragd.ingest.pdf")

WORDS = ("audit", "trail", "records", "signature", "batch", "release", "page", "text")


@pytest.fixture
def reads(monkeypatch):
    """The PDFs actually read (extract_pages calls), by path."""
    seen: list[str] = []
    real = pdf_module.extract_pages

    def counting(path, *args, **kwargs):
        seen.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(pdf_module, "extract_pages", counting)
    return seen


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "pdfs"
    (root / "fda").mkdir(parents=True)
    (root / "ich").mkdir()
    (root / "fda" / "a.pdf").write_bytes(make_pdf([["Audit trail records page text."],
                                                   ["Signature page text here."]]))
    (root / "ich" / "b.pdf").write_bytes(make_pdf([["Batch release page text."]]))
    return root


@pytest.fixture
def coll(tmp_path):
    c = open_collection(tmp_path / "store", "c", ToyEmbedder(WORDS), create=True,
                        profile="pharma-qa")
    yield c
    c.close()


def counts(report):
    return report.new, report.changed, report.unchanged, report.failed


def test_an_unchanged_folder_is_not_read_again(folder, coll, reads):
    assert counts(ingest([folder], coll)) == (2, 0, 0, 0)
    assert len(reads) == 2
    record = coll.store.get_document(coll.name, "fda/a.pdf")
    assert len(record.metadata[SOURCE_KEY]) == 64
    chunks_before = coll.stats().get("chunks")
    reads.clear()
    again = ingest([folder], coll)
    assert counts(again) == (0, 0, 2, 0) and reads == []
    assert coll.stats().get("chunks") == chunks_before
    assert sorted(s.split(":")[0] for s in again.seen) == ["fda/a.pdf", "ich/b.pdf"]


def test_a_changed_pdf_or_sidecar_is_read_again(folder, coll, reads):
    ingest([folder], coll)
    reads.clear()
    (folder / "ich" / "b.pdf").write_bytes(make_pdf([["Batch release text, revised page."]]))
    report = ingest([folder], coll)
    assert counts(report) == (0, 1, 1, 0)
    assert [p.rsplit("/", 1)[-1] for p in reads] == ["b.pdf"]
    reads.clear()
    (folder / "fda" / "a.pdf.md").write_text("---\nauthority: ICH\n---\n", "utf-8")
    report = ingest([folder], coll)
    assert counts(report) == (0, 1, 1, 0)
    assert [p.rsplit("/", 1)[-1] for p in reads] == ["a.pdf"]
    assert coll.store.get_document(coll.name, "fda/a.pdf").metadata["authority"] == "ICH"


def test_other_run_settings_read_the_files_again(folder, coll, reads):
    ingest([folder], coll)
    reads.clear()
    report = ingest([folder], coll, options=LoadOptions(tags=("gmp",)))
    assert counts(report) == (0, 2, 0, 0) and len(reads) == 2     # the tag is new
    reads.clear()
    policy = ChunkPolicy(**{**coll.chunk_policy.as_dict(), "overlap_tokens": 5})
    report = ingest([folder], coll, options=LoadOptions(tags=("gmp",)), policy=policy)
    assert counts(report) == (0, 2, 0, 0) and len(reads) == 2     # a new chunk policy
    reads.clear()
    # settings as recorded: unread again
    report = ingest([folder], coll, options=LoadOptions(tags=("gmp",)), policy=policy)
    assert counts(report) == (0, 0, 2, 0) and reads == []


def test_the_same_file_reached_from_another_root_is_read(folder, coll, reads):
    ingest([folder], coll)
    reads.clear()
    report = ingest([folder / "fda"], coll)      # relative path a.pdf, not fda/a.pdf
    assert len(reads) == 1 and report.failed == 0
    assert [d.doc_id for d in coll.store.list_documents(coll.name)] == ["fda/a.pdf",
                                                                        "ich/b.pdf"]


def test_the_same_file_twice_in_one_run_is_still_reported(folder, coll, reads):
    ingest([folder], coll)
    reads.clear()
    report = ingest([folder, folder / "fda"], coll)
    assert report.unchanged == 2
    assert [f.code for f in report.skipped] == ["same_file"] and report.failed == 0


def test_a_new_chunker_version_reads_and_rechunks_the_files(folder, coll, reads, monkeypatch):
    from dataclasses import replace

    from ragd.chunking.base import CHUNKERS
    from ragd.ingest.pipeline import document_hash
    from ragd.ids import canonical_json, sha256_hex
    from ragd.types import Document

    ingest([folder], coll)
    reads.clear()
    spec = CHUNKERS.get("pdf_pages")
    monkeypatch.setitem(CHUNKERS._items, "pdf_pages", replace(spec, version=spec.version + 1))
    report = ingest([folder], coll)
    assert counts(report) == (0, 2, 0, 0) and len(reads) == 2
    reads.clear()
    assert counts(ingest([folder], coll)) == (0, 0, 2, 0) and reads == []
    # a chunker at version 1 adds nothing to the hash: what stores hold stays valid
    doc = Document(doc_id="d", text="Some text.", title="T", format="markdown")
    policy = ChunkPolicy()
    assert document_hash(doc, policy) == sha256_hex(canonical_json({
        "text": doc.text, "segments": None, "title": doc.title, "format": doc.format,
        "tags": [], "metadata": {}, "policy": policy.as_dict()}))
