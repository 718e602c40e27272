"""Lexical query speed of an embedded store, pruned against exhaustive BM25 scoring.

    PYTHONPATH=src .venv/bin/python bench/lexical_speed.py STORE [--collection NAME]
        [--queries 300] [--limit 50] [--passes 3] [--name lexical_speed]

Opens a SQLite store read as it is (its saved ``.lexical`` file is mapped; a missing or
old-format one is rebuilt and saved first: copy a store you must not change), takes the
SciFact test queries (``ragd.text.query_terms``, as ``bench/search.py`` does) and, per
query, times:

- ``store.lexical_search`` (the whole store call: snapshot, analysis, scoring, top k);
- the scoring alone on the loaded view, exhaustive (every posting) and pruned (MaxScore),
  interleaved query by query so background load hits both alike.

It checks that pruned and exhaustive return the same rows and scores for every query
(exactness, the reason the pruning may be the default), and reports the postings the
query terms hold. Latencies are wall clock on a shared machine: the load average is
recorded beside them. Results: ``bench/results/<name>.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average, machine_info, make_console, median, percentile  # noqa: E402
from search import scifact_test_queries  # noqa: E402

from ragd.analysis import query_analyze, term_hash  # noqa: E402
from ragd.stores import open_store  # noqa: E402
from ragd.text import query_terms  # noqa: E402

console = make_console()


def stats(ms: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(ms, 50), 3), "p95": round(percentile(ms, 95), 3),
            "mean": round(float(np.mean(ms)), 3), "qps": round(1000.0 * len(ms) / sum(ms), 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--collection", default=None, help="default: the store's only one")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--name", default="lexical_speed")
    args = parser.parse_args(argv)
    started = load_average()
    store = open_store(args.store)
    coll = args.collection or store.list_collections()[0].name
    texts = [t for _, t in scifact_test_queries(args.queries)]
    words = [query_terms(t) for t in texts]
    t0 = time.perf_counter()
    store.lexical_search(coll, words[0], args.limit)
    first = time.perf_counter() - t0
    cid = next(iter(store._lexical))
    view = store._lexical[cid].view()
    hashes = [[term_hash(t) for t in query_analyze(w)] for w in words]
    postings = [sum(len(view.main.get(h)[0]) + len(view.delta.get(h)[0])
                    for h in dict.fromkeys(q)) for q in hashes]
    mismatches = 0
    for w, q in zip(words, hashes):  # warm-up and the exactness check
        store.lexical_search(coll, w, args.limit)
        if view.top(q, args.limit, prune=True) != view.top(q, args.limit, prune=False):
            mismatches += 1
    passes = []
    for _ in range(args.passes):
        times: dict[str, list[float]] = {"store.lexical_search": [], "score exhaustive": [],
                                         "score pruned": []}
        for w, q in zip(words, hashes):
            t = time.perf_counter()
            store.lexical_search(coll, w, args.limit)
            times["store.lexical_search"].append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            view.top(q, args.limit, prune=False)
            times["score exhaustive"].append((time.perf_counter() - t) * 1e3)
            t = time.perf_counter()
            view.top(q, args.limit, prune=True)
            times["score pruned"].append((time.perf_counter() - t) * 1e3)
        passes.append({k: stats(v) for k, v in times.items()})
    store.close()
    summary = {k: {s: round(median([p[k][s] for p in passes]), 3)
                   for s in ("p50", "p95", "mean", "qps")} for k in passes[0]}
    result = {"benchmark": "lexical_speed", "command": " ".join(sys.argv),
              "machine": machine_info(), "store": str(args.store), "chunks": len(view.keys),
              "queries": len(words), "limit": args.limit, "passes": args.passes,
              "statistic": "median over passes of per-pass figures (ms)",
              "first_search_seconds": round(first, 3),
              "postings_per_query": {"p50": int(percentile(postings, 50)),
                                     "p95": int(percentile(postings, 95)),
                                     "max": int(max(postings))},
              "pruned_vs_exhaustive_mismatches": mismatches,
              "latency_ms": summary, "per_pass": passes,
              "load_average": {"start": started, "end": load_average()}}
    out = Path(__file__).resolve().parent / "results" / f"{args.name}.json"
    import json
    out.write_text(json.dumps(result, indent=1) + "\n")
    console.print(f"{len(view.keys):,} chunks, {len(words)} queries, limit {args.limit}, "
                  f"postings/query p50 {result['postings_per_query']['p50']:,}; "
                  f"pruned != exhaustive: {mismatches}; load {started} -> {load_average()}")
    for k, v in summary.items():
        console.print(f"  {k:24s} p50 {v['p50']:8.3f} ms  p95 {v['p95']:8.3f} ms  "
                      f"{v['qps']:8.1f} q/s")
    console.print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
