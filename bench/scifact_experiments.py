#!/usr/bin/env python3
"""Where does ragd lose nDCG@10 on SciFact? Small controlled experiments (run by hand).

    python bench/scifact_experiments.py embed --policy whole   # fill the embedding cache
    python bench/scifact_experiments.py run                    # every variant, table + JSON

Units are produced by ragd itself (its JSONL loader and chunker) under each chunk policy;
their vectors come from a text-keyed embedding cache (bench/.cache/, filled once per policy,
or copied from a `ragd eval beir` store). Lexical variants: SQLite FTS5 as ragd's v1 store
used it (the real thing) and a numpy BM25 re-implementation with the knobs FTS5 does not
expose (k1, b, IDF, stemmer, stop words); its "snowball k1 1.2 b .75 lucene-idf stop" row
reproduces the v2 store's in-memory BM25 (ragd eval beir lexical: 0.6904 vs 0.6917). Fusion is
ragd's `fuse` (RRF, weighted) on candidate lists of each pool size; chunks go to documents by
the best-ranked chunk, as `ragd eval beir` does; metrics by ragd.evaluation.metrics
(pytrec_eval). Writes bench/results/scifact_experiments[SUFFIX].json.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

BENCH = Path(__file__).resolve().parent
CACHE = BENCH / ".cache"
RESULTS = BENCH / "results"
SCIFACT = BENCH.parent.parent / "shared" / "data" / "scifact"
sys.path.insert(0, str(BENCH.parent / "tests"))  # support.embed_cache

from ragd.chunking import chunk_document  # noqa: E402
from ragd.embedding.onnx import MiniLMEmbedder  # noqa: E402
from ragd.embedding.tokenizer import count_tokens  # noqa: E402
from ragd.evaluation import metrics as M  # noqa: E402
from ragd.evaluation.beir import load_beir  # noqa: E402
from support.embed_cache import CachedEmbedder  # noqa: E402
from ragd.ingest.loaders import LoadOptions, iter_documents  # noqa: E402
from ragd.retrieval.fusion import fuse  # noqa: E402
from ragd.text import STOPWORDS, query_terms  # noqa: E402
from ragd.types import Candidate, ChunkPolicy  # noqa: E402

POLICIES = {
    "default": ChunkPolicy(),                                           # 200 / 32 / 2000
    "whole": ChunkPolicy(target_tokens=2048, overlap_tokens=0, max_chars=20000),
    "t256": ChunkPolicy(target_tokens=256, overlap_tokens=32, max_chars=2000),
    "t512": ChunkPolicy(target_tokens=512, overlap_tokens=32, max_chars=4000),
}


def documents():
    return [d for d in iter_documents([str(SCIFACT / "corpus.jsonl.gz")], LoadOptions())
            if hasattr(d, "doc_id")]


def units(policy: ChunkPolicy, docs=None) -> list:
    docs = docs if docs is not None else documents()
    return [c for d in docs for c in chunk_document(d, policy, count_tokens)]


def cache_path(name: str) -> Path:
    return CACHE / f"scifact-{name}.npz"


def load_cache(name: str) -> CachedEmbedder:
    vectors = CachedEmbedder.load_vectors(cache_path(name)) if cache_path(name).exists() else {}
    return CachedEmbedder(MiniLMEmbedder(threads=1), vectors)


def cmd_embed(args: argparse.Namespace) -> None:
    emb = load_cache(args.policy)
    if args.from_store:  # reuse the vectors of a `ragd eval beir` store (same policy)
        from ragd.collection import open_collection
        from support.embed_cache import text_key

        coll = open_collection(args.from_store, "beir")
        for chunk, vector in coll.store.iter_chunks("beir"):
            emb.vectors[text_key(chunk.search_text)] = np.asarray(vector, dtype=np.float32)
        coll.close()
    chunks = units(POLICIES[args.policy])
    texts = [c.search_text for c in chunks]
    print(f"{args.policy}: {len(chunks)} units, {len(emb.vectors)} cached", flush=True)
    started = time.time()
    for i in range(0, len(texts), 512):
        emb.embed_documents(texts[i:i + 512])
        emb.save(cache_path(args.policy))
        print(f"  {min(i + 512, len(texts))}/{len(texts)} in {time.time() - started:.0f} s",
              flush=True)



# -- lexical: a numpy BM25 with the knobs FTS5 keeps fixed -----------------------------------
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def fold(text: str) -> str:
    """Lower case, diacritics removed (FTS5 unicode61 remove_diacritics)."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.lower())
                   if not unicodedata.combining(ch))


