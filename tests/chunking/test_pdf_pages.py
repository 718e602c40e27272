"""The pdf_pages chunker: chunks on one page each, furniture dropped, breaks rejoined."""

from __future__ import annotations

import re

from ragd.chunking import chunk_document
from ragd.chunking.pdf_pages import is_toc, paragraphs, strip_line_numbers
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


# --- line numbers of drafts -------------------------------------------------------------

DRAFT = [
    "The manufacturer should hold a validated process for each product and should review it",
    "at planned intervals. Records of the review are kept with the batch documentation and",
    "are made available to the inspectors on request.",
    "Changes to the process are assessed before they are made and the assessment is",
    "recorded, with the data that supports it, in the change control system of the site.",
    "Regulation (EU) No 536/2014 sets out the principles for the products used in trials",
    "and 21 CFR 211.180 keeps records for at least 1 year after the expiry date of the",
    "batch, as required since 2008.",
]


def numbered(lines, first):
    return [f"{first + i} {line}" for i, line in enumerate(lines)]


def chunk_text_of(pages):
    return " ".join(c.text for c in chunk_document(pdf_doc(pages), POLICY))


def test_line_numbers_restarting_on_each_page_are_dropped():
    pages = [["Guide header text"] + numbered(body(n, 60) + DRAFT + body(n + 5, 60), 1)
             + [f"{n + 1}"]
             for n in range(3)]                               # a printed page number last
    text = chunk_text_of(pages)
    assert "should hold a validated process for each product and should review it at " \
           "planned intervals." in text
    assert "Regulation (EU) No 536/2014 sets out" in text           # content numbers kept
    assert "21 CFR 211.180 keeps records for at least 1 year" in text
    assert "since 2008." in text
    for n in range(3):
        assert f"Sentence {n}.0 says" in text and f"{n + 1} Sentence {n}.0" not in text
    for gone in ("it 7 at", "trials 12 and", "the 13 batch", " 11 Regulation"):
        assert gone not in text
    assert not re.search(r"\b(?:[1-9]|1[0-3]) (?:at|are|Changes|recorded|batch)\b", text)


def test_line_numbers_running_through_the_document_are_dropped():
    pages = [numbered(DRAFT + DRAFT[:4], 1 + 12 * n) for n in range(3)]
    stripped = strip_line_numbers(pages)
    assert stripped[0] == DRAFT + DRAFT[:4]
    assert stripped[2][0] == DRAFT[0] and stripped[2][-1] == DRAFT[3]
    assert "30 Regulation" not in chunk_text_of(pages)


def test_a_short_page_going_on_from_a_numbered_one_is_stripped_too():
    pages = [numbered(DRAFT + DRAFT, 1), numbered(DRAFT[:2], 17)]
    assert strip_line_numbers(pages)[1] == DRAFT[:2]


def test_numbers_on_their_own_lines_are_dropped():
    page = [x for i, line in enumerate(DRAFT + DRAFT[:4]) for x in (str(40 + i), line)]
    stripped = strip_line_numbers([page, page])
    assert [ln for ln in stripped[0] if ln.strip()] == DRAFT + DRAFT[:4]


def test_numbered_list_items_and_headings_under_line_numbers_are_kept():
    lines = ["1. Scope", *DRAFT[:3], "2. Principle", *DRAFT[3:6], "3.2 Elements of the system",
             *DRAFT[6:], "4 Glossary"]
    [page] = strip_line_numbers([numbered(lines, 63)])
    assert page == lines
    glued = strip_line_numbers([numbered(DRAFT, 1) + ["91. What might go wrong?",
                                                      "102. What is the likelihood?"]])
    assert glued[0][-2:] == ["1. What might go wrong?", "2. What is the likelihood?"]


def test_a_number_the_extractor_moved_mid_line_is_cut():
    lines = numbered(DRAFT[:5], 1) + [
        "6 it is a validated quantitative analytical procedure, a stability7 indicating test",
        "8 and drug products.6 9 It will help you assemble the methods validation5 10 data",
        "11 for the application."]
    [page] = strip_line_numbers([lines + numbered(DRAFT, 12)])
    assert page[5] == "it is a validated quantitative analytical procedure, a stability-indicating test"
    assert page[6] == "and drug products.6 It will help you assemble the methods validation5 data"


