#!/usr/bin/env python3
"""Which canonical chunk policy (in words) should be the default? Measured on SciFact (by hand).

For each candidate (target_tokens, overlap_tokens, max_unit_tokens) this runs `ragd eval beir`
on SciFact test in a fresh working folder whose ragd.toml sets the policy, and reads back
nDCG@10 / Recall@100 / MRR@10 of the lexical, vector and default modes, the number of chunks
and the share of chunks longer than the model's 256-token input (whose tail the embedding never
sees). Prints a table and writes bench/results/chunk_policy.json.

    python bench/chunk_policy.py                       # every candidate (about 10 min each)
    python bench/chunk_policy.py --only 150/24/240     # one
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"
SCIFACT = BENCH.parent.parent / "shared" / "data" / "scifact"
WORK = BENCH / ".cache" / "chunk_policy"
CANDIDATES = ("200/32/240", "150/24/240", "120/20/240", "100/16/240", "150/0/240",
              "150/24/150")
MODES = ("lexical", "vector", "default")


def measure(spec: str) -> dict:
    target, overlap, unit = (int(x) for x in spec.split("/"))
    home = WORK / spec.replace("/", "-")
    home.mkdir(parents=True, exist_ok=True)
    (home / "ragd.toml").write_text(
        f"[chunking]\ntarget_tokens = {target}\noverlap_tokens = {overlap}\n"
        f"max_unit_tokens = {unit}\n")
    env = {**os.environ, "RAGD_HOME": str(home / ".ragd")}
    started = time.perf_counter()
    done = home / "out" / "summary.json"
    if done.exists():  # measured before (the store and runs are kept): read it back
        summary = json.loads(done.read_text())
    else:
        run = subprocess.run([sys.executable, "-m", "ragd.cli", "eval", "beir", str(SCIFACT),
                              "--modes", ",".join(MODES), "--out", str(home / "out"), "--json"],
                             cwd=home, env=env, capture_output=True, text=True)
        if run.returncode:
            raise SystemExit(f"{spec}: ragd eval beir failed:\n{run.stderr}")
        summary = json.loads(run.stdout)
    row = {"policy": spec, "seconds": round(time.perf_counter() - started, 1),
           **_chunk_stats(home / ".ragd")}
    for mode in MODES:
        m = summary["modes"][mode]["metrics"]
        row[mode] = {k: round(v, 4) for k, v in m.items() if k in ("ndcg@10", "recall@100",
                                                                  "mrr@10")}
    return row


def _chunk_stats(home: Path) -> dict:
    """Chunks in the cached eval store and the share over the model's 256-token input."""
    import sqlite3

    from ragd.embedding.tokenizer import count_tokens

    [db] = list((home / "eval").glob("*/ragd.sqlite"))
    texts = [r[0] for r in sqlite3.connect(db).execute("SELECT text FROM chunks")]
    lengths = count_tokens(texts)
    return {"chunks": len(texts),
            "words_mean": round(sum(len(t.split()) for t in texts) / len(texts), 1),
            "over_256_model_tokens": round(sum(n + 2 > 256 for n in lengths) / len(texts), 4)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", action="append", help="TARGET/OVERLAP/MAX_UNIT (repeatable)")
    args = ap.parse_args()
    out = RESULTS / "chunk_policy.json"
    old = json.loads(out.read_text()) if out.exists() else {"rows": []}
    merged = {r["policy"]: r for r in old["rows"]}
    for spec in args.only or CANDIDATES:
        merged[spec] = measure(spec)
        out.write_text(json.dumps({"dataset": "scifact test", "rows": list(merged.values())},
                                  indent=2) + "\n")
    print(f"{'policy':<12} {'chunks':>7} {'words':>6} {'>256':>6} "
          + " ".join(f"{m + ' nDCG@10':>16}" for m in MODES) + f" {'default R@100':>14}")
    for r in merged.values():
        print(f"{r['policy']:<12} {r['chunks']:>7} {r['words_mean']:>6} "
              f"{r['over_256_model_tokens']:>6.1%} "
              + " ".join(f"{r[m]['ndcg@10']:>16.4f}" for m in MODES)
              + f" {r['default']['recall@100']:>14.4f}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