class BM25:
    """Okapi BM25 over units; ``idf`` "fts5" (log((N-n+.5)/(n+.5)), floored at 1e-6, as
    SQLite FTS5) or "lucene" (log(1+(N-n+.5)/(n+.5)), as Lucene and bm25s)."""

    def __init__(self, texts: Sequence[str], stemmer: str = "porter", stop_index: bool = False,
                 k1: float = 1.2, b: float = 0.75, idf: str = "fts5",
                 title: bool = True) -> None:
        import Stemmer
        from scipy import sparse

        self.stem = Stemmer.Stemmer(stemmer).stemWord
        self.stop_index, self.k1, self.b = stop_index, k1, b
        self.vocab: dict[str, int] = {}
        rows, cols, vals, lengths = [], [], [], []
        for i, text in enumerate(texts):
            if not title:  # units' search text is "title\n\ntext": keep the text only
                text = text.split("\n\n", 1)[-1]
            tokens = self.tokens(text, drop_stop=stop_index)
            lengths.append(len(tokens))
            for term, n in Counter(tokens).items():
                rows.append(i)
                cols.append(self.vocab.setdefault(term, len(self.vocab)))
                vals.append(n)
        self.tf = sparse.csc_matrix((vals, (rows, cols)), shape=(len(texts), len(self.vocab)),
                                    dtype=np.float32)
        self.dl = np.array(lengths, dtype=np.float32)
        self.avgdl = float(self.dl.mean())
        n_docs = len(texts)
        df = np.diff(self.tf.indptr).astype(np.float64)
        if idf == "fts5":
            values = np.log((n_docs - df + 0.5) / (df + 0.5))
            self.idf = np.where(values <= 0, 1e-6, values)
        else:
            self.idf = np.log(1 + (n_docs - df + 0.5) / (df + 0.5))
        self.norm = (k1 * (1 - b + b * self.dl / self.avgdl)).astype(np.float32)

    def tokens(self, text: str, drop_stop: bool = False) -> list[str]:
        words = _TOKEN.findall(fold(text))
        if drop_stop:
            words = [w for w in words if w not in STOPWORDS]
        return [self.stem(w) for w in words]

    def search(self, query: str, pool: int) -> list[tuple[int, float]]:
        scores = np.zeros(self.tf.shape[0], dtype=np.float64)
        for word in query_terms(query):  # ragd's query side: stop words out, distinct words
            for term in self.tokens(word):
                j = self.vocab.get(term)
                if j is None:
                    continue
                lo, hi = self.tf.indptr[j], self.tf.indptr[j + 1]
                docs, tf = self.tf.indices[lo:hi], self.tf.data[lo:hi]
                scores[docs] += self.idf[j] * tf * (self.k1 + 1) / (tf + self.norm[docs])
        hit = np.nonzero(scores)[0]
        order = hit[np.lexsort((hit, -scores[hit]))][:pool]
        return [(int(i), float(scores[i])) for i in order]


