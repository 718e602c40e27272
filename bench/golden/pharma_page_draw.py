"""The seeded random draw of pages the fresh pharma-qa golden sets were written on.

``python bench/golden/pharma_page_draw.py fresh6|fresh7|fresh8|fresh9|fresh10|fresh11|fresh12|fresh13|fresh14|fresh15|fresh16|fresh17|fresh18|fresh19|fresh20|fresh21 [-v]`` prints the drawn pages
(``-v``: the redraw log first), as the helpers that wrote the sets ran it. Procedure, one
``random.Random(seed)`` throughout:

* phase 1 (every folder covered): for each folder in sorted order, 2 pages: a PDF drawn
  uniformly from the folder's PDFs (sorted by path), then a page uniformly;
* phase 2: the remaining pages up to 26: a PDF drawn from all 55, then a page.

A PDF already drawn twice, a page already drawn, or a page of an earlier set (``exclude``:
its golden file's expected_pages; a name or a list of names, read from
``PHARMA_GOLDEN`` or this file's folder) is redrawn; so is a page with under 600 characters of
text, a table of contents (dot leaders), a reference list, or one of the set's
``manual_skip`` pages (judged by reading; the reason is kept). A folder with no acceptable
page left is passed over in phase 1 without a draw (logged ``pool-exhausted``; first met in
fresh15, whose ``others`` folder is used up, so earlier sets draw as before). The PDFs are
read from ``PHARMA_PDFS`` or ``../shared/data/pharma-pdfs`` beside the checkout.
"""

from __future__ import annotations

import glob
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.environ.get("PHARMA_GOLDEN", HERE)
ROOT = os.environ.get("PHARMA_PDFS",
                      os.path.join(HERE, "..", "..", "..", "shared", "data", "pharma-pdfs"))
_IMPD = ("ema/guideline-requirements-chemical-and-pharmaceutical-quality-documentation-"
         "concerning-investigational-medicinal-products-clinical-trials-revision-2_en.pdf")
_CHECKLIST = "inspection checklist of questions and section numbers only; no statement of a requirement"
_SM_NSM = ("classification table (SM/NSM columns) with no running text; column membership lost "
           "in extracted text")
_MHRA = "others/MHRA_GxP_data_integrity_guide_March_edited_Final.pdf"
_MHRA_REFS = ("reference list (section 8 References, titles and URLs) and revision history only; "
              "no guidance content")
_IMPD_TITLE = "title page (agency address and adoption/consultation timeline only)"
_PART211_TOC = ("table of contents of Part 211 (section numbers and titles) only; no guidance "
                "content")
_EU_TITLE = ("title page (legal basis, revision status, reasons for changes and "
             "coming-into-operation date) only; no guidance content")
# PDFs and reasons more than one set's manual_skip names
_AIDE = "pic_s/pi-044-1-pics-gdp-aide-memoire.pdf"
_PI011 = "pic_s/PI 011-3 Recommendation on Computerised Systems.pdf"
_PART211 = "fda/21 Code of Federal Regulations_210_211.pdf"
_ANALYTICAL = "fda/Analytical-Procedures-and-Methods-Validation-for-Drugs-and-Biologics.pdf"
_ASEPTIC = "fda/Sterile-Drug-Products-Produced-by-Aseptic-Processing-—-cGMP.pdf"
_DQST = "fda/DRUG QUALITY SAMPLING AND TESTING (DQST)- HUMAN DRUGS_7356.008.pdf"
_Q12_ANNEXES = "ich/Q12_Annexes_Step4_2019_1119.pdf"
_TRS1033 = "who/trs1033-annex4-guideline-on-data-integrity.pdf"
_TRS957 = "who/trs957-annex5-who-good-distribution-practices-for-pharmaceutical-products.pdf"
_TRS1010 = "who/trs1010-annex10-who-stability-testing-of-active-pharmaceutical-ingredients.pdf"
_TRS986 = "who/trs986annex2.pdf"
_FDA_TITLE = "title page (office addresses, telephone numbers, URLs, issue date) only"
_PI011_REFS = ("reference list (ISO/IEEE/BS standards and guidance titles) without a heading; no "
               "guidance content")
