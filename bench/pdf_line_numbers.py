#!/usr/bin/env python3
"""Line-numbered drafts among the pharma PDFs: what the ``pdf_pages`` chunker strips.

Every page of every PDF is read with ragd's PDF loader; per PDF the table gives its
pages, the longest run of rising line numbers on any page (a line-numbered draft has
dozens; a contents page or a numbered list a few), the pages that pass the line-numbering
test on their own, the pages whose numbers are stripped, and the lines changed.

    python bench/pdf_line_numbers.py [--pdfs DIR] [--show NAME] [--all]

``--show NAME`` prints each changed line of the PDFs whose path contains NAME, before and
after (to eyeball what goes). Writes bench/results/pdf_line_numbers.json.
"""

from __future__ import annotations

import argparse

from _common import DATA_DIR, make_console, print_table, write_results

from ragd.chunking.pdf_pages import (NUMBERING_MIN_LINES, NUMBERING_SHARE, numbering_chain,
                                     split_pages, strip_line_numbers)
from ragd.ingest.loaders import LoadOptions, iter_documents


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdfs", default=str(DATA_DIR / "pharma-pdfs"))
    ap.add_argument("--show", default="", help="print the changed lines of matching PDFs")
    ap.add_argument("--all", action="store_true", help="a row for every PDF, not only "
                    "those with a run of 5 or more rising numbers")
    args = ap.parse_args()
    console = make_console()
    failures: list = []
    docs = sorted(iter_documents([args.pdfs], LoadOptions(include=("*.pdf",)),
                                 on_failure=failures.append), key=lambda d: d.doc_id)
    rows, per_pdf = [], {}
    for doc in docs:
        pages, labels = split_pages(doc)
        split = [p.split("\n") for p in pages]
        stripped = strip_line_numbers(split)
        chains = [numbering_chain(lines) for lines in split]
        strict = sum(1 for c, lines in zip(chains, split)
                     if len(c) >= NUMBERING_MIN_LINES
                     and len(c) >= NUMBERING_SHARE * sum(1 for ln in lines if ln.strip()))
        changed = [(labels[n], a, b) for n, (before, after) in enumerate(zip(split, stripped))
                   for a, b in zip(before, after) if a != b]
        pages_changed = len({n for n, _, _ in changed})
        longest = max((len(c) for c in chains), default=0)
        per_pdf[doc.doc_id] = {"pages": len(pages), "longest_run": longest,
                               "pages_numbered_alone": strict, "pages_stripped": pages_changed,
                               "lines_changed": len(changed)}
        if args.all or longest >= 5 or changed:
            rows.append([doc.doc_id[:64], len(pages), longest, strict, pages_changed,
                         len(changed)])
        if args.show and args.show in doc.doc_id:
            for page, a, b in changed:
                console.print(f"p{page}: {a!r}\n    → {b!r}", markup=False, highlight=False)
    print_table(console, f"line numbering in {len(docs)} PDFs ({len(failures)} not read)",
                ["pdf", "pages", "longest run", "pages numbered alone", "pages stripped",
                 "lines changed"], rows)
    numbered = [k for k, v in per_pdf.items() if v["pages_stripped"]]
    console.print(f"line-numbered PDFs: {len(numbered)}: {', '.join(numbered)}")
    path = write_results("pdf_line_numbers", {"pdfs": len(docs), "failed": len(failures),
                                              "numbered": numbered, "per_pdf": per_pdf})
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
