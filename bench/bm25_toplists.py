#!/usr/bin/env python3
"""Would per-term top lists make PostgreSQL's BM25 fast and still exact? A simulation on an
embedded store's postings, before any table is designed.

The PostgreSQL store scores, with each chunk's sparsevec, every row holding the query's
rarer terms (up to a budget of 4,000): ~7 µs a row, p95 42 ms on SciFact's 6,922 distinct
chunks (docs/benchmarks.md). The design in question keeps, per term, its M rows of largest
BM25 document-side weight. A query then scores only the union of its terms' lists; the
k-th score found, θ, is final when no row outside the lists can beat it: such a row holds
each term t with a weight of at most w_t(M), the M-th largest (0 when the term has no more
than M rows), so its score is at most B = Σ idf_t · w_t(M). When θ > B the top k is
exact after one round; otherwise a second round (2M) or today's path.

For each M this prints the share of queries exact after one and after two rounds and the
rows scored (the union's size), against the rows today's exhaustive path scores.

    python bench/bm25_toplists.py STORE [--collection NAME] [--k 10] [--queries 300]
        [--questions FILE.jsonl]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from _common import SCIFACT, write_results  # noqa: E402
from ragd.analysis import query_analyze, term_hash  # noqa: E402
from ragd.stores import open_store  # noqa: E402
from ragd.text import query_terms  # noqa: E402

K1, B = 1.2, 0.75


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--collection")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--lists", default="16,32,64,128,256")
    ap.add_argument("--name", default="bm25_toplists", help="results file name")
    ap.add_argument("--questions", type=Path, default=SCIFACT / "queries.jsonl",
                    help="JSON lines with a 'text' or 'question' (default: SciFact's queries)")
    args = ap.parse_args()
    store = open_store(args.store)
    name = args.collection or store.list_collections()[0].name
    with store.snapshot(name) as snap:
        view = snap.lexical_view()
    main_ = view.main
    n_rows = len(view.keys)
    n_live, norm = view.norms(K1, B)
    # every posting's document-side weight, and per term its weights in decreasing order
    weights = main_.tf * (K1 + 1.0) / (main_.tf + norm[main_.rows])
    rows_ = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    texts = [t for t in (r.get("text") or r.get("question") for r in rows_) if t][:args.queries]
    sizes = [int(m) for m in args.lists.split(",")]
    stats = {m: {"one": 0, "two": 0, "rows": []} for m in sizes}
    today = []
    for text in texts:
        hashes = list(dict.fromkeys(term_hash(t) for t in query_analyze(query_terms(text))))
        terms = [(lo, hi) for lo, hi in (_span(main_, h) for h in hashes) if hi > lo]
        if not terms:
            continue
        idf = [np.log(1.0 + (n_live - (hi - lo) + 0.5) / ((hi - lo) + 0.5)) for lo, hi in terms]
        scores = np.zeros(n_rows)
        for (lo, hi), w in zip(terms, idf):
            scores[main_.rows[lo:hi]] += w * weights[lo:hi]
        today.append(sum(hi - lo for lo, hi in terms))
        ranked = [_top(weights[lo:hi], 2 * max(sizes) + 1) + lo for lo, hi in terms]
        for m in sizes:
            exact = 0
            for size in (m, 2 * m):
                rows = np.unique(np.concatenate([main_.rows[r[:size]] for r in ranked]))
                found = np.sort(scores[rows])[::-1]
                theta = found[args.k - 1] if len(found) >= args.k else 0.0
                bound = sum(w * (weights[r[size]] if len(r) > size else 0.0)
                            for r, w in zip(ranked, idf))
                if size == m:
                    stats[m]["rows"].append(len(rows))
                if theta > bound:
                    exact = 1 if size == m else 2
                    break
            if exact == 1:
                stats[m]["one"] += 1
            if exact:
                stats[m]["two"] += 1
    n = len(today)
    print(f"{name}: {n_rows:,} rows, {n} queries, k = {args.k}; today's exhaustive path "
          f"scores {statistics.median(today):,.0f} rows at the median "
          f"(p95 {sorted(today)[int(0.95 * (n - 1))]:,})")
    print(f"{'M':>6}{'exact, 1 round':>16}{'exact, 2 rounds':>17}{'rows p50':>10}{'rows p95':>10}")
    out = {}
    for m in sizes:
        rows = sorted(stats[m]["rows"])
        out[m] = {"exact_one_round": round(stats[m]["one"] / n, 3),
                  "exact_two_rounds": round(stats[m]["two"] / n, 3),
                  "rows_p50": statistics.median(rows), "rows_p95": rows[int(0.95 * (n - 1))]}
        print(f"{m:>6}{out[m]['exact_one_round']:>16.3f}{out[m]['exact_two_rounds']:>17.3f}"
              f"{out[m]['rows_p50']:>10,.0f}{out[m]['rows_p95']:>10,}")
    write_results(args.name, {"store": str(args.store), "rows": n_rows, "queries": n,
                                   "k": args.k, "today_rows_p50": statistics.median(today),
                                   "lists": out})
    return 0


def _top(w: np.ndarray, n: int) -> np.ndarray:
    """Indices of the ``n`` largest of ``w``, largest first (all of them when fewer)."""
    if len(w) > n:
        part = np.argpartition(-w, n - 1)[:n]
        return part[np.argsort(-w[part], kind="stable")]
    return np.argsort(-w, kind="stable")


def _span(postings, term: int) -> tuple[int, int]:
    i = postings.find(term)
    return (0, 0) if i < 0 else (int(postings.indptr[i]), int(postings.indptr[i + 1]))


if __name__ == "__main__":
    sys.exit(main())
