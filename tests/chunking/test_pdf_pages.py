"""The pdf_pages chunker: chunks on one page each, furniture dropped, breaks rejoined."""

from __future__ import annotations

from ragd.chunking import chunk_document
from ragd.chunking.pdf_pages import is_toc, paragraphs
from ragd.types import ChunkPolicy, Document

POLICY = ChunkPolicy(target_tokens=40, overlap_tokens=5, max_unit_tokens=40,
                     chunker="pdf_pages")


def pdf_doc(pages, labels=None, **meta):
    labels = labels or list(range(1, len(pages) + 1))
    return Document(doc_id="fda/guide.pdf", text="\f".join("\n".join(p) for p in pages),
                    title="Guide", format="pdf",
                    metadata={"pdf": "guide.pdf", "authority": "FDA", "pages": len(pages),
                              "page_labels": labels, **meta})


WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split()


def body(n, words=60):
    """Distinct sentences of about ``words`` words for page ``n``."""
    return [f"Sentence {n}.{i} says the process validation batch record holds "
            f"{WORDS[(n + i) % 12]} {WORDS[(n * 3 + i) % 12]} data." for i in range(words // 12)]


def test_chunks_never_cross_a_page_and_carry_its_number():
    pages = [body(i, 120) for i in range(4)]
    chunks = chunk_document(pdf_doc(pages, [10, 11, 12, 13]), POLICY)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert {c.page for c in chunks} == {10, 11, 12, 13}
    for c in chunks:
        n = c.page - 10
        assert all(f"Sentence {n}." in s for s in c.text.split(" says ")[:-1])
        assert c.metadata["pdf"] == "guide.pdf" and c.metadata["authority"] == "FDA"
        assert "page_labels" not in c.metadata


def test_running_headers_footers_and_boilerplate_are_dropped():
    pages = [["ACME Guidance for Industry", f"Draft {i} — Revision 3"] + body(i)
             + ["Copyright 2023 ACME. All rights reserved.", f"Page {i + 1} of 5"]
             for i in range(5)]
    chunks = chunk_document(pdf_doc(pages), POLICY)
    text = " ".join(c.text for c in chunks)
    for gone in ("ACME Guidance", "Revision 3", "All rights reserved", "Page 1 of 5"):
        assert gone not in text
    assert "process validation batch record" in text


def test_hyphenated_line_breaks_are_rejoined():
    [(text, heading)] = paragraphs(["The continuous manufac-", "turing process is con-",
                                    "trolled. A self-", "Inspection stays."])
    assert not heading
    assert text.startswith("The continuous manufacturing process is controlled.")
    assert "self- Inspection" in text       # a capital after the hyphen is no broken word


def test_the_section_is_the_nearest_heading_across_pages():
    pages = [["4. DOCUMENTATION", "4.1 Records", "Records must be kept for one year after "
              "expiry of the batch."], ["More text about records continues here on the page."],
             ["CHAPTER 5", "Production text is here."]]
    chunks = chunk_document(pdf_doc(pages), POLICY)
    sections = [(c.page, c.metadata.get("section")) for c in chunks]
    assert sections == [(1, "4.1 Records"), (2, "4.1 Records"), (3, "CHAPTER 5")]
    assert chunks[0].context == "Guide > 4.1 Records"


def test_a_contents_page_is_not_chunked():
    toc = [f"{i}. Section title number {i} {i * 3}" for i in range(1, 12)]
    assert is_toc(toc)
    chunks = chunk_document(pdf_doc([toc, body(1)]), POLICY)
    assert {c.page for c in chunks} == {2}


def test_the_default_profile_chunks_pdfs_by_page_too():
    chunks = chunk_document(pdf_doc([body(0), body(1)]), ChunkPolicy())
    assert [c.page for c in chunks] == [1, 2]
