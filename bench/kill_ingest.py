"""kill -9 during ingest, a hundred times: nothing partial, nothing lost, re-runs clean.

Each trial ingests a fixed folder (24 small documents and one staged in batches) in a child
process that SIGKILLs itself at a point drawn at random (tests/ingest/crash_trial.py: after
the Nth committed document, inside the Nth document's write transaction, or between the
staged batches of the large one), then checks the store, re-runs the ingest and compares it
with a clean one. CI runs a few of these (tests/ingest/test_kill.py).

    python bench/kill_ingest.py [--trials 100] [--seed 1] [--postgres]

Prints a table and writes bench/results/kill_ingest.json.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))
sys.path.insert(0, str(BENCH.parent / "tests" / "ingest"))
import crash_trial  # noqa: E402
from _common import make_console, pgserver, write_results  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", action="store_true",
                        help="run on a throwaway local PostgreSQL (else SQLite)")
    args = parser.parse_args()
    console = make_console()
    rng = random.Random(args.seed)
    local = None
    if args.postgres:
        local = pgserver().start(fast_unsafe=False)
    results = []
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="ragd-kill-") as tmp:
            data = crash_trial.make_folder(Path(tmp) / "data")
            crash_trial.ingest_folder(str(Path(tmp) / "clean"), str(data))
            clean = crash_trial.contents(str(Path(tmp) / "clean"))
            for trial in range(args.trials):
                mode, n, k = crash_trial.choose(rng)
                if local is not None:
                    from helpers import drop_pg_schema, with_store_options

                    schema = f"kill_{uuid.uuid4().hex[:12]}"
                    location = with_store_options(local.dsn, schema=schema)
                else:
                    location = str(Path(tmp) / f"store-{trial}")
                try:
                    result = crash_trial.run_trial(location, data, clean, mode, n, k,
                                                   Path(tmp) / f"log-{trial}")
                finally:
                    if local is not None:
                        drop_pg_schema(local.dsn, schema)
                results.append(result)
                bad = (not result["killed"] or result["partial"] or result["lost"]
                       or result["rerun_differs"] or result["rerun_exit"]
                       or result["staged_left"])
                console.print(f"trial {trial + 1}: {mode} N={n} K={k} "
                              f"{'FAILED ' + str(result) if bad else 'ok'}")
    finally:
        if local is not None:
            local.stop()
    seconds = time.perf_counter() - started
    summary = {
        "trials": len(results),
        "by_mode": dict(Counter(r["mode"] for r in results)),
        "killed": sum(r["killed"] for r in results),
        "partial_documents": sum(len(r["partial"]) for r in results),
        "lost_documents": sum(len(r["lost"]) for r in results),
        "reruns_not_equal_to_clean": sum(bool(r["rerun_differs"]) or r["rerun_exit"] != 0
                                         for r in results),
        "staged_rows_left": sum(r["staged_left"] for r in results),
        "committed_before_kill_mean": round(
            sum(r["committed_before_kill"] for r in results) / max(1, len(results)), 1),
    }
    from rich.table import Table

    table = Table(title=f"kill -9 during ingest ({'postgres' if local else 'sqlite'}, "
                        f"{len(results)} trials, {seconds:.0f} s)")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in summary.items():
        table.add_row(key.replace("_", " "), str(value))
    console.print(table)
    path = write_results("kill_ingest" + ("_postgres" if local else ""),
                         {"seed": args.seed, "summary": summary, "trials": results,
                          "seconds": round(seconds, 1)})
    console.print(f"wrote {path}")
    ok = (summary["killed"] == len(results) and not summary["partial_documents"]
          and not summary["lost_documents"] and not summary["reruns_not_equal_to_clean"]
          and not summary["staged_rows_left"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
