"""PostgreSQL lexical ranking: BM25 (sparsevec weights, ``lexical_rank=bm25``) vs ``ts_rank_cd``
vs the embedded store's BM25, on SciFact chunks (11k) and a 100k set derived from them.

    .venv/bin/python bench/pg_bm25.py                      # a local server is started
    RAGD_BENCH_PG_DSN=postgresql://... .venv/bin/python bench/pg_bm25.py

- **quality**: nDCG@10 / Recall@100 of lexical-only search over SciFact's 300 test queries
  (a document scores its best chunk's score), for each ranker.
- **parity**: top-10 of Postgres BM25 equal to the SQLite store's, and the largest score
  difference (Postgres weights are float32).
- **latency**: ``lexical_search`` p50 / p95 (k=10, store call only), median over passes, at
  11,446 chunks and at ~103k chunks (SciFact's chunks nine times over, doc ids suffixed:
  the same vocabulary, document frequencies nine times larger).
- **collisions**: distinct analysed terms against distinct sparsevec dimensions.
- ``--distinct N``: also N *distinct* synthetic chunks (bench/search.py's generator: sentences
  drawn from SciFact's word frequencies, so scores are flat and the rarest query terms are
  common: the hard case for pruning), latency and recall@10 against the exact path.

Vectors are seeded random (lexical search never reads them). Prints tables; writes
``bench/results/pg_bm25.json`` with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (SCIFACT, load_average, machine_info, make_console, print_table, median,  # noqa: E402
                     percentile, pgserver, write_results)
from postgres import _fresh, _url, scifact_documents  # noqa: E402

from ragd.analysis import analyze_batch  # noqa: E402
from ragd.evaluation.beir import load_beir  # noqa: E402
from ragd.evaluation.metrics import evaluate  # noqa: E402
from ragd.stores import DocumentRecord  # noqa: E402
from ragd.stores.pg_bm25 import term_dim  # noqa: E402
from ragd.text import query_terms  # noqa: E402
from ragd.types import ChunkPolicy  # noqa: E402

console = make_console()
DIMS = 8
K = 10


def _table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    print_table(console, title, columns, rows)


def _replicas(docs: list, copies: int) -> list:
    """SciFact's documents ``copies`` times, doc ids suffixed ``~r`` after the first copy."""
    out = list(docs)
    for r in range(1, copies):
        for record, chunks in docs:
            doc_id = f"{record.doc_id}~{r}"
            out.append((DocumentRecord(doc_id=doc_id, content_hash=record.content_hash,
                                       title=record.title),
                        [replace(c, doc_id=doc_id) for c in chunks]))
    return out


def _load(store: Any, name: str, docs: list, batch: int = 1024) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    store.create_collection(name, "random", DIMS, {})
    if hasattr(store, "drop_vector_index"):
        store.drop_vector_index(name)
    started, items, size, chunks = time.perf_counter(), [], 0, 0
    for record, cs in docs:
        items.append((record, cs, rng.normal(size=(len(cs), DIMS)).astype(np.float32)))
        size += len(cs)
        if size >= batch:
            chunks += store.upsert_documents(name, items)
            items, size = [], 0
    if items:
        chunks += store.upsert_documents(name, items)
    seconds = time.perf_counter() - started
    out = {"chunks": chunks, "seconds": round(seconds, 1),
           "chunks_per_s": round(chunks / seconds, 1)}
    if hasattr(store, "refresh_lexical"):
        started = time.perf_counter()
        store.refresh_lexical(name)
        out["reweight_after_load_s"] = round(time.perf_counter() - started, 1)
    return out


def _latency(fn, queries: list, passes: int) -> dict[str, float]:
    from ragd.stores.pg_bm25 import COUNTS

    before = dict(COUNTS)
    runs = []
    for _ in range(passes):
        lat = []
        for terms in queries:
            t = time.perf_counter()
            fn(terms)
            lat.append((time.perf_counter() - t) * 1000)
        runs.append(lat)
    return {"p50_ms": round(median([percentile(r, 50) for r in runs]), 2),
            "p95_ms": round(median([percentile(r, 95) for r in runs]), 2),
            "passes": passes, "queries": len(queries),
            "searches_exact_bounded": [COUNTS["exact"] - before.get("exact", 0),
                                       COUNTS["bounded"] - before.get("bounded", 0)]}


