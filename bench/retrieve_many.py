#!/usr/bin/env python3
"""retrieve_many against a loop of retrieve on the SciFact test queries: same lists, wall time.

Opens the cached SciFact evaluation store (the one ``ragd eval beir`` builds; its folder
is given with --store), then for each plan runs the 300 test queries (BEIR query text, as
the evaluation sends it) once as ``[retrieve(q, plan, coll) for q in queries]`` and once as
``retrieve_many(queries, plan, coll)``, each on a fresh collection handle (no query vector
remembered from the other run), alternating which goes first over ``--rounds`` rounds. The
lists must be identical (every field); the table gives the median wall time per query of
each and the speedup. Query embedding is included in both (it is what retrieve_many
batches). Latency on a shared machine: the load average is recorded beside the figures.

    python bench/retrieve_many.py --store .ragd/eval/scifact-...-5a81657d [--rounds 3]

Writes bench/results/retrieve_many.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (SCIFACT, load_average, machine_info, make_console,  # noqa: E402
                     write_results)

from ragd import Plan, retrieve, retrieve_many  # noqa: E402
from ragd.collection import open_collection  # noqa: E402
from ragd.evaluation.beir import load_beir  # noqa: E402
from ragd.evaluation.cache import CACHE_COLLECTION  # noqa: E402
from ragd.evaluation.runner import query_text  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True, help="the cached SciFact evaluation store")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    machine = machine_info()  # load average at the start, with the rest
    queries = [t for t in (query_text(q) for q in load_beir(SCIFACT).queries.values()) if t]
    probe = open_collection(args.store, CACHE_COLLECTION)
    plans = {"default (profile plan)": probe.plan, "vector, pool 50": Plan(mode="vector"),
             "lexical, pool 50": Plan(mode="lexical")}
    n_chunks = probe.stats().get("chunks")
    probe.close()
    console = make_console()
    rows = []
    for label, plan in plans.items():
        warm = open_collection(args.store, CACHE_COLLECTION)
        retrieve_many(queries[:16], plan, warm)  # model session, vector matrix, pages
        warm.close()
        times: dict[str, list[float]] = {"loop": [], "many": []}
        loads: list[float] = []
        identical = True
        for r in range(args.rounds):
            order = ("loop", "many") if r % 2 == 0 else ("many", "loop")
            got = {}
            for how in order:
                coll = open_collection(args.store, CACHE_COLLECTION)
                load = os.getloadavg()[0]
                loads.append(round(load, 2))
                started = time.perf_counter()
                if how == "loop":
                    got[how] = [retrieve(q, plan, coll) for q in queries]
                else:
                    got[how] = retrieve_many(queries, plan, coll)
                times[how].append(time.perf_counter() - started)
                coll.close()
                console.print(f"{label:24} round {r + 1} {how:5} "
                              f"{times[how][-1] * 1000 / len(queries):7.2f} ms/query "
                              f"(load {load:.2f})")
            identical = identical and got["loop"] == got["many"]
        loop = statistics.median(times["loop"]) * 1000 / len(queries)
        many = statistics.median(times["many"]) * 1000 / len(queries)
        rows.append({"plan": label, "mode": plan.mode, "queries": len(queries),
                     "loop_ms_per_query": round(loop, 2), "many_ms_per_query": round(many, 2),
                     "speedup": round(loop / many, 2), "identical": identical,
                     "rounds": args.rounds, "load_average_1min_per_run": loads})
    from rich.table import Table

    table = Table(title=f"retrieve_many vs a retrieve loop, SciFact test ({len(queries)} "
                        f"queries, {n_chunks} chunks; load {load_average()})")
    for col in ("plan", "loop ms/query", "retrieve_many ms/query", "speedup", "identical"):
        table.add_column(col)
    for row in rows:
        table.add_row(row["plan"], f"{row['loop_ms_per_query']:.2f}",
                      f"{row['many_ms_per_query']:.2f}", f"{row['speedup']:.2f}x",
                      str(row["identical"]))
    console.print(table)
    path = write_results("retrieve_many", {"store_chunks": n_chunks, "rows": rows,
                                           "machine": machine})
    console.print(f"wrote {path}")
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