_HISTORY_NOTICE = "document history table and copyright legal notice only; no guidance content"
_HISTORY = "document history table (steps and dates) only; no running text"
_CONTACTS = "program contacts list (names, telephone numbers, e-mails) only; no guidance content"
_TOC = ("table of contents (section titles and page numbers without dot leaders) only; no "
        "guidance content")
_Q12_RANGES = ("table of ranges and reporting categories per approach (three columns) with no "
               "running text; column membership lost in extracted text")
_TRS1033_REFS = ("reference list (further reading: PIC/S, ISPE, PDA, ICH titles) without a "
                 "heading; no guidance content")
_PART1_TOC = ("table of contents (section titles without dot leaders or page numbers) only; no "
              "guidance content")
_TRS957_REFS = "reference list (WHO Technical Report Series titles) only; no guidance content"
_ASEPTIC_REFS = ("reference list (standards, articles and technical reports) only; no guidance "
                 "content")
_TITLE_TOC = ("title and table of contents (section titles and page numbers without dot leaders) "
              "only; no guidance content")


def _earlier(last: int) -> list[str]:
    """The golden files of fresh sets 6..``last``, whose pages a later set excludes."""
    return [f"pharma_fresh{n}.jsonl" for n in range(6, last + 1)]


def _pages(pdf: str, reason: str, *pages: int) -> dict[tuple[str, int], str]:
    """manual_skip entries: ``pages`` of ``pdf``, each skipped for ``reason``."""
    return {(pdf, page): reason for page in pages}


