#!/usr/bin/env python3
"""Independent check of `ragd eval beir`: re-score its TREC run files with pytrec_eval directly.

Reads OUT_DIR/summary.json (for the dataset path, split, query count, k and depth), the qrels
file and every OUT_DIR/run.<mode>.trec, and computes nDCG@k, Recall@depth and MRR@k with
pytrec_eval alone (this script does not import ragd). Prints ragd's number beside its own
for each mode and metric; exits 1 if any pair differs by more than the tolerance (0.005).

    python bench/verify_eval.py eval-results/scifact
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

import pytrec_eval


def read_qrels(path: Path, n_queries: int) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    order: list[str] = []
    for i, line in enumerate(path.read_text("utf-8").splitlines()):
        cols = line.split("\t")
        if i == 0 and cols[-1].strip() == "score":
            continue
        if len(cols) < 3:
            continue
        qid, doc, rel = cols[0].strip(), cols[-2].strip(), int(float(cols[-1]))
        if qid not in qrels:
            order.append(qid)
        qrels[qid][doc] = rel
    return {q: qrels[q] for q in order[:n_queries]}


def read_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text("utf-8").splitlines():
        qid, q0, doc, rank, score, tag = line.split()
        assert q0 == "Q0", f"{path}: column 2 is {q0!r}, not Q0"
        int(rank)
        run[qid][doc] = float(score)
    return dict(run)


def scores(qrels, run, k: int, depth: int) -> dict[str, float]:
    def cut(docs: dict[str, float], n: int) -> dict[str, float]:
        # trec_eval's own order: score descending, then doc id descending
        best = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)[:n]
        return dict(best)

    deep = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}", f"recall.{depth}"})
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    a = deep.evaluate({q: cut(d, depth) for q, d in run.items() if q in qrels})
    b = rr.evaluate({q: cut(d, k) for q, d in run.items() if q in qrels})
    n = len(qrels)  # a query without results counts 0
    return {f"ndcg@{k}": sum(v[f"ndcg_cut_{k}"] for v in a.values()) / n,
            f"recall@{depth}": sum(v[f"recall_{depth}"] for v in a.values()) / n,
            f"mrr@{k}": sum(v["recip_rank"] for v in b.values()) / n}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", type=Path, help="the --out folder of `ragd eval beir`")
    ap.add_argument("--qrels", type=Path, help="qrels file (default: from summary.json)")
    ap.add_argument("--tolerance", type=float, default=0.005)
    args = ap.parse_args()
    summary = json.loads((args.out_dir / "summary.json").read_text("utf-8"))
    ds, cfg = summary["dataset"], summary["config"]
    qrels_path = args.qrels or Path(ds["path"]) / "qrels" / f"{ds['split']}.tsv"
    qrels = read_qrels(qrels_path, ds["queries"])
    worst = 0.0
    print(f"{'mode':<18} {'metric':<12} {'ragd':>8} {'pytrec_eval':>12} {'diff':>9}")
    for mode, info in summary["modes"].items():
        run = read_run(args.out_dir / f"run.{mode}.trec")
        mine = scores(qrels, run, cfg["k"], cfg["depth"])
        for metric, value in mine.items():
            theirs = info["metrics"][metric]
            worst = max(worst, abs(value - theirs))
            print(f"{mode:<18} {metric:<12} {theirs:>8.4f} {value:>12.4f} {value - theirs:>+9.5f}")
    ok = worst <= args.tolerance
    print(f"largest difference {worst:.6f}: {'AGREE' if ok else 'DISAGREE'} "
          f"(tolerance {args.tolerance})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