def _quality(search, beir) -> dict[str, float]:
    run: dict[str, dict[str, float]] = {}
    for qid in beir.query_ids:
        docs: dict[str, float] = {}
        for hit in search(query_terms(beir.queries[qid])):
            docs.setdefault(hit.doc_id.split("~")[0], hit.score)
        run[qid] = docs
    return {k: round(v, 4) for k, v in evaluate(beir.qrels, run).items()}


def _collisions(docs: list) -> dict[str, int]:
    texts = [c.search_text for _, cs in docs for c in cs]
    terms: set[str] = set()
    for start in range(0, len(texts), 4096):
        batch = analyze_batch(texts[start:start + 4096])
        terms.update(batch.vocab[t] for t in set(batch.term.tolist()))
    dims = {term_dim(t) for t in terms}
    return {"terms": len(terms), "dimensions": len(dims), "colliding_terms": len(terms) - len(dims)}


def _hnsw_sparse(pg: Any, name: str, queries: list, exact: list) -> dict[str, Any]:
    """An HNSW index on the weights (sparsevec_ip_ops): build time, and per ef_search the
    recall@10 against the exact BM25 top-10 and the latency (index query only)."""
    from ragd.stores.pg_bm25 import frequencies, idfs, text_query

    cid = pg._coll(name).cid
    with pg._conn() as conn:
        started = time.perf_counter()
        conn.execute(f"CREATE INDEX bm25_{cid}_hnsw ON bm25_{cid} USING hnsw "
                     "(weights sparsevec_ip_ops)")
        out: dict[str, Any] = {"build_s": round(time.perf_counter() - started, 1)}
    for ef in (40, 200, 1000):
        recalls, lat = [], []
        for terms, want in zip(queries, exact):
            with pg._conn() as conn:
                idf = idfs(conn, cid, frequencies(conn, cid, terms))
                if not idf:
                    continue
                dims = sorted(idf)
                conn.execute("SELECT set_config('hnsw.ef_search', %s, true), "
                             "set_config('hnsw.iterative_scan', 'relaxed_order', true)",
                             (str(ef),))
                t = time.perf_counter()
                rows = conn.execute(f"SELECT doc_id, chunk_index FROM bm25_{cid} ORDER BY "
                                    "weights <#> %s::sparsevec LIMIT 10",
                                    (text_query(dims, [idf[d] for d in dims]),)).fetchall()
                lat.append((time.perf_counter() - t) * 1000)
            keys = {h.key for h in want}
            recalls.append(len(keys & {(r[0], int(r[1])) for r in rows}) / max(len(keys), 1))
        out[f"ef_search_{ef}"] = {"recall_at_10": round(float(np.mean(recalls)), 4),
                                  "p50_ms": round(percentile(lat, 50), 2),
                                  "p95_ms": round(percentile(lat, 95), 2)}
    with pg._conn() as conn:
        conn.execute(f"DROP INDEX bm25_{cid}_hnsw")
    return out


def _sweep(dsn: str, docs: list, queries: list, copies: int, budgets: list[int], beir: Any
           ) -> dict[str, Any]:
    """At the large size, per row budget: p50 / p95 (one pass), recall@10 against exact, and
    nDCG@10 (top 10 × copies chunks, so ten distinct documents)."""
    from ragd.stores.postgres import PostgresStore

    pg = _fresh(dsn, "bench_bm25_sweep")
    out: dict[str, Any] = {"load": _load(pg, "large", _replicas(docs, copies))}
    stores = {b: PostgresStore(_url(dsn, schema="bench_bm25_sweep", bm25_budget=b))
              for b in [0] + budgets}
    exact = [{h.key for h in stores[0].lexical_search("large", t, K)} for t in queries]
    for budget in [0] + budgets:
        got, lat = [], []
        for terms in queries:
            t = time.perf_counter()
            got.append({h.key for h in stores[budget].lexical_search("large", terms, K)})
            lat.append((time.perf_counter() - t) * 1000)
        out[f"budget_{budget}"] = {
            "p50_ms": round(percentile(lat, 50), 2), "p95_ms": round(percentile(lat, 95), 2),
            "recall_at_10_vs_exact": round(float(np.mean(
                [len(a & b) / max(len(b), 1) for a, b in zip(got, exact)])), 4),
            "ndcg@10": _quality(lambda t, s=stores[budget]: s.lexical_search(
                "large", t, K * copies), beir)["ndcg@10"]}
        console.print(budget, out[f"budget_{budget}"])
    for s in stores.values():
        s.close()
    pg.close()
    return out