class FTS5:
    """The v1 SQLite store's lexical index itself: FTS5 over (context, text), porter
    unicode61 remove_diacritics 2, bm25() (k1 1.2, b 0.75 fixed), the query's content words
    OR-ed as quoted strings (what ragd's v1 store ran)."""

    def __init__(self, chunks) -> None:
        import sqlite3

        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE f USING fts5(context, text, "
                        "tokenize='porter unicode61 remove_diacritics 2')")
        self.db.executemany("INSERT INTO f (rowid, context, text) VALUES (?, ?, ?)",
                            [(i, c.context, c.text) for i, c in enumerate(chunks)])

    def search(self, query: str, pool: int) -> list[tuple[int, float]]:
        terms = query_terms(query)
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self.db.execute("SELECT rowid, -bm25(f) AS s FROM f WHERE f MATCH ? "
                               "ORDER BY s DESC, rowid LIMIT ?", (match, pool)).fetchall()
        return [(int(r), float(s)) for r, s in rows]


class Dense:
    def __init__(self, vectors: np.ndarray, queries: dict[str, np.ndarray]) -> None:
        self.matrix, self.queries = vectors, queries

    def search(self, qid: str, pool: int) -> list[tuple[int, float]]:
        sims = self.matrix @ self.queries[qid]
        top = np.argpartition(-sims, min(pool, len(sims) - 1))[:pool]
        order = top[np.lexsort((top, -sims[top]))]
        return [(int(i), float(sims[i])) for i in order]


# -- one experiment: candidate lists -> ragd fuse -> documents -> pytrec_eval ----------------
def as_candidates(hits, chunks, source: str) -> list[Candidate]:
    return [Candidate(doc_id=chunks[i].doc_id, chunk_index=chunks[i].chunk_index, text="",
                      score=s, rank=r, **{f"{source}_score": s, f"{source}_rank": r})
            for r, (i, s) in enumerate(hits, start=1)]


def score_runs(dataset, chunks, lists_for: Callable[[str, str], dict[str, list]],
               fusion: str | None, params=None) -> dict[str, float]:
    run = {}
    for qid, text in dataset.queries.items():
        lists = lists_for(qid, text)
        if fusion:
            ranked = fuse({n: as_candidates(h, chunks, n) for n, h in lists.items()}, fusion,
                          params)
        else:
            (name, hits), = lists.items()
            ranked = as_candidates(hits, chunks, name)
        docs: dict[str, float] = {}
        for c in ranked:
            if c.doc_id not in docs:
                docs[c.doc_id] = c.score
            if len(docs) == 100:
                break
        run[qid] = dict(M.strict_scores(list(docs.items())))
    return M.evaluate(dataset.qrels, run, 10, 100)


def query_vectors(dataset) -> dict[str, np.ndarray]:
    emb = load_cache("queries")
    emb.cache_queries = True
    out = {q: emb.embed_query(t) for q, t in dataset.queries.items()}
    emb.save(cache_path("queries"))
    return out


