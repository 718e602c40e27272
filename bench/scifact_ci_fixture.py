#!/usr/bin/env python3
"""Make the fixture of the CI quality gate (tests/evaluation/test_regression_gate.py). By hand.

The gate runs a fixed SciFact subset with the document vectors shipped in the repo (so CI
embeds only the queries): the first QUERIES test queries (qrels order), every document they
judge, and hard negatives, i.e. the top NEG documents each of ragd's lexical and vector modes
ranks for those queries on the full corpus (from a `ragd eval beir` run), so the subset stays
about as hard as the full set. Writes tests/evaluation/fixtures/scifact_subset.json (ids,
policy, measured values, gates) and scifact_subset_vectors.npz (int8 vectors of every chunk).

Regenerate after changing the default chunk policy, the embedder or the retrieval defaults:

    ragd eval beir ../shared/data/scifact --out eval-results/scifact
    python bench/scifact_ci_fixture.py --runs eval-results/scifact --store .ragd/eval/scifact-...
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from ragd.collection import open_collection  # noqa: E402
from ragd.embedding.onnx import MiniLMEmbedder  # noqa: E402
from ragd.evaluation.beir import load_beir, write_subset  # noqa: E402
from ragd.evaluation.cache import prepare_store  # noqa: E402
from ragd.evaluation.runner import EvalConfig, run_mode  # noqa: E402
from ragd.types import ChunkPolicy, Plan  # noqa: E402
from support.embed_cache import CachedEmbedder, text_key  # noqa: E402

BENCH = Path(__file__).resolve().parent
FIXTURES = BENCH.parent / "tests" / "evaluation" / "fixtures"
SCIFACT = BENCH.parent.parent / "shared" / "data" / "scifact"
MODES = ("default", "lexical", "vector")
MARGIN = 0.015


def top_docs(run_file: Path, queries: set[str], n: int) -> set[str]:
    out: set[str] = set()
    for line in run_file.read_text().splitlines():
        qid, _, doc, rank, _, _ = line.split()
        if qid in queries and int(rank) <= n:
            out.add(doc)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=Path, required=True, help="`ragd eval beir` --out folder")
    ap.add_argument("--store", required=True, help="its cached store (vectors are read there)")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--neg", type=int, default=10)
    args = ap.parse_args()

    full = load_beir(SCIFACT)
    qids = full.query_ids[:args.queries]
    docs = {d for q in qids for d in full.qrels[q]}
    for mode in ("lexical", "vector"):
        docs |= top_docs(args.runs / f"run.{mode}.trec", set(qids), args.neg)
    doc_ids = sorted(docs)

    source = open_collection(args.store, "beir")
    vectors = {text_key(c.search_text): v for c, v in source.store.iter_chunks("beir")
               if c.doc_id in docs}
    source.close()
    policy = ChunkPolicy()
    with tempfile.TemporaryDirectory() as tmp:
        root = write_subset(SCIFACT, Path(tmp) / "scifact-ci", qids, doc_ids)
        ds = load_beir(root, name="scifact-ci")
        emb = CachedEmbedder(MiniLMEmbedder(), vectors, allow_misses=False)
        prepared = prepare_store(ds, emb, policy, str(Path(tmp) / "store"))
        measured = {m: run_mode(m, ds, prepared.collection, Plan(), EvalConfig()).metrics
                    for m in MODES}
        prepared.collection.close()
    gates = [f"{m}:ndcg@10>={np.floor((measured[m]['ndcg@10'] - MARGIN) * 1000) / 1000:.3f}"
             for m in MODES]
    FIXTURES.mkdir(parents=True, exist_ok=True)
    npz = CachedEmbedder(MiniLMEmbedder(), vectors).save(FIXTURES / "scifact_subset_vectors.npz")
    spec = {"about": "CI quality gate: a fixed SciFact test subset with shipped chunk vectors; "
                     "made by bench/scifact_ci_fixture.py",
            "source": "../shared/data/scifact", "split": "test",
            "queries": qids, "documents": doc_ids, "hard_negatives_per_mode": args.neg,
            "chunk_policy": policy.as_dict(), "embedder": "all-MiniLM-L6-v2",
            "chunks": len(vectors), "measured": measured, "margin": MARGIN, "gates": gates}
    (FIXTURES / "scifact_subset.json").write_text(json.dumps(spec, indent=1) + "\n")
    print(json.dumps({"documents": len(doc_ids), "chunks": len(vectors),
                      "npz_bytes": npz.stat().st_size, "measured": measured, "gates": gates},
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
