#!/usr/bin/env python3
"""Which default ranks SciFact best? Fusion, pool, MMR, title field, PRF and a cross-encoder,
measured on the real store's candidate lists (run by hand).

    python bench/scifact_fusion.py dump --store PATH/ragd.sqlite [--split train]   # once
    python bench/scifact_fusion.py run [--split train] [--rerank]              # every candidate
    python bench/scifact_fusion.py run --rerank-only --suffix _rerank          # cross-encoder

``dump`` opens a SciFact store built by ``ragd eval beir`` under the default chunk policy
(collection ``beir``) and keeps, per query of the split (test: 300, train: 809, the dev
split), the store's own lexical and vector hit lists (1,000 deep, scores included) and every
chunk's context line and text (bench/.cache/sf/lists-SPLIT.pkl). A pool of P is the first P
hits of a list: the store ranks deterministically, so this is what a search with ``pool = P``
returns. ``run`` fuses them with ragd's ``fuse``, turns chunks into documents by the
best-ranked chunk as ``ragd eval beir`` does, and scores with ragd's metrics (pytrec_eval):
fusion methods and pools, MMR over the head, BM25 over title and text as two fields and RM3
feedback (on a replica of the store's BM25), and the bundled cross-encoder re-scoring the
head. Writes bench/results/scifact_fusion[SUFFIX].json.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / ".cache" / "sf"
RESULTS = BENCH / "results"
SCIFACT = BENCH.parent.parent / "shared" / "data" / "scifact"
DEPTH = 1000

from ragd.evaluation import metrics as M  # noqa: E402
from ragd.evaluation.beir import load_beir  # noqa: E402
from ragd.evaluation.runner import query_text  # noqa: E402
from ragd.retrieval.fusion import fuse  # noqa: E402
from ragd.text import query_terms  # noqa: E402
from ragd.types import Candidate  # noqa: E402


def cmd_dump(args: argparse.Namespace) -> None:
    from ragd.collection import open_collection

    dataset = load_beir(SCIFACT, args.split)
    coll = open_collection(args.store, "beir")
    chunks, vectors = {}, []
    for chunk, vector in coll.store.iter_chunks("beir"):
        chunks[chunk.key] = (chunk.context, chunk.text)
        vectors.append((chunk.key, np.asarray(vector, np.float32)))
    lists = {}
    started = time.time()
    with coll.store.snapshot("beir") as snap:
        for qid, raw in dataset.queries.items():
            text = query_text(raw)
            lex = snap.lexical_search(query_terms(text), DEPTH)
            vec = snap.vector_search(coll.embed_query(text), DEPTH)
            lists[qid] = {"text": text,
                          "lexical": [(h.doc_id, h.chunk_index, float(h.score)) for h in lex],
                          "vector": [(h.doc_id, h.chunk_index, float(h.score)) for h in vec]}
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"lists-{args.split}.pkl", "wb") as f:
        pickle.dump({"lists": lists, "chunks": chunks,
                     "keys": [k for k, _ in vectors],
                     "vectors": np.stack([v for _, v in vectors])}, f)
    print(f"{len(lists)} queries, {len(chunks)} chunks in {time.time() - started:.0f} s")


def load(split: str = "test") -> dict:
    with open(CACHE / f"lists-{split}.pkl", "rb") as f:
        return pickle.load(f)


def cands(hits, source: str, pool: int) -> list[Candidate]:
    return [Candidate(doc_id=d, chunk_index=i, text="", score=s, rank=r,
                      **{f"{source}_score": s, f"{source}_rank": r})
            for r, (d, i, s) in enumerate(hits[:pool], start=1)]


def documents(ranked, depth: int = 100) -> dict[str, float]:
    docs: dict[str, float] = {}
    for c in ranked:
        if c.doc_id not in docs:
            docs[c.doc_id] = float(c.score)
            if len(docs) == depth:
                break
    return dict(M.strict_scores(list(docs.items())))


def by_document(hits):
    """A hit list with each document once, at its best chunk's place."""
    seen: set[str] = set()
    return [h for h in hits if not (h[0] in seen or seen.add(h[0]))]


