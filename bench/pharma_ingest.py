#!/usr/bin/env python3
"""Ingest throughput of the pharma-qa profile over ../shared/data/pharma-pdfs (55 PDFs).

Three measurements, each on the same folder:

1. extraction alone: the PDF loader (pypdfium2 text per page, normalisation) over every
   file, in pages/s;
2. end to end: ``ragd ingest DIR --profile pharma-qa`` into a fresh store (load, chunk,
   embed with the bundled model, store), in pages/s and chunks/s;
3. re-ingest of the unchanged folder (every document's hash matches: no chunking, no
   embedding), in seconds.

    python bench/pharma_ingest.py [--pdfs DIR]

Prints a table and writes bench/results/pharma_ingest.json (with the machine and its load).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import DATA_DIR, cpu_times, load_average, make_console, steal_share, write_results

from ragd.collection import open_collection
from ragd.ingest.loaders import LoadOptions, iter_documents
from ragd.ingest.pipeline import ingest


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdfs", default=str(DATA_DIR / "pharma-pdfs"))
    args = ap.parse_args()
    console = make_console()
    options = LoadOptions(include=("*.pdf",))

    load_before, cpu_before = load_average(), cpu_times()
    started = time.perf_counter()
    failures: list = []
    docs = list(iter_documents([args.pdfs], options, on_failure=failures.append))
    extract_s = time.perf_counter() - started
    pages = sum(int(d.metadata["pages"]) for d in docs)

    with tempfile.TemporaryDirectory(prefix="ragd-pharma-bench-") as tmp:
        coll = open_collection(Path(tmp) / "store", "default", create=True, profile="pharma-qa")
        started = time.perf_counter()
        first = ingest([args.pdfs], coll, options=options)
        e2e_s = time.perf_counter() - started
        started = time.perf_counter()
        again = ingest([args.pdfs], coll, options=options)
        reingest_s = time.perf_counter() - started
        chunks = coll.stats().get("chunks")
        coll.close()
    cpu_after = cpu_times()

    rows = [("extraction alone", f"{extract_s:.1f} s", f"{pages / extract_s:.0f} pages/s", ""),
            ("end to end (load, chunk, embed, store)", f"{e2e_s:.1f} s",
             f"{pages / e2e_s:.1f} pages/s", f"{first.chunks / e2e_s:.1f} chunks/s"),
            ("re-ingest unchanged", f"{reingest_s:.1f} s", f"{again.unchanged} unchanged", "")]
    from rich.table import Table

    table = Table(title=f"pharma-qa ingest: {len(docs)} PDFs, {pages} pages, {chunks} chunks")
    for col in ("run", "time", "rate", ""):
        table.add_column(col, justify="right" if col != "run" else "left")
    for row in rows:
        table.add_row(*row)
    console.print(table)
    path = write_results("pharma_ingest", {
        "pdfs": len(docs), "pages": pages, "chunks": chunks, "failed": len(failures),
        "extraction_seconds": round(extract_s, 2),
        "extraction_pages_per_s": round(pages / extract_s, 1),
        "end_to_end_seconds": round(e2e_s, 2),
        "end_to_end_pages_per_s": round(pages / e2e_s, 2),
        "end_to_end_chunks_per_s": round(first.chunks / e2e_s, 2),
        "reingest_seconds": round(reingest_s, 2), "reingest_unchanged": again.unchanged,
        "load_average_at_start": load_before,
        "steal_share": steal_share(cpu_before, cpu_after)})
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
