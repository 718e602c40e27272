#!/usr/bin/env python3
"""Latency of `ragd ask` on the EAR corpus, offline, once the models are loaded.

Builds (once, under bench/.cache/ask-latency) the EAR collection from its corpus with the
shipped chunk vectors (tests/fixtures/ear_vectors.npz, the bundled model's), then answers
every question of bench/golden/ear_qa.jsonl once, after a warm-up on 20 other questions
(bench/golden/ear_recall150.jsonl: the models load, the process settles). Each timed
question is new to the process, so its query embedding, the cross-encoder's scores and the
retrieval are all computed live. The vectors of evidence sentences met by earlier
questions are remembered, as in any long-running process (``Collection.PASSAGE_MEMO``);
``--passage-memo 0`` measures without (every sentence embedded afresh).

    python bench/ask_latency.py [--profile ear]

Prints p50 / p95 / max of the whole answer and of each stage (the trace's timings_ms,
wall clock), the same of each stage's CPU time (time.process_time: every thread of the
process, onnxruntime's included), and writes bench/results/ask_latency.json. Run it on an
otherwise idle machine: the wall figure is what one user waits for one question. On a
shared machine the CPU figures are the steadier ones; compare runs made in the same
conditions, each in a fresh process (the cross-encoder's scores are remembered within one
answer only, so every question runs the model).

    python bench/ask_latency.py --store /tmp/ear   # a copy of an EAR store built before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "tests"))    # support.embed_cache: the shipped vectors

from ragd import ingest, open_collection  # noqa: E402
from ragd.answer import answer  # noqa: E402
from support.embed_cache import CachedEmbedder  # noqa: E402
from ragd.evaluation.qa import load_golden  # noqa: E402
from ragd.answer import pipeline as _pipeline  # noqa: E402

CACHE = REPO / "bench" / ".cache" / "ask-latency"
RESULTS = REPO / "bench" / "results" / "ask_latency.json"
CORPUS = REPO.parent / "shared" / "data" / "ear-corpus" / "ear-parts-736-746.v1.jsonl"
VECTORS = REPO / "tests" / "fixtures" / "ear_vectors.npz"
GOLDEN = REPO / "bench" / "golden" / "ear_qa.jsonl"
WARMUP = REPO / "bench" / "golden" / "ear_recall150.jsonl"


class _CpuClock(_pipeline._Clock):
    """The pipeline's clock, also keeping each stage's CPU time (in CPU_LAPS)."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu_last = time.process_time()
        CPU_LAPS.append({})

    def lap(self, name: str) -> None:
        super().lap(name)
        now = time.process_time()
        CPU_LAPS[-1][name] = (now - self.cpu_last) * 1000
        self.cpu_last = now


CPU_LAPS: list[dict[str, float]] = []


def _collection(profile: str, store: Path | None = None):
    from ragd.embedding.onnx import MiniLMEmbedder

    if store is not None:       # an EAR store built before (by this script), used as it is
        return open_collection(store, "ear")
    embedder = CachedEmbedder(MiniLMEmbedder(), CachedEmbedder.load_vectors(VECTORS),
                              allow_misses=False)
    store = CACHE / profile
    fresh = not store.exists()
    coll = open_collection(store, "ear", embedder, create=True, profile=profile)
    if fresh or coll.store.stats("ear")["documents"] == 0:
        report = ingest([CORPUS], coll)
        assert report.failed == 0, report.failures[:3]
    embedder.allow_misses = True   # questions (and answer sentences) are embedded live
    return coll


def _quantiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50": round(statistics.median(ordered), 1), "p95": round(p95, 1),
            "max": round(ordered[-1], 1), "mean": round(statistics.fmean(ordered), 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="ear")
    ap.add_argument("--limit", type=int, default=0, help="first N questions only")
    ap.add_argument("--store", type=Path, help="an EAR store built before (collection ear)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--passage-memo", type=int, default=None,
                    help="sentence vectors remembered (default: the Collection's, 0: none)")
    args = ap.parse_args()
    coll = _collection(args.profile, args.store)
    if args.passage_memo is not None:
        coll.PASSAGE_MEMO = args.passage_memo
    questions = [g.question for g in load_golden(GOLDEN)]
    if args.limit:
        questions = questions[:args.limit]
    warmup = [json.loads(line)["question"] for line in WARMUP.read_text().splitlines()[1:21]]
    for q in warmup:                        # warm-up on other questions: models loaded
        answer(q, coll)
    totals: list[float] = []
    cpu_totals: list[float] = []
    stages: dict[str, list[float]] = {}
    cpu_stages: dict[str, list[float]] = {}
    statuses = {"answered": 0, "refused": 0}
    load_before = os.getloadavg()[0]
    _pipeline._Clock = _CpuClock
    for q in questions:
        started, cpu_started = time.perf_counter(), time.process_time()
        a = answer(q, coll)
        totals.append((time.perf_counter() - started) * 1000)
        cpu_totals.append((time.process_time() - cpu_started) * 1000)
        statuses[a.status] += 1
        for stage, ms in a.trace.timings_ms.items():
            if stage != "total":
                stages.setdefault(stage, []).append(ms)
        for stage, ms in CPU_LAPS[-1].items():
            cpu_stages.setdefault(stage, []).append(ms)
    coll.close()
    table = {"total": _quantiles(totals), **{s: _quantiles(v) for s, v in stages.items()}}
    cpu = {"total": _quantiles(cpu_totals), **{s: _quantiles(v) for s, v in cpu_stages.items()}}
    load = (load_before + os.getloadavg()[0]) / 2
    memo = coll.PASSAGE_MEMO
    print(f"ragd ask, profile {args.profile}, passage memo {memo}, {len(questions)} questions "
          f"({statuses['answered']} answered, {statuses['refused']} refused), "
          f"{os.cpu_count()} CPUs, load average {load:.1f}")
    print(f"{'stage':<18}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}"
          f"{'CPU p50':>10}{'CPU p95':>10}")
    for stage, q in table.items():
        c = cpu.get(stage, {"p50": "", "p95": ""})
        print(f"{stage:<18}{q['p50']:>10}{q['p95']:>10}{q['max']:>10}{c['p50']:>10}{c['p95']:>10}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"profile": args.profile, "questions": len(questions),
                                    "cpus": os.cpu_count(), "load_average": round(load, 2),
                                    "passage_memo": memo,
                                    "statuses": statuses, "ms": table, "cpu_ms": cpu},
                                   indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