def evaluate(dataset, runs: dict[str, list]) -> dict[str, float]:
    return M.evaluate(dataset.qrels, {q: documents(r) for q, r in runs.items()}, 10, 100)


# -- a BM25 replica of the store's (same analyser, Lucene idf, k1 1.2, b .75) with fields ------
class FieldBM25:
    """BM25 over chunks' context line (title) and text as two fields: a term's frequency is
    ``title_weight × tf(title) + tf(text)`` and the length likewise (BM25F with one k1, b);
    ``title_weight`` 1 is the store's BM25 over the search text. Query terms may be weighted."""

    def __init__(self, keys, chunks, title_weight: float = 1.0, k1: float = 1.2,
                 b: float = 0.75) -> None:
        from collections import Counter

        from scipy import sparse

        from ragd.analysis import analyze

        self.keys, self.vocab, self.k1 = keys, {}, k1
        rows, cols, vals, lengths = [], [], [], []
        self.terms_of = []
        for i, key in enumerate(keys):
            context, text = chunks[key]
            title, body = Counter(analyze(context)), Counter(analyze(text))
            tf = {t: title_weight * title.get(t, 0) + body.get(t, 0) for t in title | body}
            self.terms_of.append(title + body)
            lengths.append(sum(tf.values()))
            for term, n in tf.items():
                rows.append(i)
                cols.append(self.vocab.setdefault(term, len(self.vocab)))
                vals.append(n)
        self.tf = sparse.csc_matrix((vals, (rows, cols)), shape=(len(keys), len(self.vocab)))
        dl = np.array(lengths, dtype=np.float64)
        self.norm = k1 * (1 - b + b * dl / dl.mean())
        self.dl = np.array([sum(c.values()) for c in self.terms_of], dtype=np.float64)
        df = np.diff(self.tf.indptr).astype(np.float64)
        n = len(keys)
        self.idf = np.log(1 + (n - df + 0.5) / (df + 0.5))

    def search(self, weighted: dict[str, float], pool: int) -> list[tuple[str, int, float]]:
        scores = np.zeros(self.tf.shape[0])
        for term, w in weighted.items():
            j = self.vocab.get(term)
            if j is None:
                continue
            lo, hi = self.tf.indptr[j], self.tf.indptr[j + 1]
            rows, tf = self.tf.indices[lo:hi], self.tf.data[lo:hi]
            scores[rows] += w * self.idf[j] * tf * (self.k1 + 1) / (tf + self.norm[rows])
        hit = np.nonzero(scores)[0]
        order = sorted(hit, key=lambda i: (-scores[i], self.keys[i]))[:pool]
        return [(self.keys[i][0], self.keys[i][1], float(scores[i])) for i in order]

    def rm3(self, query: dict[str, float], first, fb_docs: int = 10, fb_terms: int = 10,
            lam: float = 0.5) -> dict[str, float]:
        """RM3: the query interpolated (``lam`` original) with the relevance model of the
        first ``fb_docs`` hits (term probability in each, weighted by its score), its best
        ``fb_terms`` terms kept."""
        index = {k: i for i, k in enumerate(self.keys)}
        top = first[:fb_docs]
        total = sum(s for _, _, s in top) or 1.0
        rm: dict[str, float] = {}
        for d, c, s in top:
            i = index[(d, c)]
            for term, n in self.terms_of[i].items():
                rm[term] = rm.get(term, 0.0) + (s / total) * n / self.dl[i]
        best = sorted(rm.items(), key=lambda kv: (-kv[1], kv[0]))[:fb_terms]
        mass = sum(v for _, v in best) or 1.0
        qmass = sum(query.values()) or 1.0
        out = {t: lam * w / qmass for t, w in query.items()}
        for t, v in best:
            out[t] = out.get(t, 0.0) + (1 - lam) * v / mass
        return out