def test_pages_without_line_numbering_are_left_as_they_are():
    toc = [f"{i} Section title number {i}" for i in range(1, 9)] + DRAFT * 3
    lists = ["1. Scope", *DRAFT[:3], "2. Principle", *DRAFT[3:], "3. Glossary"]
    table = ["Year Batches Rejected", "2019 120 3", "2020 131 2", "2021 140 4",
             "2022 150 1", "2023 160 0"] + DRAFT * 2
    cfr = ["21 CFR 211.180 General requirements.", "21 CFR 211.182 Equipment cleaning log.",
           "21 CFR 211.184 Component records."] + DRAFT * 2
    pages = [toc, lists, table, cfr]
    assert strip_line_numbers(pages) == pages
    # and one numbered list dense enough to look numbered is not a document's line numbering
    steps = [f"{i} Step {i} of the procedure is done and recorded." for i in range(1, 13)]
    pages = [steps] + [DRAFT * 4] * 4
    assert strip_line_numbers(pages) == pages


def test_a_real_line_numbered_draft_loses_its_line_numbers():
    from helpers import shared
    from ragd.ingest.base import FileRef, LoadOptions
    from ragd.ingest.pdf import load_pdf
    from ragd.profiles.profile import load_profile

    folder = shared("pharma-pdfs")
    policy = load_profile("pharma-qa").chunk_policy()
    rel = "eu_gmp/guideline_adopted_1_en_act_part1_v3.pdf"
    [doc] = load_pdf(FileRef(str(folder / rel), rel), LoadOptions())
    page3 = [c.text for c in chunk_document(doc, policy) if c.page == 3]
    text = " ".join(page3)
    assert "With regard to EudraLex, Volume 4, Part II, it should be noted that Regulation " \
           "(EU) No 536/2014 does not lay down requirements" in text
    assert "No 33 536" not in text and "32 With regard" not in text
    assert "1. SCOPE" in text or any(c.startswith("1. SCOPE") for c in page3)


ECFR_TOP = ["Title 21 —Food and Drugs", "Chapter I —Food and Drug Administration",
            "Part 211 —Current Good Manufacturing Practice for Finished Pharmaceuticals",
            "Subpart J —Records and Reports"]


def ecfr_print(section, title, pages):
    """A print of one eCFR section: each page's own text, then the print's footer (the
    citation with its date, the section's title, the citation of the page's last
    paragraph, the page count) as eCFR prints it."""
    out = []
    for n, text in enumerate(pages):
        last = f"21 CFR {section} (Feb. 12, 2026)" if n == 0 else f"21 CFR {section}(f)"
        out.append(text + [f"21 CFR {section} (up to date as of 2/12/2026)", title, last,
                           f"21 CFR {section}(f) (enhanced display) page {n + 1} of {len(pages)}"])
    return out


def cfr_doc(pages, section="211.180"):
    return Document(doc_id=f"fda/21 CFR {section} (up to date as of 2-12-2026).pdf",
                    text="\f".join("\n".join(p) for p in pages), title="", format="pdf",
                    metadata={"pdf": f"21 CFR {section} (up to date as of 2-12-2026).pdf",
                              "label": f"fda 21 CFR {section} (up to date as of 2-12-2026)",
                              "page_labels": list(range(1, len(pages) + 1))})


def test_a_two_page_print_loses_its_footers_and_keeps_its_text():
    pages = ecfr_print("211.180", "General requirements.",
                       [ECFR_TOP + ["§ 211.180 General requirements."] + body(0, 120),
                        ["[43 FR 45077, Sept. 29, 1978, as amended at 60 FR 4091, Jan. 20, 1995]"]])
    chunks = chunk_document(cfr_doc(pages), POLICY)
    text = "\n".join(c.text for c in chunks)
    for gone in ("up to date as of", "Feb. 12, 2026", "211.180(f)", "enhanced display"):
        assert gone not in text
    assert text.count("General requirements") == 1        # the heading, not the footer
    assert "§ 211.180 General requirements." in text and "Sentence 0.9 " in text
    assert "[43 FR 45077, Sept. 29, 1978" in text           # the source note is content
    assert not any(c.text.startswith(("21 CFR", "General requirements")) for c in chunks)


def test_a_one_page_print_loses_its_footer_and_title_between_its_lines():
    pages = ecfr_print("211.100", "Written procedures; deviations.",
                       [ECFR_TOP + ["§ 211.100 Written procedures; deviations."] + body(1, 60)])
    text = "\n".join(c.text for c in chunk_document(cfr_doc(pages, "211.100"), POLICY))
    assert text.count("Written procedures; deviations") == 1
    assert "Feb. 12, 2026" not in text and "up to date" not in text
    assert "Sentence 1.4 " in text


