#!/usr/bin/env python3
"""Does the embedding model's query instruction help hybrid search? SciFact, both splits.

    python bench/scifact_query_instruction.py --store PATH/ragd.sqlite   # a ragd eval beir store

bge-small-en-v1.5 (the default model) is run by MTEB with the instruction "Represent this
sentence for searching relevant passages: " before every query
(``ragd.embedding.bge.QUERY_PREFIX``); ragd puts it before a query that asks only (its
``instruction = "questions"``). This measures the same store searched with every query
embedded after it, without it (as a passage is) and as the default does, alone and fused
with the store's BM25 list: RRF k = 60 and z-score fusion, pools of 50 (the default plan),
and both vector lists with BM25.
Each document counts as its best chunk, as in ``ragd eval beir``; scores by pytrec_eval.
Writes bench/results/scifact_query_instruction.json. Run by hand (a minute: it embeds every
query of both splits three times, one by one).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from scifact_fusion import RESULTS, SCIFACT, cands, evaluate  # noqa: E402

from ragd.collection import open_collection  # noqa: E402
from ragd.embedding.bge import asks  # noqa: E402
from ragd.evaluation.beir import load_beir  # noqa: E402
from ragd.evaluation.runner import query_text  # noqa: E402
from ragd.retrieval.fusion import fuse  # noqa: E402
from ragd.text import query_terms  # noqa: E402

POOL = 50


def lists_for(coll, split: str) -> tuple[object, dict]:
    """Per query: the store's BM25 list and its vector lists for the query embedded after
    the model's instruction ("always", as MTEB runs it) and without it ("never"), each
    ``POOL`` deep, 200 for the vector-only rows; and what the default ("questions") does."""
    from ragd.embedding import make_embedder

    dataset = load_beir(SCIFACT, split)
    texts = {qid: query_text(raw) for qid, raw in dataset.queries.items()}
    readers = {name: make_embedder({"kind": "bge-small", "instruction": name})
               for name in ("always", "never", "questions")}
    out = {}
    with coll.store.snapshot(coll.name) as snap:
        for qid, text in texts.items():
            def hits(found):
                return [(h.doc_id, h.chunk_index, float(h.score)) for h in found]
            row = {"lexical": hits(snap.lexical_search(query_terms(text), 200))}
            for name, embedder in readers.items():
                row[name] = hits(snap.vector_search(embedder.embed_query(text), 200))
            out[qid] = row
    return dataset, out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--store", required=True, help="a store `ragd eval beir` built (collection beir)")
    p.add_argument("--splits", nargs="+", default=["test", "train"])
    args = p.parse_args()
    coll = open_collection(args.store, "beir")
    rows = []
    half = {"weights": {"vector": 0.5, "lexical": 0.5}}
    for split in args.splits:
        started = time.time()
        dataset, lists = lists_for(coll, split)

        def fused(vectors: list[str], method: str, params: dict) -> dict:
            out = {}
            for q, li in lists.items():
                named = {"lexical": cands(li["lexical"], "lexical", POOL)}
                for name in vectors:
                    named["vector" if len(vectors) == 1 else name] = cands(li[name], "vector",
                                                                           POOL)
                out[q] = fuse(named, method, params)
            return out

        asking = sum(asks(query_text(raw)) for raw in dataset.queries.values())
        print(f"({split}: {asking} of {len(lists)} queries ask)")
        runs = {
            "vector only, with the instruction (pool 200)":
                {q: cands(li["always"], "vector", 200) for q, li in lists.items()},
            "vector only, without it (pool 200)":
                {q: cands(li["never"], "vector", 200) for q, li in lists.items()},
            "vector only, the default: questions only (pool 200)":
                {q: cands(li["questions"], "vector", 200) for q, li in lists.items()},
            "RRF k60, with the instruction": fused(["always"], "rrf", {"k": 60}),
            "RRF k60, without it": fused(["never"], "rrf", {"k": 60}),
            "RRF k60, the default (questions only)": fused(["questions"], "rrf", {"k": 60}),
            "RRF k60, both vector lists and BM25": fused(["always", "never"], "rrf", {"k": 60}),
            "z-score .5/.5, with the instruction": fused(["always"], "zscore", half),
            "z-score .5/.5, without it": fused(["never"], "zscore", half),
        }
        for name, run in runs.items():
            result = evaluate(dataset, run)
            rows.append({"split": split, "experiment": name,
                         **{k: round(v, 4) for k, v in result.items()}})
            print(f"{split:<6} {name:<48} nDCG@10 {result['ndcg@10']:.4f}  "
                  f"R@100 {result['recall@100']:.4f}", flush=True)
        print(f"({split}: {len(lists)} queries, {time.time() - started:.0f} s)", flush=True)
    out = RESULTS / "scifact_query_instruction.json"
    out.write_text(json.dumps({"store": args.store, "pool": POOL, "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
