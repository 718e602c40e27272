"""Peak memory and speed of ingesting one large Markdown file, by file size.

Each size is a generated Markdown document (``## Rule N`` sections of 20-45 words, a fixed
seed), ingested by ``ragd ingest FILE -q --json`` in a fresh process and a fresh store; the
child's peak RSS comes from the kernel (``wait4``'s ``ru_maxrss``). Time is the model's and
grows linearly with the chunks; memory must not (the issue's bound: under 1 GB).

    python bench/ingest_memory.py [--sizes 2,8,32] [--embedder minilm|toy] [--store sqlite|URL]

Prints a table and writes bench/results/ingest_memory.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine_info, make_console, write_results  # noqa: E402

WORDS = ("export license item regulation control party end user destination technology "
         "software encryption commodity classification jurisdiction authorization exception "
         "record keeping audit compliance").split()
TOY = json.dumps({"kind": "toy", "vocabulary": WORDS})
LIMIT_MB = 1024


def make_markdown(path: Path, megabytes: float, seed: int = 1) -> int:
    """A Markdown document of about ``megabytes`` MiB; returns its size in bytes."""
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    size, section = 0, 0
    with path.open("w", encoding="utf-8") as out:
        out.write("# A large rule book\n")
        while size < target:
            section += 1
            text = (f"\n## Rule {section}\n\n"
                    + " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 45))) + ".\n")
            out.write(text)
            size += len(text)
    return path.stat().st_size


def run_one(path: Path, store: str, embedder: str) -> dict:
    """Ingest ``path`` in a child process: chunks, seconds, chunks/s and the child's own
    peak RSS (``wait4``)."""
    env = {**os.environ, "RAGD_HOME": str(path.parent / "home")}
    args = [sys.executable, "-m", "ragd.cli", "ingest", str(path), "--store", store, "-q",
            "--json", "--max-document-mb", "64", "--collection", path.stem.replace(".", "-")]
    if embedder != "minilm":
        args += ["--embedder", TOY if embedder == "toy" else embedder]
    out_path, err_path = path.with_suffix(".out"), path.with_suffix(".err")
    started = time.perf_counter()
    with out_path.open("w") as out, err_path.open("w") as err:
        child = subprocess.Popen(args, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"ingest of {path} failed ({code}): {err_path.read_text()}")
    report = json.loads(out_path.read_text())
    return {"chunks": report["chunks"], "seconds": round(seconds, 1),
            "chunks_per_s": round(report["chunks"] / seconds, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2,8,32", help="file sizes in MiB")
    parser.add_argument("--embedder", default="minilm", help="minilm (default) or toy")
    parser.add_argument("--store", default="sqlite",
                        help="sqlite (a fresh file) or a postgresql:// URL")
    args = parser.parse_args()
    rows = []
    console = make_console()
    with tempfile.TemporaryDirectory(prefix="ragd-bench-mem-") as tmp:
        for size in [float(s) for s in args.sizes.split(",")]:
            path = Path(tmp) / f"rules-{size:g}mb.md"
            nbytes = make_markdown(path, size)
            store = str(Path(tmp) / f"store-{size:g}") if args.store == "sqlite" else args.store
            row = {"file_mb": size, "bytes": nbytes, **run_one(path, store, args.embedder)}
            row["under_1gb"] = row["peak_rss_mb"] < LIMIT_MB
            rows.append(row)
            console.print(row)
    from rich.table import Table

    table = Table(title=f"ragd ingest of one Markdown file ({args.embedder}, {args.store})")
    for col in ("file MB", "chunks", "seconds", "chunks/s", "peak RSS MB", "< 1 GB"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(f"{r['file_mb']:g}", f"{r['chunks']:,}", f"{r['seconds']:.1f}",
                      f"{r['chunks_per_s']:.1f}", f"{r['peak_rss_mb']:.0f}",
                      "yes" if r["under_1gb"] else "NO")
    console.print(table)
    path = write_results("ingest_memory" + ("" if args.embedder == "minilm"
                                            else f"_{args.embedder}"),
                         {"embedder": args.embedder, "store": args.store, "rows": rows,
                          "machine": machine_info()})
    console.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