def test_edge_lines_that_cite_other_sections_or_are_headings_are_kept():
    pages = [["5.1 Quality Risk Management", "See 21 CFR 211.180 and 211.182."] + body(0, 60)
             + ["CHAPTER 4", "211.188, and 212.60(g)."],
             ["Records under 21 CFR 211.68 (2024)."] + body(1, 60) + ["Annex 1"]]
    chunks = chunk_document(cfr_doc(pages), POLICY)
    text = "\n".join(c.text for c in chunks)
    for kept in ("5.1 Quality Risk Management", "See 21 CFR 211.180 and 211.182.", "CHAPTER 4",
                 "211.188, and 212.60(g).", "Records under 21 CFR 211.68 (2024).", "Annex 1"):
        assert kept in text


def test_a_line_on_one_page_of_two_is_not_a_running_line():
    pages = [["Purpose"] + body(0, 60), body(1, 60) + ["Purpose"]]
    text = "\n".join(c.text for c in chunk_document(pdf_doc(pages), POLICY))
    assert "Purpose" not in text                            # on both pages' edges: a header
    pages = [["Purpose"] + body(0, 60), ["Scope"] + body(1, 60)]
    text = "\n".join(c.text for c in chunk_document(pdf_doc(pages), POLICY))
    assert "Purpose" in text and "Scope" in text


def test_a_books_running_lines_on_one_side_only_are_dropped():
    # a report printing its series on every left page and the annex's title on every right
    # one (page numbers glued to them): neither is on half of all pages, nor 3 in 4 pages
    pages = [[f"{300 + i}WHO Technical Report Series, No. 1010, 2018",
              "WHO Expert Committee on Specifications Fifty-second report"] + body(i)
             if i % 2 else ["Annex 10", str(300 + i)] + body(i) for i in range(9)]
    pages[0] = ["Annex 10", "1. Introduction"] + body(0)       # the first page: its own top
    chunks = chunk_document(pdf_doc(pages), POLICY)
    text = "\n".join(c.text for c in chunks)
    for gone in ("Technical Report Series", "Expert Committee", "Annex 10"):
        assert gone not in text
    assert {c.metadata.get("section") for c in chunks} == {"1. Introduction"}
    assert all(f"Sentence {i}.0 " in text for i in range(9))


def test_a_line_on_a_few_pages_of_one_side_is_kept():
    # a heading at the top of two left pages of ten is content, not a running line
    pages = [body(i) for i in range(10)]
    pages[2] = ["Operations"] + pages[2]
    pages[6] = ["Operations"] + pages[6]
    text = "\n".join(c.text for c in chunk_document(pdf_doc(pages), POLICY))
    assert text.count("Operations") == 2


def test_footnotes_table_rows_and_cross_references_are_no_headings():
    from ragd.chunking.pdf_pages import _is_heading

    for not_one in ("12 See footnote 9.", "24 See id. at Section 3.37.", "29 300 Not",
                    "3 520 000 Not", "90–110% average recovery of spiked DS",
                    "30 °C ± 2 °C/75% RH ± 5% RH", "64% to 150% for a specification",
                    "Section V.A.1 above.", "Part I Section 5.34)", "2 October 2020)"):
        assert not _is_heading(not_one), not_one
    for heading in ("7. Data Storage", "§ 11.10 Controls for closed systems.", "4.1 Records",
                    "4 Premises", "10 Quality Control (QC)", "Annex 17", "210.3 Definitions",
                    "Chapter 5: Production", "1 - Scope", "II.8 Quality Risk Management",
                    "Appendix 2. Illustrative Examples", "CHAPTER 4", "3. Glossary"):
        assert _is_heading(heading), heading


def test_a_numbered_paragraphs_wrapped_first_line_is_no_heading():
    paras = paragraphs(["14.5 All materials and products should be stored under the appropriate",
                        "conditions established by the manufacturer.",
                        "3. Glossary", "accelerated testing. Studies designed to increase ..."])
    assert paras == [("14.5 All materials and products should be stored under the appropriate "
                      "conditions established by the manufacturer.", False),
                     ("3. Glossary", True),
                     ("accelerated testing. Studies designed to increase ...", False)]


def test_a_footnote_does_not_become_the_section_of_the_next_pages():
    pages = [["4. DOCUMENTATION"] + body(0, 60) + ["12 See footnote 9."],
             body(1, 60) + ["24 See id. at Section 3.37."], body(2, 60)]
    chunks = chunk_document(pdf_doc(pages), POLICY)
    assert {c.metadata.get("section") for c in chunks} == {"4. DOCUMENTATION"}
    assert "12 See footnote 9." in "\n".join(c.text for c in chunks)     # kept as text
