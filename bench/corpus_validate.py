"""Benchmark: `ragd corpus validate` on a 1,000,000-document retrieval-corpus.v1 file.

The corpus is the EAR corpus (3,040 documents, parts 736-746) replicated with new ids:
copy k renumbers every section S of part P as P.(S + 1000 k), so ids stay canonical and
unique, and every document gets the parent_id of its nearest container in the corpus
(renumbered the same way) so that the parent checks run too. It is streamed to a
temporary file, then validated by the real command in a subprocess, whose wall time and
peak RSS (ru_maxrss from wait4) are measured; a bare interpreter importing the same
modules gives the baseline RSS. Targets: <= 60 s and <= 300 MB peak.

    python bench/corpus_validate.py [--docs 1000000] [--keep PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA_DIR, human_bytes, machine_info, write_results  # noqa: E402

from ragd.corpus import ancestors, read_corpus, write_corpus  # noqa: E402

EAR = DATA_DIR / "ear-corpus" / "ear-parts-736-746.v1.jsonl"
TARGET_SECONDS, TARGET_MB = 60.0, 300.0
_SECTION = re.compile(r"^EAR-(\d{3})\.(\d+)")


def base_records() -> list[dict[str, Any]]:
    """The EAR corpus with ``parent_id`` set to each document's nearest container present."""
    records = [dict(r) for _, r in read_corpus(EAR)]
    ids = {r["doc_id"] for r in records}
    for r in records:
        parent = next((a for a in ancestors(r["doc_id"]) if a in ids), None)
        if parent is not None:
            r["parent_id"] = parent
    return records


def renumber(doc_id: str, copy: int) -> str:
    """``EAR-740.9(b)`` in copy 3 -> ``EAR-740.3009(b)``; copy 0 keeps the id."""
    if copy == 0:
        return doc_id
    return _SECTION.sub(lambda m: f"EAR-{m.group(1)}.{int(m.group(2)) + 1000 * copy}", doc_id)


def replicated(base: list[dict[str, Any]], total: int) -> Iterator[dict[str, Any]]:
    """``total`` documents: copies of ``base`` with renumbered ids, one record at a time."""
    made, copy = 0, 0
    while made < total:
        for r in base:
            if made == total:
                return
            out = dict(r)
            out["doc_id"] = renumber(r["doc_id"], copy)
            out["section_id"] = renumber(r["section_id"], copy)
            if "parent_id" in r:
                out["parent_id"] = renumber(r["parent_id"], copy)
            out["ordinal"] = made % 1000
            made += 1
            yield out
        copy += 1


def run_measured(argv: list[str]) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run a command; its completed process, wall seconds and peak RSS (MiB, from wait4)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    done = subprocess.CompletedProcess(argv, proc.returncode, out.decode(), err.decode())
    return done, seconds, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    args = parser.parse_args()
    console = Console()
    if not EAR.exists():
        console.print(f"[red]missing {EAR}[/]")
        return 2
    base = base_records()
    tmpdir = None
    if args.keep:
        path = args.keep
    else:
        tmpdir = tempfile.TemporaryDirectory(prefix="ragd-bench-")
        path = Path(tmpdir.name) / "corpus.jsonl"
    try:
        start = time.perf_counter()
        written = write_corpus(replicated(base, args.docs), path)
        write_s = time.perf_counter() - start
        size = path.stat().st_size
        console.print(f"wrote {written:,} documents ({human_bytes(size)}) in {write_s:.1f} s")

        baseline, _, base_mb = run_measured([sys.executable, "-c",
                                             "import ragd.corpus.cli"])
        assert baseline.returncode == 0, baseline.stderr
        run, wall, peak_mb = run_measured([sys.executable, "-m", "ragd.corpus.cli", "corpus",
                                           "validate", str(path), "--json"])
        if run.returncode not in (0, 1):
            console.print(f"[red]validate failed ({run.returncode})[/]\n{run.stderr}")
            return 1
        report = json.loads(run.stdout)
    finally:
        if tmpdir is not None:
            tmpdir.cleanup()

    docs_per_s = report["documents"] / report["seconds"]
    ok_time, ok_mem = wall <= TARGET_SECONDS, peak_mb <= TARGET_MB
    table = Table(title=f"ragd corpus validate: {report['documents']:,} documents, "
                        f"{human_bytes(size)}")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("target", justify="right")
    table.add_row("verdict", "valid" if report["valid"] else
                  f"INVALID ({report['errors_total']} errors)", "valid")
    table.add_row("validation (in process)", f"{report['seconds']:.1f} s", "")
    table.add_row("command wall time", f"{wall:.1f} s",
                  f"[{'green' if ok_time else 'red'}]<= {TARGET_SECONDS:.0f} s[/]")
    table.add_row("documents / s", f"{docs_per_s:,.0f}", "")
    table.add_row("MB / s", f"{size / 1e6 / report['seconds']:,.0f}", "")
    table.add_row("peak RSS", f"{peak_mb:.0f} MiB",
                  f"[{'green' if ok_mem else 'red'}]<= {TARGET_MB:.0f} MB[/]")
    table.add_row("baseline RSS (imports only)", f"{base_mb:.0f} MiB", "")
    table.add_row("writing the corpus (write_corpus)", f"{write_s:.1f} s "
                  f"({written / write_s:,.0f} docs/s)", "")
    console.print(table)
    result = write_results("corpus_validate", {
        "documents": report["documents"], "bytes": size, "valid": report["valid"],
        "errors_total": report["errors_total"], "validate_seconds": round(report["seconds"], 2),
        "command_wall_seconds": round(wall, 2), "documents_per_second": round(docs_per_s),
        "peak_rss_mib": round(peak_mb, 1), "baseline_rss_mib": round(base_mb, 1),
        "write_seconds": round(write_s, 2), "targets": {"seconds": TARGET_SECONDS,
                                                        "peak_mb": TARGET_MB},
        "within_targets": ok_time and ok_mem, "machine": machine_info()})
    console.print(f"results: {result}")
    return 0 if report["valid"] and ok_time and ok_mem else 1


if __name__ == "__main__":
    sys.exit(main())
