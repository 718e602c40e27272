"""IR metrics through pytrec_eval (trec_eval's own code): nDCG@k, Recall@n, MRR@k.

A run is ``{query id: {doc id: score}}``. trec_eval orders a query's documents
by score, read as 32-bit floats (ties by doc id, descending), so runs handed
here must have scores that are distinct as float32 and in the intended order:
:func:`strict_scores` makes sure of that.
MRR@k is trec_eval's ``recip_rank`` over each query's top ``k`` documents.
A query of the qrels absent from the run (or with no documents) counts 0.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]


def require_pytrec_eval():
    try:
        import pytrec_eval
    except ImportError:  # pragma: no cover - depends on the install
        from ..errors import ConfigError

        raise ConfigError("ragd eval needs pytrec_eval: pip install 'ragd[eval]' "
                          "(or pytrec-eval-terrier)") from None
    return pytrec_eval


def metric_names(k: int = 10, depth: int = 100) -> tuple[str, str, str]:
    """The names this module reports: ``ndcg@k``, ``recall@depth``, ``mrr@k``."""
    return (f"ndcg@{k}", f"recall@{depth}", f"mrr@{k}")


def strict_scores(ranked: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """``(doc_id, score)`` in rank order, scores rounded to float32 (what trec_eval reads)
    and ties (or inversions) resolved by stepping one float32 ulp below the previous score,
    so that trec_eval's score order is the rank order. A score moves by a few float32 ulps
    (about 1e-7 relative) at most; the order never changes."""
    out: list[tuple[str, float]] = []
    previous = np.float32(np.inf)
    floor = np.float32(-np.inf)
    for doc_id, score in ranked:
        value = np.float32(score)
        if not value < previous:
            value = np.nextafter(previous, floor)
        out.append((doc_id, float(value)))
        previous = value
    return out


def top(run_for_query: Mapping[str, float], n: int) -> dict[str, float]:
    """The ``n`` best documents of one query's run, in trec_eval's order."""
    order = sorted(run_for_query.items(), key=lambda item: (-item[1], _desc(item[0])))
    return dict(order[:n])


class _desc(str):
    """A string that sorts in reverse (trec_eval breaks score ties by doc id, descending)."""

    def __lt__(self, other: str) -> bool:  # type: ignore[override]
        return str.__gt__(self, other)


def per_query(qrels: Qrels, run: Run, k: int = 10, depth: int = 100) -> dict[str, dict[str, float]]:
    """``{query id: {metric: value}}`` for every query of ``qrels``."""
    pte = require_pytrec_eval()
    ndcg, recall, mrr = metric_names(k, depth)
    qrels = {q: {d: int(r) for d, r in docs.items()} for q, docs in qrels.items()}
    full = {q: {d: float(s) for d, s in run.get(q, {}).items()} for q in qrels}
    full = {q: docs for q, docs in full.items() if docs}
    head = {q: top(docs, k) for q, docs in full.items()}
    at_depth = {q: top(docs, depth) for q, docs in full.items()}
    deep = pte.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}", f"recall.{depth}"}).evaluate(at_depth)
    shallow = pte.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(head)
    out: dict[str, dict[str, float]] = {}
    for q in qrels:
        d, s = deep.get(q, {}), shallow.get(q, {})
        out[q] = {ndcg: float(d.get(f"ndcg_cut_{k}", 0.0)),
                  recall: float(d.get(f"recall_{depth}", 0.0)),
                  mrr: float(s.get("recip_rank", 0.0))}
    return out


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def aggregate(per_query_metrics: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Mean of each metric over the queries (every query of the qrels counts)."""
    names: list[str] = []
    for values in per_query_metrics.values():
        names = list(values)
        break
    return {m: mean(v[m] for v in per_query_metrics.values()) for m in names}


def evaluate(qrels: Qrels, run: Run, k: int = 10, depth: int = 100) -> dict[str, float]:
    """Mean nDCG@k, Recall@depth and MRR@k of ``run`` over every query of ``qrels``."""
    return aggregate(per_query(qrels, run, k, depth))
