"""The evaluations ``ragd eval`` runs, without their printing: what a BEIR run needs from the
settings and arguments (:class:`BeirJob`), its summary and output files, and the QA golden
set's gates (arguments and the profile's named set), summary and alerts. The CLI module
only parses arguments, shows progress and prints tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import UsageError
from ..types import ChunkPolicy, Plan
from . import metrics as M
from .gates import Gate, GateResult, parse_gates


def require_tools(report: bool = False) -> None:
    """Fail before any work (ConfigError) when pytrec_eval, or for a report matplotlib,
    is not installed."""
    M.require_pytrec_eval()
    if report:
        from .report import require_pyplot

        require_pyplot()


@dataclass
class BeirJob:
    """One ``ragd eval beir`` run, resolved from the settings and arguments."""

    dataset: Any            # BeirDataset
    embedder: Any           # Embedder
    profile: Any            # Profile
    policy: ChunkPolicy
    location: str
    collection: str
    out_dir: Path
    base: Plan

    @classmethod
    def resolve(cls, directory: str, split: str, limit_queries: int | None, *,
                embedder: str | None = None, profile: str | None = None,
                store: str | None = None, collection: str | None = None,
                cache: str | None = None, out: str | None = None) -> "BeirJob":
        """Settings (``embedder``/``profile`` override them), the profile and its chunk
        policy for the embedder, the dataset, and where the corpus is ingested: ``store``
        (a collection named after the dataset, corpus and policy) or a cache folder under
        the ragd home."""
        from ..config import load_settings
        from ..embedding import make_embedder
        from ..profiles import load_profile
        from .beir import load_beir
        from .cache import CACHE_COLLECTION, cache_dir, policy_hash, slug

        settings = load_settings({"embedder": embedder, "profile": profile})
        prof = load_profile(settings.profile or None)
        dataset = load_beir(directory, split, limit_queries)
        emb = make_embedder(settings.embedder or prof.embedder)
        policy = settings.chunking or prof.chunk_policy(emb.max_input_tokens)
        if store:
            location = store
            name = collection or (f"beir-{slug(dataset.name)}-{dataset.corpus_sha256[:8]}-"
                                  f"{policy_hash(policy)}")
        else:
            location = cache or str(cache_dir(settings.home, dataset, emb, policy))
            name = collection or CACHE_COLLECTION
        out_dir = Path(out) if out else Path("eval-results") / slug(dataset.name)
        base = prof.plan(k=settings.k, mode=settings.mode, fusion=settings.fusion)
        return cls(dataset, emb, prof, policy, location, name, out_dir, base)

    def summary(self, coll: Any, results: Sequence[Any], config: Any, stats: Mapping[str, Any],
                report: Any, gate_results: Sequence[GateResult]) -> dict[str, Any]:
        """The run's ``summary.json`` content (ingest failures: the first 20)."""
        from .runner import summary

        return summary(self.dataset, coll, results, config, {
            "store": {"url": coll.store.url, "collection": self.collection,
                      "chunks": stats.get("chunks"), "chunk_policy": self.policy.as_dict()},
            "ingest": report.as_dict() | {"failures": report.as_dict()["failures"][:20]},
            "gates": gate_dicts(gate_results)})


def gate_dicts(results: Sequence[GateResult]) -> list[dict[str, Any]]:
    return [{"gate": str(g.gate), "value": g.value, "passed": g.passed} for g in results]


def qa_gates(texts: Sequence[str], evaluation: Mapping[str, Any], gate_set: str | None,
             profile: str) -> list[Gate]:
    """The ``--gate`` conditions and, when ``gate_set`` is named, the profile's gate set
    of that name (``[evaluation.gates]``); UsageError naming the sets it has."""
    from .qa import METRICS

    gates = parse_gates(texts, ["qa"], METRICS, default_mode="qa")
    if gate_set:
        named = evaluation["gates"]
        if gate_set not in named:
            raise UsageError(f"profile {profile!r} has no gate set {gate_set!r}; "
                             f"it has: {', '.join(named) or 'none'}")
        gates += parse_gates(named[gate_set], ["qa"], METRICS, default_mode="qa")
    return gates


def qa_summary(golden: str, profile: str, llm: Any, measured: Mapping[str, float],
               gate_results: Sequence[GateResult], results: Sequence[Any]) -> dict[str, Any]:
    return {"golden": golden, "profile": profile,
            "path": "llm" if llm is not None else "extractive", "metrics": dict(measured),
            "gates": gate_dicts(gate_results), "results": [r.as_dict() for r in results]}


def alerts(evaluation: Mapping[str, Any], bad: Sequence[GateResult]) -> list[str]:
    """The profile's alert messages (``[evaluation.alerts]``) of the failed gates' metrics,
    each once, in gate order."""
    table = evaluation["alerts"]
    return list(dict.fromkeys(table[g.gate.metric] for g in bad if g.gate.metric in table))


def failed_gates_line(bad: Sequence[GateResult]) -> str:
    """``N gate(s) failed: GATE (measured X); ...``."""
    return (f"{len(bad)} gate{'s' if len(bad) > 1 else ''} failed: "
            + "; ".join(f"{g.gate} (measured {g.value:.4f})" if g.value is not None
                        else f"{g.gate} (not measured)" for g in bad))
