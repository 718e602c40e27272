#!/usr/bin/env python3
"""Answer a QA golden set on a store and score it, on its calibration or held-out half.

The golden sets under bench/golden/ were written before any tuning and stay fixed. To
set a profile's answering thresholds without fitting them to the questions that measure
them, the settings are chosen on the *dev* half (odd-numbered ids: ear-a001, ear-a003,
...) and reported on the *test* half (even ids) and the whole set.

    python bench/qa_golden.py --store STORE bench/golden/ear_qa.jsonl --half dev
    python bench/qa_golden.py --store STORE bench/golden/ear_qa.jsonl          # all, per half

Prints the metrics per half and the failures of the half asked for; writes
bench/results/qa_<golden>.json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ragd.collection import open_collection
from ragd.evaluation.qa import load_golden, metrics, run_golden

RESULTS = Path(__file__).resolve().parent / "results"
SHOWN = ("pass", "answered", "correct_refusal", "hallucination", "citation_precision",
         "expected_section", "p50_ms", "p95_ms")


def half(gid: str) -> str:
    n = int(re.findall(r"\d+", gid)[-1])
    return "dev" if n % 2 else "test"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("golden")
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", default="default")
    ap.add_argument("--half", choices=("dev", "test", "all"), default="all")
    ap.add_argument("--quiet", action="store_true", help="no failure list")
    args = ap.parse_args()
    golden = load_golden(args.golden)
    if args.half != "all":
        golden = [g for g in golden if half(g.id) == args.half]
    coll = open_collection(args.store, args.collection)
    results = run_golden(golden, coll)
    coll.close()
    table = {}
    for name in ("dev", "test"):
        part = [r for r in results if half(r.golden.id) == name]
        if part:
            table[name] = metrics(part)
    table["all"] = metrics(results)
    print(f"{Path(args.golden).name} ({coll.profile.name}): " + ", ".join(
        f"{k} {int(v['questions'])}" for k, v in table.items()))
    print(f"{'':<6}" + "".join(f"{m:>20}" for m in SHOWN))
    for name, m in table.items():
        print(f"{name:<6}" + "".join(f"{m[k]:>20.3f}" for k in SHOWN))
    if not args.quiet:
        for r in results:
            if not r.passed:
                print(f"FAIL {r.golden.id} [{r.answer['status']}/{r.answer['refusal_reason']}] "
                      f"{'; '.join(r.why)} :: {r.golden.question[:100]}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"qa_{Path(args.golden).stem}.json"
    out.write_text(json.dumps({"golden": args.golden, "profile": coll.profile.name,
                               "half": args.half, "metrics": table,
                               "results": [r.as_dict() for r in results]}, indent=1) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