def cmd_run(args: argparse.Namespace) -> None:
    from ragd.analysis import query_analyze
    from ragd.retrieval.mmr import mmr

    data = load(args.split)
    dataset = load_beir(SCIFACT, args.split)
    lists, chunks = data["lists"], data["chunks"]
    table: list[dict] = []

    def record(group: str, name: str, runs: dict, **info) -> dict:
        result = evaluate(dataset, runs)
        row = {"group": group, "experiment": name,
               **{k: round(v, 4) for k, v in result.items()}, **info}
        table.append(row)
        print(f"{group:<10} {name:<52} nDCG@10 {result['ndcg@10']:.4f}  "
              f"R@100 {result['recall@100']:.4f}  MRR@10 {result['mrr@10']:.4f}", flush=True)
        return row

    def fused(method: str, pool: int, params=None, lex=None) -> dict[str, list]:
        out = {}
        for q, li in lists.items():
            named = {"vector": cands(li["vector"], "vector", pool),
                     "lexical": cands((lex or {}).get(q, li["lexical"]), "lexical", pool)}
            out[q] = fuse(named, method, params)
        return out

    for mode in ("lexical", "vector") if not args.skip_fusion else ():
        record("single", f"{mode} only, pool 200",
               {q: cands(li[mode], mode, 200) for q, li in lists.items()})
    half = {"weights": {"vector": 0.5, "lexical": 0.5}}
    for pool in (50, 100, 200, 400) if not args.skip_fusion else ():
        record("fusion", f"rrf k60, pool {pool}", fused("rrf", pool, {"k": 60}))
        record("fusion", f"weighted min-max .5/.5, pool {pool}", fused("weighted", pool, half))
        record("fusion", f"zscore .5/.5, pool {pool}", fused("zscore", pool, half))
    for wv in (0.4, 0.6) if not args.skip_fusion else ():
        w = {"weights": {"vector": wv, "lexical": round(1 - wv, 2)}}
        for method in ("weighted", "zscore"):
            record("fusion", f"{method} v{wv}/l{1 - wv:.1f}, pool 200", fused(method, 200, w))
    for rk in (20, 40) if not args.skip_fusion else ():
        record("fusion", f"rrf k{rk}, pool 200", fused("rrf", 200, {"k": rk}))
    if not args.skip_fusion:    # fusion by document: each list's documents by their best chunk
        record("fusion", "rrf k60, pool 50, lists collapsed to documents",
               {q: fuse({m: cands(by_document(li[m][:50]), m, 50)
                         for m in ("vector", "lexical")}, "rrf") for q, li in lists.items()})

    best_method, best_pool = args.best.split(":")
    best = fused(best_method, int(best_pool), half)
    # MMR over the head (what `ragd ask` picks from): the first 12 re-picked, the rest follow
    for lam in (0.6, 0.8) if not args.rerank_only else ():
        runs = {}
        for q, ranked in best.items():
            head = [replace(c, text=chunks[c.key][1]) for c in ranked[:30]]
            picked = mmr(head, 12, lam)
            keys = {c.key for c in picked}
            runs[q] = picked + [c for c in ranked if c.key not in keys]
        record("mmr", f"{best_method} pool {best_pool} + MMR λ {lam} (k 12 of 30)", runs)

    # lexical fields and PRF, on the replica (its title-weight-1 row is the store's BM25)
    keys = list(chunks)
    for tw in (1.0, 2.0, 3.0) if not args.rerank_only else ():
        bm = FieldBM25(keys, chunks, title_weight=tw)
        qterms = {q: {t: 1.0 for t in query_analyze(query_terms(li["text"]))}
                  for q, li in lists.items()}
        lex = {q: bm.search(qterms[q], DEPTH) for q in lists}
        record("fields", f"BM25 title weight {tw:g} (lexical only)",
               {q: cands(h, "lexical", 200) for q, h in lex.items()})
        record("fields", f"BM25 title weight {tw:g} + {best_method} pool {best_pool}",
               fused(best_method, int(best_pool), half, lex))
        if tw != 1.0:
            continue
        for fb_docs, fb_terms, lam in ((10, 10, 0.5), (5, 10, 0.7), (10, 20, 0.7)):
            prf = {q: bm.search(bm.rm3(qterms[q], lex[q], fb_docs, fb_terms, lam), DEPTH)
                   for q in lists}
            tag = f"RM3 docs {fb_docs} terms {fb_terms} orig {lam}"
            record("prf", f"{tag} (lexical only)",
                   {q: cands(h, "lexical", 200) for q, h in prf.items()})
            record("prf", f"{tag} + {best_method} pool {best_pool}",
                   fused(best_method, int(best_pool), half, prf))

    if args.rerank:
        from ragd.retrieval.cross_encoder import CrossEncoder
        from ragd.types import search_text

        model = CrossEncoder(max_tokens=256)
        deepest = max(args.rerank_depths)
        scored, spent = {}, []
        for q, ranked in best.items():  # the deepest head scored once; shallower: its top
            head = ranked[:deepest]
            started = time.perf_counter()
            scored[q] = model.score(lists[q]["text"], [search_text(*chunks[c.key]) for c in head])
            spent.append((time.perf_counter() - started) * 1000 / len(head))
        lat = {"ms_per_pair_p50": round(float(np.percentile(spent, 50)), 1),
               "load_average": [round(x, 2) for x in os.getloadavg()]}
        for depth in args.rerank_depths:
            runs, ce_fused = {}, {}
            for q, ranked in best.items():
                head, scores = ranked[:depth], scored[q][:depth]
                order = sorted(range(len(head)), key=lambda i: (-scores[i], head[i].key))
                reranked = [head[i].evolve(score=float(scores[i])) for i in order]
                runs[q] = reranked + ranked[depth:]
                # the cross-encoder's order fused with the hybrid's (RRF), head only
                ce = fuse({"ce": reranked, "hybrid": head}, "rrf", {"k": 60})
                ce_fused[q] = ce + ranked[depth:]
            record("rerank", f"cross-encoder top {depth} of {best_method} pool {best_pool}",
                   runs, **lat)
            record("rerank", f"cross-encoder top {depth}, RRF with the hybrid order",
                   ce_fused, **lat)

    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"scifact_fusion{args.suffix}.json"
    out.write_text(json.dumps({"dataset": f"scifact {args.split} ({len(lists)} queries)",
                               "load_average": [round(x, 2) for x in os.getloadavg()],
                               "rows": table}, indent=1) + "\n")
    print(f"wrote {out}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("dump")
    p.add_argument("--store", required=True)
    p.add_argument("--split", default="test", help="test (300 queries) or train (809)")
    p.set_defaults(func=cmd_dump)
    p = sub.add_parser("run")
    p.add_argument("--rerank", action="store_true", help="also the cross-encoder rows (slow)")
    p.add_argument("--suffix", default="")
    p.add_argument("--split", default="test", help="the dumped split to score")
    p.add_argument("--skip-fusion", action="store_true", help="not the fusion grid")
    p.add_argument("--rerank-only", action="store_true", help="only the cross-encoder rows")
    p.add_argument("--best", default="zscore:200", help="METHOD:POOL the later rows build on")
    p.add_argument("--rerank-depths", nargs="+", type=int, default=[10, 20])
    p.set_defaults(func=cmd_run)
    args = ap.parse_args()
    if getattr(args, "rerank_only", False):
        args.rerank = args.skip_fusion = True
    args.func(args)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.path.insert(0, str(BENCH))
    sys.exit(main())