SETS = {
    "fresh6": {"seed": 20261127, "prefix": "ph-f", "exclude": None,
        "manual_skip": {
            (_IMPD, 38): _SM_NSM,
            (_AIDE, 9): _CHECKLIST,
            (_TRS1010, 34): "reference list",
        }},
    "fresh7": {"seed": 20261128, "prefix": "ph-g", "exclude": "pharma_fresh6.jsonl",
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            (_AIDE, 12): _CHECKLIST,
        }},
    "fresh8": {"seed": 20261129, "prefix": "ph-h", "exclude": _earlier(7),
        "manual_skip": {
            (_Q12_ANNEXES, 2): _HISTORY_NOTICE,
            ("ich/Q8.pdf", 2): _HISTORY,
        }},
    "fresh9": {"seed": 20261130, "prefix": "ph-i", "exclude": _earlier(8),
        "manual_skip": {
            **_pages(_IMPD, _SM_NSM, 38, 41),
            **_pages(_AIDE, _CHECKLIST, 11, 22),
            (_DQST, 16): _CONTACTS,
        }},
    "fresh10": {"seed": 20261201, "prefix": "ph-k", "exclude": _earlier(9),
        "manual_skip": {
            **_pages(_AIDE, _CHECKLIST, 12, 15),
            (_TRS986, 2): _TOC,
            ("fda/Process-Validation--General-Principles-and-Practices.pdf", 2): _FDA_TITLE,
        }},
    "fresh11": {"seed": 20261202, "prefix": "ph-l", "exclude": _earlier(10),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            (_IMPD, 40): _SM_NSM,
            (_AIDE, 10): _CHECKLIST,
        }},
    "fresh12": {"seed": 20261203, "prefix": "ph-o", "exclude": _earlier(11),
        "manual_skip": {
            (_IMPD, 41): _SM_NSM,
            (_Q12_ANNEXES, 15): _Q12_RANGES,
            ("ich/Q12_Guideline_Step4_2019_1119.pdf", 29):
                "established conditions table (CTD section, title, notes columns) with no running "
                "text; column membership lost in extracted text",
            (_DQST, 16): _CONTACTS,
        }},
    "fresh13": {"seed": 20261204, "prefix": "ph-q", "exclude": _earlier(12),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            (_PI011, 45): _PI011_REFS,
        }},
    "fresh14": {"seed": 20261205, "prefix": "ph-s", "exclude": _earlier(13),
        "manual_skip": {
            (_IMPD, 41): _SM_NSM,
            ("eu_gmp/2014-08_gmp_part1.pdf", 3): _PART1_TOC,
            (_MHRA, 21): _MHRA_REFS,
            (_PI011, 45): _PI011_REFS,
            (_TRS957, 30): _TRS957_REFS,
        }},
    "fresh15": {"seed": 20261206, "prefix": "ph-t", "exclude": _earlier(14),
        "manual_skip": {
            (_IMPD, 41): _SM_NSM,
            (_MHRA, 21): _MHRA_REFS,
            (_AIDE, 9): _CHECKLIST,
            (_TRS1033, 19): _TRS1033_REFS,
            ("ich/Q8(R2) Guideline.pdf", 2): _HISTORY,
        }},
    "fresh16": {"seed": 20261207, "prefix": "ph-v", "exclude": _earlier(15),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            **_pages(_IMPD, _SM_NSM, 37, 40, 41),
            (_PART211, 4): _PART211_TOC,
            (_ANALYTICAL, 2): _FDA_TITLE,
            ("fda/Investigating OOS Test Results.pdf", 2):
                "title page (office address, telephone numbers, URL, issue date) only",
            (_Q12_ANNEXES, 6): _Q12_RANGES,
            (_MHRA, 21): _MHRA_REFS,
            **_pages(_AIDE, _CHECKLIST, 9, 18),
            (_PI011, 53):
                "list of abbreviations (acronyms and their expansions) only; no guidance content",
            (_TRS1033, 19): _TRS1033_REFS,
        }},
    "fresh17": {"seed": 20261208, "prefix": "ph-w", "exclude": _earlier(16),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            **_pages(_IMPD, _SM_NSM, 37, 38, 40),
            ("eu_gmp/chapter_5.pdf", 1): _EU_TITLE,
            ("eu_gmp/2014-11_vol4_chapter_6.pdf", 1):
                "title page (legal basis, revision status and coming-into-operation date) only; "
                "no guidance content",
            **_pages(_PART211, _PART211_TOC, 4, 5),
            (_ANALYTICAL, 16):
                "reference list (section X References, FDA guidance titles and dates) only; no "
                "guidance content",
            ("fda/Data Integrity and Compliance_cGMP.pdf", 2): _FDA_TITLE,
            (_ASEPTIC, 58): _ASEPTIC_REFS,
            ("fda/guidance-computer-software-assurance-production-quality-system.pdf", 2):
                "preface (public comment docket, additional-copies addresses and contacts) only",
            (_MHRA, 21): _MHRA_REFS,
            ("ich/ICH_Q2(R2)_Guideline_2023_1130_ErrorCorrection_2025.pdf", 2):
                "document history table (codes, steps and dates) and copyright legal notice only; "
                "no guidance content",
            **_pages(_AIDE, _CHECKLIST, 6, 8, 10, 17),
            (_TRS1010, 3): _TOC,
            (_TRS1033, 1): _TITLE_TOC,
            (_TRS957, 30): _TRS957_REFS,
        }},
    "fresh18": {"seed": 20261209, "prefix": "ph-x", "exclude": _earlier(17),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            **_pages(_IMPD, _SM_NSM, 37, 38, 41),
            (_MHRA, 21): _MHRA_REFS,
            (_PI011, 45): _PI011_REFS,
            **_pages(_AIDE, _CHECKLIST, 7, 12, 15),
        }},
    "fresh19": {"seed": 20261210, "prefix": "ph-y", "exclude": _earlier(18),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            **_pages(_IMPD, _SM_NSM, 37, 38, 39, 40, 41),
            ("eu_gmp/2014-08_gmp_part1.pdf", 2): _PART1_TOC,
            ("eu_gmp/chapter_5.pdf", 1): _EU_TITLE,
            ("eu_gmp/2015-10_annex15.pdf", 1): _EU_TITLE,
            ("eu_gmp/vol4-chap7_2012-06_en.pdf", 1): _EU_TITLE,
            (_PART211, 4): _PART211_TOC,
            (_DQST, 16): _CONTACTS,
            ("fda/guidance-computer-software-assurance-production-quality-system.pdf", 1):
                "title page (issue date, superseded version and contact telephone "
                "numbers/e-mails) only; no guidance content",
            ("ich/Q8.pdf", 2): _HISTORY,
            (_MHRA, 21): _MHRA_REFS,
            **_pages(_AIDE, _CHECKLIST, 5, 12, 13, 16, 17),
            (_TRS986, 1): _TITLE_TOC,
        }},
    "fresh20": {"seed": 20261211, "prefix": "ph-z", "exclude": _earlier(19),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            **_pages(_IMPD, _SM_NSM, 37, 38, 39, 40, 41),
            ("eu_gmp/2015-10_annex15.pdf", 1): _EU_TITLE,
            ("eu_gmp/chapter4_01-2011_en.pdf", 1): _EU_TITLE,
            ("eu_gmp/v4_an16_201510_en.pdf", 1): _EU_TITLE,
            ("eu_gmp/vol4-chap7_2012-06_en.pdf", 1): _EU_TITLE,
            (_ANALYTICAL, 2): _FDA_TITLE,
            (_ANALYTICAL, 17):
                "reference list (ICH guidance titles and dates, USP general chapters) only; no "
                "guidance content",
            (_ASEPTIC, 58): _ASEPTIC_REFS,
            (_ASEPTIC, 59):
                "list of relevant FDA guidance document titles only; no guidance content",
            ("fda/Final GFI BIMO Processes and Practices -- 12-17-25.pdf", 3):
                "title page (office address, issuing offices and centers, issue date) only",
            ("fda/Process-Validation--General-Principles-and-Practices.pdf", 2): _FDA_TITLE,
            (_Q12_ANNEXES, 15): _Q12_RANGES,
            (_MHRA, 21): _MHRA_REFS,
            **_pages(_AIDE, _CHECKLIST, 6, 10, 13, 15),
            (_TRS986, 2): _TOC,
            (_TRS1033, 19): _TRS1033_REFS,
        }},
    "fresh21": {"seed": 20261212, "prefix": "ph-b", "exclude": _earlier(20),
        "manual_skip": {
            (_IMPD, 1): _IMPD_TITLE,
            **_pages(_IMPD, _SM_NSM, 37, 38, 39, 40, 41),
            ("eu_gmp/2014-08_gmp_part1.pdf", 1):
                "title page (revision status, reasons for changes and coming-into-operation date) "
                "only; no guidance content",
            ("eu_gmp/2015-10_annex15.pdf", 1): _EU_TITLE,
            ("eu_gmp/chapter4_01-2011_en.pdf", 1): _EU_TITLE,
            ("eu_gmp/chapter_5.pdf", 1): _EU_TITLE,
            ("eu_gmp/vol4-chap7_2012-06_en.pdf", 1): _EU_TITLE,
            (_PART211, 5): _PART211_TOC,
            (_ANALYTICAL, 2): _FDA_TITLE,
            (_Q12_ANNEXES, 2): _HISTORY_NOTICE,
            ("ich/Q12_Guideline_Step4_2019_1119.pdf", 2): _HISTORY_NOTICE,
            (_MHRA, 21): _MHRA_REFS,
            (_PI011, 45): _PI011_REFS,
            (_AIDE, 7): _CHECKLIST,
        }},
}
PAGES = 26


