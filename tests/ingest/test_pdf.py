"""The PDF loader: pages, page numbers, metadata, sidecars, and bad PDFs reported."""

from __future__ import annotations

import pytest
from support.pdfs import make_pdf

from ragd.ingest.loaders import LoadOptions, iter_documents
from ragd.ingest.pdf import _why, authority_of, repair_ligatures


def load(paths, **options):
    failures = []
    docs = list(iter_documents(paths, LoadOptions(**options), on_failure=failures.append))
    return docs, failures


def write(path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_a_pdf_is_one_document_of_its_pages(tmp_path):
    write(tmp_path / "fda" / "guide.pdf", make_pdf(
        [["Title line", "First page text."], ["Second page text."]], title="A Real Title"))
    [doc], failures = load([tmp_path])
    assert failures == []
    assert doc.doc_id == "fda/guide.pdf" and doc.format == "pdf"
    assert doc.text.split("\f") == ["Title line\nFirst page text.", "Second page text."]
    assert doc.title == "A Real Title"
    assert dict(doc.metadata) == {"pdf": "guide.pdf", "authority": "FDA", "pages": 2,
                                  "label": "fda guide", "page_labels": [1, 2]}


def test_printed_page_labels_number_the_pages(tmp_path):
    path = write(tmp_path / "x.pdf", make_pdf([["a b c."], ["d e f."]], label_start=7))
    [doc], _ = load([path])
    assert doc.metadata["page_labels"] == [7, 8]
    assert doc.title == "x"          # no title in the PDF: the file stem
    assert doc.metadata["label"] == "x"


@pytest.mark.parametrize("rel, authority", [
    ("fda/a.pdf", "FDA"), ("ema/a.pdf", "EMA"), ("eu_gmp/a.pdf", "EMA"), ("ich/a.pdf", "ICH"),
    ("pic_s/a.pdf", "PICS"), ("who/a.pdf", "WHO"), ("others/a.pdf", "OTHER"),
    ("a.pdf", "OTHER"), ("FDA/sub/a.pdf", "FDA"), ("sops/a.pdf", "SOPS")])
def test_authority_comes_from_the_folder(rel, authority):
    assert authority_of(rel) == authority


def test_a_sidecar_and_meta_override_the_metadata(tmp_path):
    write(tmp_path / "who" / "g.pdf", make_pdf([["Some text here."]]))
    (tmp_path / "who" / "g.pdf.md").write_text(
        "---\nauthority: ICH\ntitle: Sidecar Title\nyear: 2020\n---\nnotes\n", "utf-8")
    [doc], failures = load([tmp_path])
    assert failures == [] and doc.doc_id == "who/g.pdf"     # the sidecar is no document
    assert doc.metadata["authority"] == "ICH" and doc.metadata["year"] == 2020
    assert doc.title == "Sidecar Title"
    [doc], _ = load([tmp_path], metadata={"authority": "FDA"})
    assert doc.metadata["authority"] == "FDA"


def test_bad_pdfs_are_reported_by_name_and_skipped(tmp_path):
    good = write(tmp_path / "good.pdf", make_pdf([["Readable text."]]))
    corrupt = write(tmp_path / "corrupt.pdf", b"%PDF-1.4\nthis is not a pdf at all")
    scan = write(tmp_path / "scan.pdf", make_pdf([[], []]))
    empty = write(tmp_path / "zero.pdf", make_pdf([]))
    big = write(tmp_path / "big.pdf", make_pdf([["x y z."]]) + b"%" * 4000)
    docs, failures = load([tmp_path], max_document_bytes=3000)
    assert [d.doc_id for d in docs] == ["good.pdf"]
    by = {f.source: f for f in failures}
    assert set(by) == {str(corrupt), str(scan), str(empty), str(big)}
    assert by[str(corrupt)].code == "corrupt"
    assert by[str(scan)].code == "no_text" and "2 pages" in by[str(scan)].reason
    assert by[str(empty)].code == "corrupt"      # PDFium opens no PDF without pages
    assert by[str(big)].code == "too_large"
    assert good.exists()


def test_encrypted_pdfs_are_named_as_such():
    reason, code = _why(Exception("Failed to load document (PDFium: Incorrect password error)."))
    assert code == "encrypted" and "password" in reason


def test_broken_ligatures_are_repaired_only_where_frequent():
    broken = ["identiEed speciEcally modiEed certiEcation conEdential oFce"]
    assert repair_ligatures(broken) == [
        "identified specifically modified certification confidential office"]
    assert repair_ligatures(["a word like iPhone or eBay"]) == ["a word like iPhone or eBay"]


def test_a_pdf_bomb_is_reported_and_costs_the_process_no_memory(tmp_path):
    import resource

    from support.pdfs import pdf_bomb

    (tmp_path / "bomb.pdf").write_bytes(pdf_bomb())
    (tmp_path / "fine.pdf").write_bytes(make_pdf([["A page that reads well enough."]]))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    failures: list = []
    docs = list(iter_documents([tmp_path], LoadOptions(), on_failure=failures.append))
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 100, grown_mb   # PDFium read the bomb in a capped child process
    assert [d.doc_id for d in docs] == ["fine.pdf"]
    assert [(f.source, f.code) for f in failures] == [(str(tmp_path / "bomb.pdf"), "too_large")]
    assert "decompression bomb" in failures[0].reason