def _distinct(pg: Any, dsn: str, n: int, queries: list, passes: int) -> dict[str, Any]:
    """``n`` distinct synthetic chunks: load, latency, recall@10 of the budget vs exact."""
    from search import SyntheticCorpus, scifact_unigrams

    from ragd.stores.postgres import PostgresStore

    words, probs = scifact_unigrams(SCIFACT / "corpus.jsonl.gz")
    corpus = SyntheticCorpus(words, probs, 7, 4, DIMS)
    docs = []
    for number in range(-(-n // 4)):
        record, chunks, _ = corpus.document(number)
        docs.append((record, chunks))
    out: dict[str, Any] = {"load": _load(pg, "distinct", docs)}
    out["latency"] = _latency(lambda t: pg.lexical_search("distinct", t, K), queries, passes)
    exact = PostgresStore(_url(dsn, schema="bench_bm25", bm25_budget=0))
    got = [{h.key for h in pg.lexical_search("distinct", t, K)} for t in queries]
    want = [{h.key for h in exact.lexical_search("distinct", t, K)} for t in queries]
    exact.close()
    out["recall_at_10_vs_exact"] = round(float(np.mean(
        [len(a & b) / max(len(b), 1) for a, b in zip(got, want)])), 4)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--copies", type=int, default=15, help="SciFact copies of the large set")
    parser.add_argument("--ts-queries", type=int, default=100,
                        help="queries for ts_rank_cd at the large size (it is slow)")
    parser.add_argument("--no-hnsw", action="store_true",
                        help="skip the HNSW-on-sparsevec comparison")
    parser.add_argument("--distinct", type=int, default=0,
                        help="also N distinct synthetic chunks (e.g. 100000)")
    parser.add_argument("--name", default="pg_bm25", help="results file name (bench/results/)")
    parser.add_argument("--sweep", default="",
                        help="only a row-budget sweep at the large size, e.g. 1000,2000,4000,8000 "
                             "(kept under budget_sweep in the results)")
    args = parser.parse_args(argv)
    from ragd.embedding.onnx import MiniLMEmbedder
    from ragd.stores import SQLiteStore
    from ragd.stores.postgres import PostgresStore

    docs = scifact_documents(ChunkPolicy(), MiniLMEmbedder())
    beir = load_beir(SCIFACT)
    queries = [query_terms(beir.queries[q]) for q in beir.query_ids]
    dsn = os.environ.get("RAGD_BENCH_PG_DSN")
    stop = lambda: None  # noqa: E731
    if not dsn:
        local = pgserver().start(Path(tempfile.mkdtemp(prefix="ragd-bm25-")), keep_running=False)
        dsn, stop = local.dsn, local.stop
    out: dict[str, Any] = {"machine": machine_info(), "load_average": {"start": load_average()},
                           "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    if args.sweep:
        import json

        from _common import RESULTS_DIR
        try:
            sweep = _sweep(dsn, docs, queries, args.copies,
                           [int(b) for b in args.sweep.split(",")], beir)
        finally:
            stop()
        previous = json.loads((RESULTS_DIR / "pg_bm25.json").read_text("utf-8"))
        previous["budget_sweep"] = {**sweep, "load_average": [out["load_average"]["start"],
                                                              load_average()],
                                    "date": out["date"]}
        write_results("pg_bm25", previous)
        return 0
    try:
        out["collisions"] = _collisions(docs)
        pg = _fresh(dsn, "bench_bm25", lexical_rank="bm25")
        ts = PostgresStore(_url(dsn, schema="bench_bm25", lexical_rank="ts_rank_cd"))
        out["load_11k"] = _load(pg, "scifact", docs)
        with tempfile.TemporaryDirectory() as tmp:
            lite = SQLiteStore(Path(tmp) / "lite.sqlite")
            _load(lite, "scifact", docs)
            rankers = {"sqlite_bm25": lambda t, n=K: lite.lexical_search("scifact", t, n),
                       "pg_bm25": lambda t, n=K: pg.lexical_search("scifact", t, n),
                       "pg_ts_rank_cd": lambda t, n=K: ts.lexical_search("scifact", t, n)}
            out["quality"] = {n: _quality(lambda t, f=f: f(t, 100), beir)
                              for n, f in rankers.items()}
            same, worst = 0, 0.0
            for terms in queries:
                a, b = rankers["sqlite_bm25"](terms), rankers["pg_bm25"](terms)
                same += [h.key for h in a] == [h.key for h in b]
                worst = max([worst] + [abs(x.score - y.score) for x, y in zip(a, b)
                                       if x.key == y.key])
            out["parity"] = {"top10_equal": same, "queries": len(queries),
                             "max_abs_score_diff": worst}
            out["latency_11k"] = {n: _latency(f, queries, 1 if "ts_rank" in n else args.passes)
                                  for n, f in rankers.items()}
            if not args.no_hnsw:
                try:
                    out["hnsw_sparsevec_11k"] = _hnsw_sparse(
                        pg, "scifact", queries, [rankers["pg_bm25"](t) for t in queries])
                except Exception as exc:  # noqa: BLE001 - recorded, the rest still runs
                    out["hnsw_sparsevec_11k"] = {"error": str(exc)}
                console.print(out)
            lite.close()
        big = _replicas(docs, args.copies)
        out["load_large"] = _load(pg, "large", big)
        out["latency_large"] = {
            "pg_bm25": _latency(lambda t: pg.lexical_search("large", t, K), queries,
                                args.passes),
            "pg_ts_rank_cd": _latency(lambda t: ts.lexical_search("large", t, K),
                                      queries[:args.ts_queries], 1)}
        console.print(out)
        exact = PostgresStore(_url(dsn, schema="bench_bm25", bm25_budget=0))
        bounded, full, lat = [], [], []
        for terms in queries:
            bounded.append({h.key for h in pg.lexical_search("large", terms, K)})
            t = time.perf_counter()
            full.append({h.key for h in exact.lexical_search("large", terms, K)})
            lat.append((time.perf_counter() - t) * 1000)
        out["large_budget_vs_exact"] = {
            "recall_at_10": round(float(np.mean([len(a & b) / max(len(b), 1)
                                                for a, b in zip(bounded, full)])), 4),
            "exact_p50_ms": round(percentile(lat, 50), 2),
            "exact_p95_ms": round(percentile(lat, 95), 2)}
        exact.close()
        out["quality_large_pg_bm25"] = _quality(
            lambda t: pg.lexical_search("large", t, 100 * args.copies), beir)
        if args.distinct:
            pg.drop_collection("large")
            out["distinct"] = _distinct(pg, dsn, args.distinct, queries, args.passes)
        pg.close()
        ts.close()
    finally:
        stop()
    out["load_average"]["end"] = load_average()
    q = out["quality"]
    _table("SciFact lexical-only, 300 test queries", ["ranker", "nDCG@10", "Recall@100"],
           [[n, v["ndcg@10"], v["recall@100"]]
            for n, v in q.items()])
    rows = [[n, v["p50_ms"], v["p95_ms"]] for n, v in out["latency_11k"].items()]
    rows += [[f"{n} @ {out['load_large']['chunks']}", v["p50_ms"], v["p95_ms"]]
             for n, v in out["latency_large"].items()]
    _table(f"lexical_search latency, k={K} (load {out['load_average']})",
           ["ranker @ chunks", "p50 ms", "p95 ms"], rows)
    _table("parity and collisions", ["check", "value"],
           [["top-10 Postgres BM25 == SQLite", f"{out['parity']['top10_equal']}/{len(queries)}"],
            ["max |score diff|", f"{out['parity']['max_abs_score_diff']:.2e}"],
            ["terms / dimensions", f"{out['collisions']['terms']} / "
                                   f"{out['collisions']['dimensions']}"],
            *[[f"HNSW sparsevec {k}", v] for k, v in out.get("hnsw_sparsevec_11k", {}).items()],
            ["load 11k / large, chunks/s", f"{out['load_11k']['chunks_per_s']} / "
                                           f"{out['load_large']['chunks_per_s']}"]])
    if "distinct" in out:
        d = out["distinct"]
        _table(f"{d['load']['chunks']} distinct synthetic chunks", ["measure", "value"],
               [["p50 / p95 ms", f"{d['latency']['p50_ms']} / {d['latency']['p95_ms']}"],
                ["searches exact / bounded", d["latency"]["searches_exact_bounded"]],
                ["recall@10 vs exact", d["recall_at_10_vs_exact"]],
                ["load chunks/s", d["load"]["chunks_per_s"]]])
    path = write_results(args.name, out)
    console.print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
