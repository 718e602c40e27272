"""Lexical query speed of an embedded store, pruned against exhaustive BM25 scoring.

    PYTHONPATH=src .venv/bin/python bench/lexical_speed.py STORE [--collection NAME]
        [--queries 300] [--limit 50] [--passes 3] [--name lexical_speed]

Opens a SQLite store read as it is (its saved ``.lexical`` file is mapped; a missing one
is built and saved first: copy a store you must not change), takes the SciFact test
queries (``ragd.text.query_terms``, as ``bench/search.py`` does) and, per query, times
(wall clock and the thread's CPU time, which background load inflates less):

- ``store.lexical_search`` (the whole store call: snapshot, analysis, scoring, top k);
- when the code has it (``LexicalView.top(prune=...)``), the scoring alone on the loaded
  view, the default one-pass sum and the pruned (MaxScore) path, interleaved query by
  query so background load hits both alike, and checks they return the same rows and
  scores for every query.

Run it with ``PYTHONPATH`` at another checkout's ``src`` to time that code on the same
store; or, on a shared machine where runs made one after the other see different load,
``--baseline-src OTHER/src``: that checkout's ``lexical_index`` scores the very same
(mapped) postings, interleaved query by query with this one (``baseline scoring`` against
``score one-pass``), and their results are compared. The load average is recorded beside
the figures. Results: ``bench/results/<name>.json``.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from pathlib import Path
from typing import Any

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


def baseline_view(src: Path, view: Any) -> Any:
    """``view``'s main segment (the same arrays) as a view of the ``lexical_index`` module of
    the checkout at ``src`` (loaded under another name beside this one's)."""
    import importlib.util

    name = "ragd.stores._baseline_lexical_index"
    spec = importlib.util.spec_from_file_location(name, src / "ragd/stores/lexical_index.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    m = view.main
    main = module._Postings.from_arrays(m.terms, m.indptr, m.rows, m.tf, m.lengths)
    return module.LexicalView(view.version, view.rowids, view.keys, view.alive, main,
                              module._Postings([], len(m.lengths)), view.lengths)


def compare_read_back(view: Any, hashes: list[list[int]], limit: int) -> list[dict[str, Any]]:
    """Per query, the compiled loop's two read-backs on the view's main segment (best of 5
    runs each, interleaved), grouped by the query's postings per row."""
    from numba import njit

    from ragd.stores import _lexical_jit as jit

    no_mask = np.zeros(1, dtype=np.bool_)

    @njit(nogil=True)
    def touched(rows, tf, lo, hi, w, norm, scores, limit):
        total = 0
        for t in range(lo.shape[0]):
            total += hi[t] - lo[t]
        seen = np.empty(total, dtype=np.int64)
        n = jit.accumulate(rows, tf, lo, hi, w, norm, no_mask, False, scores, seen, 0)
        values = np.empty(n, dtype=np.float64)
        for i in range(n):
            values[i] = scores[seen[i]]
            scores[seen[i]] = 0.0
        kth = jit.kth_best(values, n, limit) if n > limit else 0.0
        return seen[:n][values >= kth]

    @njit(nogil=True)
    def dense(rows, tf, lo, hi, w, norm, scores, limit):
        jit.add_dense(rows, tf, lo, hi, w, norm, no_mask, False, scores)
        return jit.select_dense(scores, no_mask, False, limit)[0]

    n_live, norm, _ = view._stats(1.2, 0.75)
    n_rows = len(view.keys)
    scores = np.zeros(n_rows)
    rows, tf = view.main.rows, view.main.tf
    timed = []
    for q in hashes:
        lo, hi = view.main.span_arrays(np.fromiter(dict.fromkeys(q), dtype=np.int64))
        held = hi > lo
        lo, hi = lo[held], hi[held]
        if not len(lo):
            continue
        df = (hi - lo).astype(np.float64)
        w = np.log(1.0 + (n_live - df + 0.5) / (df + 0.5)) * 2.2
        best = {"touched": float("inf"), "dense": float("inf")}
        for _ in range(5):
            for name, fn in (("touched", touched), ("dense", dense)):
                t = time.perf_counter()
                fn(rows, tf, lo, hi, w, norm, scores, limit)
                best[name] = min(best[name], time.perf_counter() - t)
        timed.append((float((hi - lo).sum()) / n_rows, best["touched"] * 1e6,
                      best["dense"] * 1e6))
    out = []
    for low, high in ((0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0), (1.0, 1.5), (1.5, 3.0),
                      (3.0, float("inf"))):
        sel = [t for t in timed if low <= t[0] < high]
        if sel:
            out.append({"ratio": f"{low}-{high}", "queries": len(sel),
                        "touched_us": round(median([t[1] for t in sel]), 1),
                        "dense_us": round(median([t[2] for t in sel]), 1)})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--collection", default=None, help="default: the store's only one")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--name", default="lexical_speed")
    parser.add_argument("--baseline-src", type=Path, default=None,
                        help="another checkout's src/: its LexicalView.top, interleaved")
    parser.add_argument("--store-only", action="store_true",
                        help="time store.lexical_search alone (the same protocol on any code)")
    parser.add_argument("--read-back", action="store_true",
                        help="also time the compiled loop's two ways of reading the rows back "
                             "(list of touched rows, pass over the score array) per query, "
                             "by postings per row: what sets _lexical_jit.DENSE_SHARE")
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
    prunable = "prune" in inspect.signature(view.top).parameters
    mismatches = 0 if prunable else None
    for w, q in zip(words, hashes):  # warm-up and the exactness check
        store.lexical_search(coll, w, args.limit)
        if prunable and (view.top(q, args.limit, prune=True)
                         != view.top(q, args.limit, prune=False)):
            mismatches += 1
    calls: dict[str, Any] = {"store.lexical_search": lambda w, q: store.lexical_search(
        coll, w, args.limit)}
    compilable = "compiled" in inspect.signature(view.top).parameters
    compiled_same = None
    if compilable and not args.store_only:
        compiled_same = sum(view.top(q, args.limit, compiled=True)
                            == view.top(q, args.limit, compiled=False) for q in hashes)
        calls["score numpy"] = lambda w, q: view.top(q, args.limit, compiled=False)
        calls["score compiled"] = lambda w, q: view.top(q, args.limit, compiled=True)
    elif prunable and not args.store_only:
        calls["score one-pass"] = lambda w, q: view.top(q, args.limit, prune=False)
    if prunable and not args.store_only:
        calls["score pruned"] = lambda w, q: view.top(q, args.limit, prune=True)
    baseline_same = None
    if args.baseline_src is not None:
        base = baseline_view(args.baseline_src, view)
        baseline_same = sum(base.top(q, args.limit) == view.top(q, args.limit) for q in hashes)
        calls["baseline scoring"] = lambda w, q: base.top(q, args.limit)
    passes = []
    for _ in range(args.passes):
        times: dict[str, list[float]] = {}
        for w, q in zip(words, hashes):
            for name, call in calls.items():
                t, c = time.perf_counter(), time.thread_time()
                call(w, q)
                times.setdefault(name, []).append((time.perf_counter() - t) * 1e3)
                times.setdefault(name + " (cpu)", []).append((time.thread_time() - c) * 1e3)
        passes.append({k: stats(v) for k, v in times.items()})
    read_back = compare_read_back(view, hashes, args.limit) if args.read_back else None
    store.close()
    summary = {k: {s: round(median([p[k][s] for p in passes]), 3)
                   for s in ("p50", "p95", "mean", "qps")} for k in passes[0]}
    result = {"benchmark": "lexical_speed", "command": " ".join(sys.argv),
              "machine": machine_info(), "store": str(args.store), "chunks": len(view.keys),
              "queries": len(words), "limit": args.limit, "passes": args.passes,
              "timed": list(calls),
              "statistic": "median over passes of per-pass figures (ms)",
              "first_search_seconds": round(first, 3),
              "postings_per_query": {"p50": int(percentile(postings, 50)),
                                     "p95": int(percentile(postings, 95)),
                                     "max": int(max(postings))},
              "pruned_vs_exhaustive_mismatches": mismatches,
              "compiled_identical_results": compiled_same,
              "baseline_src": str(args.baseline_src) if args.baseline_src else None,
              "baseline_identical_results": baseline_same,
              "latency_ms": summary, "per_pass": passes, "read_back_us": read_back,
              "load_average": {"start": started, "end": load_average()}}
    out = Path(__file__).resolve().parent / "results" / f"{args.name}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    console.print(f"{len(view.keys):,} chunks, {len(words)} queries, limit {args.limit}, "
                  f"postings/query p50 {result['postings_per_query']['p50']:,}; "
                  f"pruned != exhaustive: {mismatches}; compiled identical: {compiled_same}; "
                  f"baseline identical: {baseline_same}; "
                  f"load {started} -> {load_average()}")
    for k, v in summary.items():
        console.print(f"  {k:30s} p50 {v['p50']:8.3f} ms  p95 {v['p95']:8.3f} ms  "
                      f"{v['qps']:8.1f} q/s")
    for row in read_back or []:
        console.print(f"  postings/row {row['ratio']:>9}: {row['queries']:3d} queries, "
                      f"touched list {row['touched_us']:9.1f} us, dense pass "
                      f"{row['dense_us']:9.1f} us (best of 5, median over the queries)")
    console.print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