def cmd_run(args: argparse.Namespace) -> None:
    dataset = load_beir(SCIFACT)
    docs = documents()
    table: list[dict] = []

    def record(name: str, result: dict[str, float], **info) -> None:
        row = {"experiment": name, **{k: round(v, 4) for k, v in result.items()}, **info}
        table.append(row)
        print(f"{name:<58} nDCG@10 {result['ndcg@10']:.4f}  R@100 {result['recall@100']:.4f}"
              f"  MRR@10 {result['mrr@10']:.4f}", flush=True)

    qvec = query_vectors(dataset) if not args.lexical_only else {}
    for pname in args.policies:
        chunks = units(POLICIES[pname], docs)
        texts = [c.search_text for c in chunks]
        print(f"== policy {pname}: {len(chunks)} units ({POLICIES[pname].as_dict()})", flush=True)
        lex = {}
        for lname, kw in LEXICAL.items():
            if args.lexical and lname not in args.lexical:
                continue
            lex[lname] = FTS5(chunks) if kw.get("fts5") else BM25(texts, **kw)
            hits = {q: lex[lname].search(t, 200) for q, t in dataset.queries.items()}
            record(f"{pname} lexical {lname}", score_runs(
                dataset, chunks, lambda q, t, h=hits: {"lexical": h[q]}, None))
        dense = None
        if not args.lexical_only and cache_path(pname).exists():
            emb = load_cache(pname)
            try:
                vectors = np.stack([emb.vectors[k] for k in
                                    (__import__("support.embed_cache", fromlist=["x"])
                                     .text_key(t) for t in texts)])
            except KeyError:
                print(f"   (embeddings of policy {pname} incomplete: no dense runs)")
                vectors = None
            if vectors is not None:
                dense = Dense(vectors, qvec)
                hits = {q: dense.search(q, 200) for q in dataset.queries}
                record(f"{pname} vector", score_runs(
                    dataset, chunks, lambda q, t, h=hits: {"vector": h[q]}, None))
        if dense is None:
            continue
        for lname in args.hybrid_lexical:
            for pool in args.pools:
                vh = {q: dense.search(q, pool) for q in dataset.queries}
                lh = {q: lex[lname].search(t, pool) for q, t in dataset.queries.items()}
                lists = lambda q, t, v=vh, l=lh: {"vector": v[q], "lexical": l[q]}  # noqa: E731
                for rk in args.rrf_k:
                    record(f"{pname} hybrid rrf k{rk} pool {pool} ({lname})",
                           score_runs(dataset, chunks, lists, "rrf", {"k": rk}))
                for wv in args.vector_weights:
                    record(f"{pname} hybrid weighted v{wv}/l{1 - wv:.1f} pool {pool} ({lname})",
                           score_runs(dataset, chunks, lists, "weighted",
                                      {"weights": {"vector": wv, "lexical": round(1 - wv, 2)}}))
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"scifact_experiments{args.suffix}.json"
    out.write_text(json.dumps({"dataset": "scifact test (300 queries)", "rows": table},
                              indent=1) + "\n")
    print(f"wrote {out}")


LEXICAL = {
    "sqlite-fts5 (v1 store)": dict(fts5=True),
    "fts5-replica (porter, k1 1.2, b .75)": dict(stemmer="porter"),
    "porter k1 .9 b .4": dict(stemmer="porter", k1=0.9, b=0.4),
    "porter k1 .9 b .4 lucene-idf": dict(stemmer="porter", k1=0.9, b=0.4, idf="lucene"),
    "snowball k1 .9 b .4 lucene-idf stop": dict(stemmer="english", k1=0.9, b=0.4, idf="lucene",
                                                stop_index=True),
    "snowball k1 1.2 b .75": dict(stemmer="english"),
    "snowball k1 1.2 b .75 lucene-idf stop": dict(stemmer="english", idf="lucene",
                                                  stop_index=True),
    "porter k1 1.2 b .75 stop": dict(stemmer="porter", stop_index=True),
    "porter k1 1.2 b .75, no title": dict(stemmer="porter", title=False),
    "porter k1 1.5 b .75": dict(stemmer="porter", k1=1.5),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("embed")
    p.add_argument("--policy", choices=list(POLICIES), default="whole")
    p.add_argument("--from-store")
    p.set_defaults(func=cmd_embed)
    p = sub.add_parser("run")
    p.add_argument("--policies", nargs="+", default=["default", "whole"])
    p.add_argument("--lexical-only", action="store_true")
    p.add_argument("--lexical", nargs="*", help="only these lexical variants")
    p.add_argument("--suffix", default="")
    p.add_argument("--pools", nargs="+", type=int, default=[50, 100, 200])
    p.add_argument("--rrf-k", nargs="+", type=int, default=[60])
    p.add_argument("--vector-weights", nargs="+", type=float, default=[0.5, 0.6, 0.7])
    p.add_argument("--hybrid-lexical", nargs="*", default=[next(iter(LEXICAL))])
    p.set_defaults(func=cmd_run)
    args = ap.parse_args()
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