def page_texts() -> dict[str, list[str]]:
    """Every PDF's page texts (pypdfium2), by path under ROOT."""
    import pypdfium2

    out = {}
    for path in sorted(glob.glob(ROOT + "/*/*.pdf")):
        pdf = pypdfium2.PdfDocument(path)
        out[os.path.relpath(path, ROOT)] = [pdf[i].get_textpage().get_text_range()
                                            for i in range(len(pdf))]
    return out


def excluded(golden: str | list[str] | None) -> dict[str, set[int]]:
    """{PDF file name: pages} of earlier sets' expected_pages (read by code only)."""
    out: dict[str, set[int]] = {}
    for golden_file in ([golden] if isinstance(golden, str) else golden or []):
        with open(os.path.join(GOLDEN, golden_file)) as f:
            for line in f:
                if line.strip():
                    for name, pages in (json.loads(line).get("expected_pages") or {}).items():
                        out.setdefault(name, set()).update(pages)
    return out


def auto_skip(text: str) -> str | None:
    if len(re.sub(r"\s+", " ", text).strip()) < 600:
        return "short"
    lines = [line for line in text.splitlines() if line.strip()]
    dots = sum(1 for line in lines if re.search(r"\.{5,}|(\. ){4,}|…{2,}", line))
    if lines and dots / len(lines) > 0.25:
        return "toc"
    if re.search(r"^\s*(references|bibliography)\s*$", text, re.I | re.M) \
            and len(re.findall(r"https?://|doi|et al", text, re.I)) > 5:
        return "references"
    return None


