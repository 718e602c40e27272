"""Run a BEIR dataset through ragd: every query in every mode, timed, scored, written out.

ragd retrieves chunks and BEIR judges documents, so each query's chunk ranking
becomes a document ranking by keeping every document's best-ranked chunk
(the first one seen: highest score) in rank order, up to ``depth`` documents.
Latency is wall time per query around the mode's search call, query embedding
included, after one untimed warm-up query per mode.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .. import __version__
from ..collection import Collection
from ..errors import InvalidQueryError, UsageError
from ..retrieval.query import MAX_QUERY_CHARS
from ..types import Candidate, Plan
from . import metrics as M
from .beir import BeirDataset
from .modes import get_mode

LATENCY_METRICS = ("p50_ms", "p95_ms")


@dataclass(frozen=True)
class EvalConfig:
    k: int = 10              # cutoff of nDCG and MRR
    depth: int = 100         # documents per query in the run (Recall@depth)
    pool: int = 200          # chunks asked of each candidate list by the deep modes
    exclude_self: bool = False

    def __post_init__(self) -> None:
        for name in ("k", "depth", "pool"):
            if getattr(self, name) < 1:
                raise UsageError(f"{name} must be >= 1, got {getattr(self, name)}")

    @property
    def metric_names(self) -> tuple[str, ...]:
        return (*M.metric_names(self.k, self.depth), *LATENCY_METRICS)


@dataclass
class ModeResult:
    name: str
    plan: Plan
    ranked: dict[str, list[tuple[str, float]]]       # query id -> [(doc id, score)], best first
    latencies_ms: dict[str, float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def latency(self) -> dict[str, float]:
        values = np.array(list(self.latencies_ms.values()) or [0.0])
        return {"p50_ms": float(np.percentile(values, 50)),
                "p95_ms": float(np.percentile(values, 95)),
                "mean_ms": float(values.mean()), "max_ms": float(values.max())}

    def measured(self) -> dict[str, float]:
        lat = self.latency
        return {**self.metrics, "p50_ms": lat["p50_ms"], "p95_ms": lat["p95_ms"]}


def plan_dict(plan: Plan) -> dict[str, Any]:
    return {"k": plan.k, "pool": plan.pool, "mode": plan.mode, "fusion": plan.fusion,
            "rrf_k": plan.rrf_k, "weights": dict(plan.weights), "scheme": plan.scheme}


def plan_label(plan: Plan) -> str:
    if plan.mode != "hybrid":
        return f"{plan.mode}, pool {plan.pool}"
    fusion = f"rrf k={plan.rrf_k}" if plan.fusion == "rrf" else f"{plan.fusion} " + ", ".join(
        f"{name} {w:g}" for name, w in plan.weights.items())
    return f"hybrid {fusion}, pool {plan.pool}"


def documents_from_chunks(candidates: Sequence[Candidate], depth: int,
                          exclude: str | None = None) -> list[tuple[str, float]]:
    """Each document's best-ranked chunk, in rank order, at most ``depth`` documents."""
    seen: dict[str, float] = {}
    for cand in candidates:
        if cand.doc_id in seen or cand.doc_id == exclude:
            continue
        seen[cand.doc_id] = float(cand.score)
        if len(seen) >= depth:
            break
    return list(seen.items())


def query_text(text: str) -> str:
    """The query as ragd accepts it: at most MAX_QUERY_CHARS (cut at a space)."""
    text = " ".join(text.split())
    if len(text) <= MAX_QUERY_CHARS:
        return text
    cut = text[:MAX_QUERY_CHARS]
    return cut.rsplit(" ", 1)[0] if " " in cut else cut