def draw(name: str, text: dict[str, list[str]]) -> tuple[list[tuple[str, int]], list[tuple]]:
    """The set's drawn (PDF, page) pairs, in order, and the redraw log."""
    spec = SETS[name]
    rng = random.Random(spec["seed"])
    rel = sorted(text)
    exclude = excluded(spec["exclude"])
    used: dict[str, int] = {}
    drawn: list[tuple[str, int]] = []
    log: list[tuple] = []

    def acceptable(pdf: str, page: int) -> bool:
        return ((pdf, page) not in drawn
                and page not in exclude.get(os.path.basename(pdf), ())
                and not (auto_skip(text[pdf][page - 1])
                         or spec["manual_skip"].get((pdf, page))))

    def one(pool: list[str], phase: str) -> None:
        if not any(used.get(pdf, 0) < 2 and any(acceptable(pdf, page)
                                                for page in range(1, len(text[pdf]) + 1))
                   for pdf in pool):
            log.append((phase, None, None, "pool-exhausted"))
            return
        while True:
            pdf = rng.choice(pool)
            if used.get(pdf, 0) >= 2:
                log.append((phase, pdf, None, "pdf-full"))
                continue
            page = rng.randrange(len(text[pdf])) + 1
            if (pdf, page) in drawn:
                log.append((phase, pdf, page, "dup"))
                continue
            if page in exclude.get(os.path.basename(pdf), ()):
                log.append((phase, pdf, page, "in-earlier-set"))
                continue
            why = auto_skip(text[pdf][page - 1]) or spec["manual_skip"].get((pdf, page))
            if why:
                log.append((phase, pdf, page, "skip:" + why))
                continue
            used[pdf] = used.get(pdf, 0) + 1
            drawn.append((pdf, page))
            log.append((phase, pdf, page, "OK"))
            return

    for folder in sorted({r.split("/")[0] for r in rel}):
        pool = [r for r in rel if r.startswith(folder + "/")]
        for _ in range(2):
            one(pool, "P1-" + folder)
    while len(drawn) < PAGES:
        one(rel, "P2")
    return drawn, log


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in SETS:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(SETS)} [-v]")
    pages, redraws = draw(sys.argv[1], page_texts())
    if "-v" in sys.argv:
        for entry in redraws:
            print(*entry, sep=" | ")
        print()
    for i, (pdf, page) in enumerate(pages, 1):
        print(f"{SETS[sys.argv[1]]['prefix']}{i:03d}", page, pdf, sep=" | ")