def run_mode(name: str, dataset: BeirDataset, coll: Collection, base: Plan, config: EvalConfig,
             on_query: Callable[[int], None] | None = None) -> ModeResult:
    """Every query of ``dataset`` through mode ``name``: document rankings and latencies."""
    mode = get_mode(name)
    plan = mode.plan(base, config.pool)
    queries = {qid: query_text(text) for qid, text in dataset.queries.items()}
    usable = [q for q, t in queries.items() if t]
    if usable:  # warm-up: model session, vector matrix, SQLite pages
        mode.search(queries[usable[0]], plan, coll)
    ranked: dict[str, list[tuple[str, float]]] = {}
    latencies: dict[str, float] = {}
    for i, (qid, text) in enumerate(queries.items(), start=1):
        if text:
            started = time.perf_counter()
            try:
                candidates = mode.search(text, plan, coll)
            except InvalidQueryError:
                candidates = []
            latencies[qid] = (time.perf_counter() - started) * 1000.0
        else:
            candidates = []
        ranked[qid] = M.strict_scores(documents_from_chunks(
            candidates, config.depth, qid if config.exclude_self else None))
        if on_query:
            on_query(i)
    result = ModeResult(name, plan, ranked, latencies)
    run = {q: dict(docs) for q, docs in ranked.items()}
    result.per_query = M.per_query(dataset.qrels, run, config.k, config.depth)
    result.metrics = M.aggregate(result.per_query)
    return result


# -- output ------------------------------------------------------------------------------
def write_run(path: Path, result: ModeResult, query_order: Sequence[str]) -> None:
    """TREC run file: ``qid Q0 docid rank score ragd-<mode>``, queries in dataset order."""
    tag = f"ragd-{result.name}"
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for qid in query_order:
            for rank, (doc_id, score) in enumerate(result.ranked.get(qid, []), start=1):
                out.write(f"{qid} Q0 {doc_id} {rank} {score!r} {tag}\n")


def _version(dist: str) -> str | None:
    try:
        return importlib_metadata.version(dist)
    except importlib_metadata.PackageNotFoundError:
        return None


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {"cpu": cpu, "cores": os.cpu_count(), "load_average": load,
            "platform": platform.platform(),
            "python": platform.python_version(),
            "packages": {d: _version(d) for d in ("numpy", "onnxruntime", "tokenizers",
                                                  "pytrec-eval-terrier", "matplotlib")}}


def summary(dataset: BeirDataset, coll: Collection, results: Sequence[ModeResult],
            config: EvalConfig, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {
        "dataset": {"name": dataset.name, "path": str(dataset.root), "split": dataset.split,
                    "corpus": str(dataset.corpus_path), "corpus_sha256": dataset.corpus_sha256,
                    "queries": len(dataset.queries),
                    "qrels": sum(len(v) for v in dataset.qrels.values())},
        "ragd_version": __version__,
        "embedder": {"name": coll.embedder.name, "dims": coll.embedder.dims,
                     "spec": coll.embedder.spec()},
        "config": {"k": config.k, "depth": config.depth, "pool": config.pool,
                   "exclude_self": config.exclude_self,
                   "aggregation": "best-ranked chunk per document (max score), rank order"},
        "modes": {r.name: {"plan": plan_dict(r.plan), "plan_label": plan_label(r.plan),
                           "metrics": r.metrics, "latency": r.latency} for r in results},
        "machine": machine_info(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        **dict(extra or {}),
    }


def write_outputs(out_dir: Path, dataset: BeirDataset, results: Sequence[ModeResult],
                  summary_data: Mapping[str, Any]) -> dict[str, Path]:
    """``summary.json``, ``per_query.json`` and ``run.<mode>.trec`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for r in results:
        paths[f"run.{r.name}"] = out_dir / f"run.{r.name}.trec"
        write_run(paths[f"run.{r.name}"], r, dataset.query_ids)
    per_query = {r.name: {q: {**r.per_query[q], "latency_ms": r.latencies_ms.get(q)}
                          for q in dataset.query_ids} for r in results}
    paths["per_query"] = out_dir / "per_query.json"
    paths["per_query"].write_text(json.dumps(per_query, indent=1) + "\n", "utf-8")
    paths["summary"] = out_dir / "summary.json"
    paths["summary"].write_text(json.dumps(summary_data, indent=2) + "\n", "utf-8")
    return paths
