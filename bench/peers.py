"""ragd beside its peers: the same machine, data, embeddings and queries, in the same run.

    .venv/bin/pip install -e '.[bench]' && .venv/bin/python bench/peers.py
    .venv/bin/python bench/peers.py --quick              # smoke run: small subsets, 1 pass
    .venv/bin/python bench/peers.py --only lexical       # lexical | vector
    .venv/bin/python bench/peers.py --size 200000        # synthetic vector collection size

Peers (``[bench]`` extra; a peer that fails to import or build is reported as
"not available: <reason>" and the run goes on):

- **Lexical, SciFact** (test split, 300 queries): ragd's in-memory BM25 through a real
  SQLite store (the store call ``lexical_search`` and the full ``ragd.retrieve`` with
  ``mode="lexical"``) vs ``bm25s`` (method "lucene", k1 1.2, b 0.75, its own tokenizer:
  ``\\w\\w+`` tokens, its 33-word English stop list, PyStemmer English stems), with its
  numpy backend and, when numba imports, its numba backend; and bm25s fed ragd's own
  analysed terms (same terms, so only the engines differ). Two units, each given the
  same texts in every engine: ragd's chunks (the default chunk policy, as ``ragd
  ingest`` cuts SciFact; a document scores as its best chunk) and whole documents
  (title + abstract, the usual BEIR BM25 setup). Queries/s, p50/p95 per query (query
  text in, top-10 ids out, one query at a time), nDCG@10 and Recall@100 by
  ``ragd.evaluation.metrics`` (pytrec_eval, document level, from an untimed k=100 pass
  that is also the warm-up); bm25s's batch API (all queries in one call) is reported on
  its own and labelled.
- **Vector**, SciFact chunk embeddings (all-MiniLM-L6-v2 int8, the bundled model; the
  cache of ``bench/postgres.py`` in ``bench/.cache/``), then ``--size`` (100k) synthetic
  vectors of two kinds: SciFact-derived (the real chunk embeddings, then mixtures of pairs
  of them, as in ``bench/postgres.py``; queries are the real query embeddings) and seeded
  random unit vectors (384 dims, the worst case for graph and partition indexes: no
  neighbourhood structure): numpy brute force (the floor, and the exact ground truth), ragd
  (``SQLiteStore.vector_search``: ``exact=True``, the numpy scan, and, from the store's
  graph threshold (50k chunks), the default call, which searches its HNSW graph (usearch);
  and ``ragd.retrieve`` with ``mode="vector"``, the store's default; query embedding
  excluded), Chroma (HNSW, cosine), LanceDB (flat
  exact scan and an IVF_HNSW_SQ index), sqlite-vec (vec0, exact KNN, loaded into apsw's
  SQLite because this Python's sqlite3 cannot load extensions). Queries/s, p50/p95,
  recall@10 against exact, ingest and index build time, first (cold) query.

Fairness: every engine gets the same texts/vectors and query set, k=10, is warmed up by
an untimed pass over all queries, then timed one query at a time with
``time.perf_counter``; passes interleave the engines (``--passes``, median of per-pass
figures), so background load hits all alike. Threads are not pinned: each engine runs
as it does by default, and the "CPU/wall" column (process CPU time over wall time
during the timed loop) shows how many cores it actually used. Results:
``bench/results/peers.json`` with versions, settings, machine info and load averages.
No timed assertions.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

# Peers must run offline and quietly: no telemetry, no model hub.
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LANCE_LOG", "error")
os.environ.setdefault("RUST_LOG", "error")

import numpy as np  # noqa: E402
from rich.table import Table  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (SCIFACT, _version, load_average, machine_info, make_console,  # noqa: E402
                     median, percentile, rss_mb, write_results)

import ragd  # noqa: E402
from ragd.evaluation import metrics as M  # noqa: E402
from ragd.evaluation.beir import load_beir  # noqa: E402
from ragd.evaluation.runner import query_text  # noqa: E402
from ragd.stores import DocumentRecord, SQLiteStore  # noqa: E402
from ragd.stores.ann_index import (CONNECTIVITY, DEFAULT_THRESHOLD as ANN_THRESHOLD,  # noqa: E402
                                   DTYPE, EXPANSION_ADD, default_ef_search)
from ragd.text import query_terms  # noqa: E402
from ragd.types import Chunk, Plan  # noqa: E402

console = make_console()
K = 10
QUALITY_DEPTH = 100
SEED = 20240611
RAGD_EXACT = "ragd store.vector_search (exact)"


# -- timing ------------------------------------------------------------------------------------
@dataclass
class Engine:
    """One searcher: ``search(i)`` answers query ``i`` (its input prepared beforehand) with
    ``k`` results, as (unit row, score) pairs best first."""

    name: str
    settings: dict[str, Any]
    search: Callable[[int, int], list[tuple[int, float]]] | None = None
    build: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    passes: list[dict[str, float]] = field(default_factory=list)
    results: list[list[tuple[int, float]]] = field(default_factory=list)
    close: Callable[[], None] | None = None
    blas_threads: int | None = None  # run under threadpoolctl's limit (numpy's BLAS)

    def limits(self):
        if self.blas_threads is None:
            return contextlib.nullcontext()
        from threadpoolctl import threadpool_limits

        return threadpool_limits(limits=self.blas_threads, user_api="blas")

    @property
    def ok(self) -> bool:
        return self.error is None and self.search is not None


def _reason(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def make_engine(name: str, settings: dict[str, Any],
                builder: Callable[[], tuple[Callable[[int, int], list[tuple[int, float]]],
                                            dict[str, Any], Callable[[], None] | None]]
                ) -> Engine:
    """Build an engine; a failure (import, build) makes it "not available: <reason>"."""
    engine = Engine(name, settings)
    console.print(f"  building {name} ...")
    try:
        engine.search, engine.build, engine.close = builder()
    except Exception as exc:  # noqa: BLE001 - a peer that fails is reported, not fatal
        engine.error = _reason(exc)
        if os.environ.get("RAGD_DEBUG"):
            traceback.print_exc()
        console.print(f"  [yellow]{name}: not available: {engine.error}[/yellow]")
    return engine


def warm_and_collect(engine: Engine, n: int, k: int) -> None:
    """The untimed pass: warms the engine up and keeps its results (quality, recall).
    The first query is timed on its own (a cold engine: caches, index loads, JIT)."""
    if not engine.ok:
        return
    try:
        with engine.limits():
            t = time.perf_counter()
            first = engine.search(0, k)
            engine.build["first_query_ms"] = round((time.perf_counter() - t) * 1e3, 2)
            engine.results = [first] + [engine.search(i, k) for i in range(1, n)]
    except Exception as exc:  # noqa: BLE001
        engine.error = f"search failed: {_reason(exc)}"
        console.print(f"  [yellow]{engine.name}: {engine.error}[/yellow]")


def timed_pass(engine: Engine, n: int, k: int) -> None:
    if not engine.ok:
        return
    gc.collect()
    lat: list[float] = []
    try:
        with engine.limits():
            c0, w0 = time.process_time(), time.perf_counter()
            for i in range(n):
                t = time.perf_counter()
                engine.search(i, k)
                lat.append(time.perf_counter() - t)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    except Exception as exc:  # noqa: BLE001
        engine.error = f"search failed: {_reason(exc)}"
        return
    engine.passes.append({"qps": n / sum(lat), "p50_ms": percentile(lat, 50) * 1e3,
                          "p95_ms": percentile(lat, 95) * 1e3,
                          "p99_ms": percentile(lat, 99) * 1e3, "cpu_per_wall": cpu / wall})


def run_passes(engines: Sequence[Engine], n: int, passes: int, k: int = K) -> None:
    for p in range(passes):
        for engine in engines:
            timed_pass(engine, n, k)
        console.print(f"  pass {p + 1}/{passes} done (load average {load_average()})")


PAIRED = ("ragd store.lexical_search", "bm25s (numba backend)")


def paired_pass(engines: Sequence[Engine], n: int, passes: int, k: int = K) -> dict[str, Any]:
    """ragd's store call and bm25s-numba timed query by query, alternating which goes first
    (A B, then B A), so both see the same moments of a machine whose speed drifts: the
    median of the per-query ratios is the side-by-side figure the passes above (each engine
    timing a block of queries) can only approximate."""
    by_name = {e.name: e for e in engines}
    pair = [by_name.get(name) for name in PAIRED]
    if any(e is None or not e.ok for e in pair):
        return {}
    times: dict[str, list[float]] = {name: [] for name in PAIRED}
    gc.collect()
    for p in range(passes):
        for i in range(n):
            order = pair if (i + p) % 2 == 0 else pair[::-1]
            for engine in order:
                t = time.perf_counter()
                engine.search(i, k)
                times[engine.name].append(time.perf_counter() - t)
    a, b = (np.array(times[name]) for name in PAIRED)
    return {"engines": list(PAIRED), "queries": n, "passes": passes,
            "p50_ms": {name: round(percentile(list(v), 50) * 1e3, 3)
                       for name, v in zip(PAIRED, (a, b))},
            "median_ratio": round(float(np.median(a / b)), 3),
            "ragd_faster_share": round(float(np.mean(a < b)), 3)}


def timing(engine: Engine) -> dict[str, Any]:
    if not engine.passes:
        return {}
    out = {key: round(median([p[key] for p in engine.passes]), 3 if key != "qps" else 1)
           for key in ("qps", "p50_ms", "p95_ms", "p99_ms", "cpu_per_wall")}
    out["per_pass"] = [{k: round(v, 3) for k, v in p.items()} for p in engine.passes]
    return out


def close_all(engines: Sequence[Engine]) -> None:
    for engine in engines:
        if engine.close:
            try:
                engine.close()
            except Exception:  # noqa: BLE001
                pass


def _fmt(x: Any, digits: int = 2) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:,.{digits}f}"
    return str(x)


# -- versions ----------------------------------------------------------------------------------
def peer_versions() -> dict[str, Any]:
    out: dict[str, Any] = {d: _version(d) for d in (
        "ragd", "numpy", "PyStemmer", "bm25s", "numba", "scipy", "chromadb", "lancedb",
        "pyarrow", "sqlite-vec", "apsw", "threadpoolctl", "onnxruntime", "pytrec-eval-terrier")}
    try:
        from threadpoolctl import threadpool_info

        out["numpy_blas"] = [{k: i.get(k) for k in ("internal_api", "version", "num_threads",
                                                     "threading_layer", "architecture")}
                             for i in threadpool_info() if i.get("user_api") == "blas"]
    except Exception:  # noqa: BLE001
        pass
    out["python_sqlite3"] = __import__("sqlite3").sqlite_version
    try:
        import apsw
        import sqlite_vec

        conn = apsw.Connection(":memory:")
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        out["sqlite_vec_extension"], out["apsw_sqlite"] = next(iter(conn.execute(
            "SELECT vec_version(), sqlite_version()")))
        conn.close()
    except Exception as exc:  # noqa: BLE001
        out["sqlite_vec_extension"] = f"not available: {_reason(exc)}"
    try:
        import sqlite3

        out["python_sqlite3_can_load_extensions"] = hasattr(sqlite3.Connection,
                                                            "enable_load_extension")
    except Exception:  # noqa: BLE001
        pass
    return out


# -- SciFact -----------------------------------------------------------------------------------
class PrecomputedQueryEmbedder:
    """The collection's model by name and dims, answering ``embed_query`` from vectors computed
    beforehand with the real model (so ragd.retrieve is timed without the model)."""

    def __init__(self, name: str, dims: int, vectors: dict[str, np.ndarray]) -> None:
        self.name, self.dims, self._vectors = name, dims, vectors
        self.max_input_tokens = 254

    def embed_query(self, text: str) -> np.ndarray:
        return self._vectors[text]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("the peers benchmark embeds no documents")

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]

    def spec(self) -> dict[str, Any]:
        return {"kind": "minilm"}


def load_scifact(max_queries: int | None, max_docs: int | None) -> dict[str, Any]:
    """SciFact: chunks and their cached MiniLM vectors (``bench/postgres.py``'s cache), whole
    documents, test queries with their vectors, qrels."""
    data = scifact_data_full()  # the cache and chunking helper of bench/postgres.py
    dataset = load_beir(SCIFACT)
    qvec = {qid: v for (qid, _), v in zip(data["queries"], data["query_vectors"])}
    qids = [q for q in dataset.query_ids if q in qvec][:max_queries or None]
    docs = data["docs"][:max_docs or None]
    n_chunks = sum(len(c) for _, c in docs)
    from ragd.ingest.loaders import LoadOptions, iter_documents

    wanted = {r.doc_id for r, _ in docs}
    whole = [d for d in iter_documents([SCIFACT / "corpus.jsonl.gz"], LoadOptions())
             if d.doc_id in wanted]
    return {"docs": docs, "chunk_vectors": data["vectors"][:n_chunks], "whole": whole,
            "qids": qids, "query_texts": [query_text(dataset.queries[q]) for q in qids],
            "query_vectors": np.stack([qvec[q] for q in qids]).astype(np.float32),
            "qrels": {q: dataset.qrels[q] for q in qids}, "embed_model": data["embed_model"],
            "dims": data["dims"], "embedding_source": data["source"],
            "corpus_sha256": dataset.corpus_sha256}


# -- lexical -------------------------------------------------------------------------------------
def lexical_units(sf: dict[str, Any], unit: str) -> tuple[list[tuple[DocumentRecord, list[Chunk]]],
                                                          list[str], list[str]]:
    """(ragd documents with their chunks, the text of every unit in row order, doc id of
    every row). ``chunks``: ragd's default chunks; ``documents``: one unit per document."""
    if unit == "chunks":
        docs = sf["docs"]
    else:
        docs = [(DocumentRecord(d.doc_id, f"whole-{i}", title=d.title, source=d.source),
                 [Chunk(doc_id=d.doc_id, chunk_index=0, text=d.text, context=d.title or "")])
                for i, d in enumerate(sf["whole"])]
    texts = [c.search_text for _, chunks in docs for c in chunks]
    doc_of_row = [c.doc_id for _, chunks in docs for c in chunks]
    return docs, texts, doc_of_row


def ragd_lexical_engines(docs, texts, sf, workdir: Path, unit: str) -> list[Engine]:
    path = workdir / f"ragd-lexical-{unit}.sqlite"
    row_of_key = {(c.doc_id, c.chunk_index): i
                  for i, c in enumerate(c for _, chunks in docs for c in chunks)}
    state: dict[str, Any] = {}

    def build_store():
        store = SQLiteStore(path)
        store.create_collection("peers", sf["embed_model"], sf["dims"], {})
        vectors = sf["chunk_vectors"] if unit == "chunks" else None
        t = time.perf_counter()
        offset = 0
        for record, chunks in docs:
            vecs = (vectors[offset:offset + len(chunks)] if vectors is not None
                    else np.zeros((len(chunks), sf["dims"]), np.float32))
            store.upsert_document("peers", record, chunks, vecs)
            offset += len(chunks)
        ingest = time.perf_counter() - t
        t = time.perf_counter()
        store.lexical_search("peers", ["warm"], 1)  # loads the in-memory BM25 postings
        load = time.perf_counter() - t
        state["store"] = store
        queries = sf["query_texts"]

        def search(i: int, k: int) -> list[tuple[int, float]]:
            hits = store.lexical_search("peers", query_terms(queries[i]), k)
            return [(row_of_key[h.key], h.score) for h in hits]
        return search, {"ingest_s": round(ingest, 2), "index_load_s": round(load, 2),
                        "ingest_note": "upsert_document per document (one transaction each), "
                                       "analysis included, embedding excluded"}, store.close

    store_engine = make_engine(
        "ragd store.lexical_search", {"bm25": "k1 1.2, b 0.75, Lucene idf", "tokenizer":
                                      "ragd.analysis: unicode words, diacritics folded, 95 "
                                      "English stop words, Snowball English stems (PyStemmer); "
                                      "query terms counted once"}, build_store)

    def build_retrieve():
        if "store" not in state:
            raise RuntimeError("the ragd store did not build")
        coll = ragd.open_collection(state["store"], "peers",
                                    PrecomputedQueryEmbedder(sf["embed_model"], sf["dims"], {}))
        queries = sf["query_texts"]

        def search(i: int, k: int) -> list[tuple[int, float]]:
            out = ragd.retrieve(queries[i], Plan(k=k, pool=k, mode="lexical"), coll)
            return [(row_of_key[(c.doc_id, c.chunk_index)], c.score) for c in out]
        return search, {"ingest_s": None, "note": "same store"}, None

    retrieve_engine = make_engine(
        "ragd.retrieve(mode=lexical)", {"plan": f"k={K}, pool={K}, mode lexical",
                                         "includes": "query validation, store call, chunk "
                                                     "fetch from SQLite, candidates"},
        build_retrieve)
    return [store_engine, retrieve_engine]


def bm25s_engines(texts: list[str], sf: dict[str, Any]) -> list[Engine]:
    engines = []
    queries = sf["query_texts"]

    def builder(backend: str, analyzer: str):
        def build():
            import bm25s
            import Stemmer

            if backend == "numba":
                import numba  # noqa: F401 - its absence makes this variant unavailable
            stemmer = Stemmer.Stemmer("english")
            t = time.perf_counter()
            if analyzer == "bm25s":
                corpus_tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer,
                                               show_progress=False)
            else:
                from ragd.analysis import analyze

                corpus_tokens = [analyze(t) for t in texts]
            tokenize_s = time.perf_counter() - t
            retriever = bm25s.BM25(k1=1.2, b=0.75, method="lucene", backend=backend)
            t = time.perf_counter()
            retriever.index(corpus_tokens, show_progress=False)
            index_s = time.perf_counter() - t
            n = len(texts)
            selection = "numba" if backend == "numba" else "numpy"

            if analyzer == "bm25s":
                def tokens(i: int) -> list[list[str]]:
                    return bm25s.tokenize([queries[i]], stopwords="en", stemmer=stemmer,
                                          return_ids=False, show_progress=False)
            else:
                from ragd.analysis import query_analyze

                def tokens(i: int) -> list[list[str]]:
                    return [query_analyze(query_terms(queries[i]))]

            def search(i: int, k: int) -> list[tuple[int, float]]:
                docs, scores = retriever.retrieve(tokens(i), k=min(k, n), show_progress=False,
                                                  n_threads=1, backend_selection=selection)
                return [(int(d), float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]

            def batch(n_threads: int, k: int) -> float:
                t = time.perf_counter()
                if analyzer == "bm25s":
                    q = bm25s.tokenize(queries, stopwords="en", stemmer=stemmer,
                                       return_ids=False, show_progress=False)
                else:
                    q = [tokens(i)[0] for i in range(len(queries))]
                retriever.retrieve(q, k=min(k, n), show_progress=False, n_threads=n_threads,
                                   backend_selection=selection)
                return time.perf_counter() - t
            state_batch[(backend, analyzer)] = batch
            return search, {"ingest_s": round(tokenize_s + index_s, 2),
                            "tokenize_s": round(tokenize_s, 2), "index_s": round(index_s, 2),
                            "ingest_note": "in memory (no persistence)"}, None
        return build

    state_batch: dict[tuple[str, str], Callable[[int, int], float]] = {}
    base = {"bm25": "method lucene, k1 1.2, b 0.75", "n_threads": 1}
    for backend, analyzer, name, tok in (
            ("numpy", "bm25s", "bm25s (numpy backend)", "bm25s.tokenize: \\w\\w+ tokens, "
             "lower-cased, stopwords 'en' (33 words), PyStemmer English stems"),
            ("numba", "bm25s", "bm25s (numba backend)", "as above"),
            ("numpy", "ragd", "bm25s (numpy), ragd's terms", "ragd.analysis.analyze / "
             "query_analyze: the very terms ragd indexes")):
        engine = make_engine(name, {**base, "backend": backend, "tokenizer": tok},
                             builder(backend, analyzer))
        engine.build["_batch"] = state_batch.get((backend, analyzer))
        engines.append(engine)
    return engines


def quality(engine: Engine, doc_of_row: list[str], sf: dict[str, Any]) -> dict[str, float]:
    """nDCG@10, Recall@100, MRR@10 (document level: a document scores as its best unit)."""
    run: dict[str, dict[str, float]] = {}
    for qid, hits in zip(sf["qids"], engine.results):
        seen: dict[str, float] = {}
        for row, score in hits:
            seen.setdefault(doc_of_row[row], score)
        run[qid] = dict(M.strict_scores(list(seen.items())[:QUALITY_DEPTH]))
    got = M.evaluate(sf["qrels"], run, k=K, depth=QUALITY_DEPTH)
    return {k: round(v, 4) for k, v in got.items()}


def bench_lexical(sf: dict[str, Any], workdir: Path, passes: int, batch_repeats: int
                  ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    n = len(sf["qids"])
    for unit in ("chunks", "documents"):
        started = load_average()
        docs, texts, doc_of_row = lexical_units(sf, unit)
        console.print(f"lexical, SciFact {unit}: {len(texts):,} units, {n} queries")
        engines = ragd_lexical_engines(docs, texts, sf, workdir, unit) + bm25s_engines(texts, sf)
        for engine in engines:
            warm_and_collect(engine, n, QUALITY_DEPTH)
        run_passes(engines, n, passes)
        paired = paired_pass(engines, n, passes)
        batches: dict[str, Any] = {}
        for engine in engines:
            batch = engine.build.pop("_batch", None)
            if batch is None or not engine.ok:
                continue
            for n_threads in (1, 2):
                try:
                    batch(n_threads, K)  # warm-up (numba compiles its parallel path)
                    runs = [batch(n_threads, K) for _ in range(batch_repeats)]
                    batches[f"{engine.name}, batch, n_threads={n_threads}"] = {
                        "qps": round(n / median(runs), 1),
                        "seconds_per_batch": round(median(runs), 4),
                        "note": "all queries in one retrieve() call, tokenization included"}
                except Exception as exc:  # noqa: BLE001
                    batches[f"{engine.name}, batch, n_threads={n_threads}"] = {
                        "error": _reason(exc)}
        rows = {}
        for engine in engines:
            row: dict[str, Any] = {"settings": engine.settings}
            if not engine.ok:
                row["available"] = False
                row["reason"] = engine.error
            else:
                row.update(available=True, build=engine.build, timing=timing(engine),
                           quality=quality(engine, doc_of_row, sf))
            rows[engine.name] = row
        close_all(engines)
        out[unit] = {"units": len(texts), "documents": len(docs), "queries": n, "k": K,
                     "quality_depth": QUALITY_DEPTH, "engines": rows, "batch": batches,
                     "paired": paired,
                     "load_average": {"start": started, "end": load_average()}}
        print_lexical(unit, out[unit])
    return out


def print_lexical(unit: str, r: dict[str, Any]) -> None:
    table = Table(title=f"Lexical, SciFact {unit} ({r['units']:,} units, {r['queries']} test "
                        f"queries, k={r['k']}, one query at a time; nDCG@10 / Recall@100 at "
                        "document level)")
    for col in ("engine", "queries/s", "× ragd store", "p50 ms", "p95 ms", "CPU/wall",
                "nDCG@10", "Recall@100", "build s", "first query ms"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    base = r["engines"].get("ragd store.lexical_search", {}).get("timing", {}).get("qps")
    for name, e in r["engines"].items():
        if not e.get("available"):
            table.add_row(name, f"not available: {e['reason']}", *[""] * 8)
            continue
        t, q, b = e["timing"], e["quality"], e["build"]
        table.add_row(name, _fmt(t.get("qps"), 0),
                      _fmt(t["qps"] / base if base and t.get("qps") else None),
                      _fmt(t.get("p50_ms")), _fmt(t.get("p95_ms")), _fmt(t.get("cpu_per_wall")),
                      _fmt(q["ndcg@10"], 3), _fmt(q["recall@100"], 3), _fmt(b.get("ingest_s")),
                      _fmt(b.get("first_query_ms"), 1))
    for name, bt in r["batch"].items():
        table.add_row(name, _fmt(bt.get("qps"), 0) if "qps" in bt else bt.get("error"),
                      _fmt(bt["qps"] / base if base and "qps" in bt else None), *[""] * 7)
    console.print(table)
    pr = r.get("paired") or {}
    if pr:
        p50 = pr["p50_ms"]
        console.print(f"paired, query by query ({pr['passes']} × {pr['queries']}): ragd store "
                      f"p50 {p50[PAIRED[0]]:.3f} ms, bm25s-numba p50 {p50[PAIRED[1]]:.3f} ms; "
                      f"median per-query time ratio ragd / bm25s {pr['median_ratio']:.3f}, "
                      f"ragd faster on {pr['ragd_faster_share']:.0%} of the queries")


# -- vector --------------------------------------------------------------------------------------
def random_units(rng: np.random.Generator, n: int, dims: int) -> np.ndarray:
    out = np.empty((n, dims), dtype=np.float32)
    for start in range(0, n, 50_000):
        x = rng.standard_normal((min(50_000, n - start), dims), dtype=np.float32)
        out[start:start + len(x)] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def exact_topk(matrix: np.ndarray, queries: np.ndarray, k: int) -> list[list[int]]:
    """Ground truth: float32 dot products (unit vectors: cosine), best first, ties by row."""
    out = []
    for start in range(0, len(queries), 64):
        scores = queries[start:start + 64] @ matrix.T
        for s in scores:
            part = np.argpartition(-s, k)[:k + 1] if len(s) > k + 1 else np.arange(len(s))
            kth = np.sort(s[part])[::-1][min(k, len(part)) - 1]
            cand = np.nonzero(s >= kth)[0]
            order = np.lexsort((cand, -s[cand]))
            out.append([int(i) for i in cand[order][:k]])
    return out


def vector_engines(name: str, matrix: np.ndarray, queries: np.ndarray, texts: list[str],
                   docs: list[tuple[DocumentRecord, list[Chunk]]], embed_model: str,
                   workdir: Path, options: dict[str, Any]) -> list[Engine]:
    n, dims = matrix.shape
    row_of_key = {(c.doc_id, c.chunk_index): i
                  for i, c in enumerate(c for _, chunks in docs for c in chunks)}
    engines: list[Engine] = []
    ragd_state: dict[str, Any] = {}

    def numpy_floor():
        def search(i: int, k: int) -> list[tuple[int, float]]:
            s = matrix @ queries[i]
            top = np.argpartition(-s, k)[:k]
            top = top[np.argsort(-s[top], kind="stable")]
            return [(int(r), float(s[r])) for r in top]
        return search, {"ingest_s": 0.0, "ingest_note": "the matrix is already in memory"}, None

    def ragd_store():
        store = SQLiteStore(workdir / f"ragd-vector-{name}.sqlite")
        store.create_collection("peers", embed_model, dims, {})
        t = time.perf_counter()
        offset = 0
        for record, chunks in docs:
            store.upsert_document("peers", record, chunks, matrix[offset:offset + len(chunks)])
            offset += len(chunks)
        ingest = time.perf_counter() - t
        t = time.perf_counter()
        store.vector_search("peers", queries[0], 1, exact=True)  # loads the matrix cache
        load = time.perf_counter() - t
        ragd_state["store"] = store

        def search(i: int, k: int) -> list[tuple[int, float]]:
            return [(row_of_key[h.key], h.score)
                    for h in store.vector_search("peers", queries[i], k, exact=True)]
        return search, {"ingest_s": round(ingest, 2), "index_load_s": round(load, 2),
                        "ingest_note": "upsert_document per document (one transaction each; "
                                       "lexical analysis of the texts included)"}, store.close

    def ragd_store_1thread():
        if "store" not in ragd_state:
            raise RuntimeError("the ragd store did not build")
        import threadpoolctl  # noqa: F401 - its absence makes this variant unavailable

        store = ragd_state["store"]

        def search(i: int, k: int) -> list[tuple[int, float]]:
            return [(row_of_key[h.key], h.score)
                    for h in store.vector_search("peers", queries[i], k, exact=True)]
        return search, {"ingest_s": None, "note": "same store"}, None

    def ragd_hnsw():
        if "store" not in ragd_state:
            raise RuntimeError("the ragd store did not build")
        if n < ANN_THRESHOLD:
            raise RuntimeError(f"{n:,} chunks: below the store's graph threshold "
                               f"({ANN_THRESHOLD:,}), its searches are exact")
        store = ragd_state["store"]
        t = time.perf_counter()
        store.vector_search("peers", queries[0], 1)  # the default call builds the graph
        build = time.perf_counter() - t
        stats = store.stats("peers").get("vector_index", {})

        def search(i: int, k: int) -> list[tuple[int, float]]:
            return [(row_of_key[h.key], h.score)
                    for h in store.vector_search("peers", queries[i], k)]
        return search, {"ingest_s": None, "index_build_s": round(build, 2),
                        "note": "same store; its first default search built and saved the "
                                "graph (single-threaded)", "index": stats}, None

    def ragd_hnsw_ef(ef: int):
        """The graph searched with a longer candidate list (``--ragd-ef-search``): the
        setting at which ragd's recall meets Chroma's, for a queries/s at equal recall."""
        def build():
            _, info, _ = ragd_hnsw()
            store = ragd_state["store"]

            def search(i: int, k: int) -> list[tuple[int, float]]:
                return [(row_of_key[h.key], h.score)
                        for h in store.vector_search("peers", queries[i], k, ef_search=ef)]
            return search, {"index": info.get("index"),
                            "note": "same store and graph as the default row"}, None
        return build

    def ragd_retrieve():
        if "store" not in ragd_state:
            raise RuntimeError("the ragd store did not build")
        qtexts = [f"peers query {i}" for i in range(len(queries))]
        coll = ragd.open_collection(ragd_state["store"], "peers", PrecomputedQueryEmbedder(
            embed_model, dims, dict(zip(qtexts, queries))))

        def search(i: int, k: int) -> list[tuple[int, float]]:
            out = ragd.retrieve(qtexts[i], Plan(k=k, pool=k, mode="vector"), coll)
            return [(row_of_key[(c.doc_id, c.chunk_index)], c.score) for c in out]
        return search, {"ingest_s": None, "note": "same store"}, None

    def chroma():
        import chromadb
        from chromadb.config import Settings

        path = workdir / f"chroma-{name}"
        client = chromadb.PersistentClient(path=str(path), settings=Settings(
            anonymized_telemetry=False, allow_reset=True))
        hnsw = {"space": "cosine", "ef_construction": options["chroma_ef_construction"],
                "ef_search": options["chroma_ef_search"], "max_neighbors": options["chroma_m"]}
        coll = client.create_collection("peers", embedding_function=None,
                                        configuration={"hnsw": hnsw})
        batch = client.get_max_batch_size()
        t = time.perf_counter()
        for start in range(0, n, batch):
            stop = min(n, start + batch)
            coll.add(ids=[str(i) for i in range(start, stop)], embeddings=matrix[start:stop],
                     documents=texts[start:stop])
        ingest = time.perf_counter() - t

        def search(i: int, k: int) -> list[tuple[int, float]]:
            r = coll.query(query_embeddings=queries[i:i + 1], n_results=k,
                           include=["distances"])
            return [(int(d), 1.0 - float(s)) for d, s in zip(r["ids"][0], r["distances"][0])]

        def close():
            try:
                client.reset()
            except Exception:  # noqa: BLE001
                pass
        return search, {"ingest_s": round(ingest, 2), "batch": batch,
                        "ingest_note": "PersistentClient; add() in batches of the client's max "
                                       "batch size, with ids, embeddings and texts; HNSW built "
                                       "during ingest", "configuration": coll.configuration_json
                        if hasattr(coll, "configuration_json") else hnsw}, close

    lance_state: dict[str, Any] = {}

    def lance_table():
        import lancedb
        import pyarrow as pa

        db = lancedb.connect(str(workdir / f"lance-{name}"))
        data = pa.table({"id": pa.array(np.arange(n), pa.int64()), "text": pa.array(texts),
                         "vector": pa.FixedSizeListArray.from_arrays(
                             pa.array(matrix.reshape(-1), pa.float32()), dims)})
        t = time.perf_counter()
        table = db.create_table("peers", data=data)
        lance_state["table"] = table
        return table, time.perf_counter() - t

    def lance_flat():
        table, ingest = lance_table()

        def search(i: int, k: int) -> list[tuple[int, float]]:
            r = (table.search(queries[i], vector_column_name="vector").distance_type("cosine")
                 .bypass_vector_index().limit(k).select(["id", "_distance"]).to_arrow())
            return [(int(d), 1.0 - float(s)) for d, s in zip(r.column("id").to_pylist(),
                                                           r.column("_distance").to_pylist())]
        return search, {"ingest_s": round(ingest, 2), "ingest_note": "create_table from one "
                        "Arrow table (ids, texts, vectors), on disk"}, None

    def lance_index():
        from lancedb.index import IvfHnswSq

        table = lance_state.get("table")
        if table is None:
            raise RuntimeError("the LanceDB table did not build")
        t = time.perf_counter()
        table.create_index("vector", config=IvfHnswSq(distance_type="cosine"))
        build = time.perf_counter() - t
        nprobes, ef = options["lance_nprobes"], options["lance_ef"]
        details = {}
        try:
            for idx in table.list_indices():
                details = {"index_type": str(getattr(idx, "index_type", "")),
                           "details": getattr(idx, "index_details", None)}
        except Exception:  # noqa: BLE001
            pass

        def search(i: int, k: int) -> list[tuple[int, float]]:
            r = (table.search(queries[i], vector_column_name="vector").distance_type("cosine")
                 .nprobes(nprobes).ef(ef).limit(k).select(["id", "_distance"]).to_arrow())
            return [(int(d), 1.0 - float(s)) for d, s in zip(r.column("id").to_pylist(),
                                                           r.column("_distance").to_pylist())]
        return search, {"ingest_s": None, "index_build_s": round(build, 2),
                        "note": "same table as the flat scan", "index": details}, None

    def sqlite_vec():
        import apsw
        import sqlite_vec

        conn = apsw.Connection(str(workdir / f"sqlite-vec-{name}.sqlite"))
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{dims}] "
                     "distance_metric=cosine, +text text)")
        t = time.perf_counter()
        with conn:
            conn.executemany("INSERT INTO v(rowid, embedding, text) VALUES (?, ?, ?)",
                             ((i + 1, matrix[i].tobytes(), texts[i]) for i in range(n)))
        ingest = time.perf_counter() - t
        sql = "SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = ?"

        def search(i: int, k: int) -> list[tuple[int, float]]:
            return [(int(r) - 1, 1.0 - float(d))
                    for r, d in conn.execute(sql, (queries[i].tobytes(), k))]
        return search, {"ingest_s": round(ingest, 2), "ingest_note": "one transaction, "
                        "executemany of (rowid, float32 blob, text)"}, conn.close

    for engine_name, settings, builder in (
            ("numpy brute force (floor)", {"search": "float32 matrix @ query, argpartition"},
             numpy_floor),
            (RAGD_EXACT, {"search": "exact=True: float32 matrix @ query in numpy, "
                                    "top-k with deterministic ties",
                          "blas_threads": "numpy's default (all cores)"},
             ragd_store),
            (f"{RAGD_EXACT}, 1 BLAS thread",
             {"search": "the same store call under threadpoolctl threadpool_limits(1, 'blas')",
              "blas_threads": 1}, ragd_store_1thread),
            ("ragd store.vector_search (HNSW)",
             {"search": "the default call (exact=None) at or above the store's graph threshold: "
                        "usearch HNSW, candidates rescored exactly from float32",
              "connectivity (M)": CONNECTIVITY, "expansion_add (ef_construction)": EXPANSION_ADD,
              "ef_search": default_ef_search(n), "graph vectors": DTYPE}, ragd_hnsw),
            *((f"ragd store.vector_search (HNSW, ef_search {ef})",
               {"search": "the same graph, ef_search given per query (--ragd-ef-search)",
                "ef_search": ef}, ragd_hnsw_ef(ef))
              for ef in options.get("ragd_ef_search", ())),
            ("ragd.retrieve(mode=vector)", {"plan": f"k={K}, pool={K}, mode vector",
                                             "search": "the store's default (exact below "
                                                       f"{ANN_THRESHOLD:,} chunks, HNSW from it)",
                                             "includes": "store call, chunk fetch from SQLite, "
                                                         "candidates; query embedding excluded "
                                                         "(precomputed)"}, ragd_retrieve),
            ("Chroma (HNSW)", {"index": "HNSW (hnswlib in chromadb's Rust core), cosine",
                               "max_neighbors (M)": options["chroma_m"],
                               "ef_construction": options["chroma_ef_construction"],
                               "ef_search": options["chroma_ef_search"]}, chroma),
            ("LanceDB flat (exact)", {"search": "bypass_vector_index: exact scan, cosine"},
             lance_flat),
            ("LanceDB IVF_HNSW_SQ", {"index": "IVF_HNSW_SQ, cosine, default partitions, m 20, "
                                              "ef_construction 300, 8-bit SQ",
                                     "nprobes": options["lance_nprobes"],
                                     "ef": options["lance_ef"]}, lance_index),
            ("sqlite-vec (vec0, exact)", {"search": "vec0 KNN (k = ?), cosine, float32, "
                                                    "via apsw's SQLite"}, sqlite_vec)):
        if options.get("skip") and engine_name in options["skip"]:
            continue
        engine = make_engine(engine_name, settings, builder)
        engine.blas_threads = settings.get("blas_threads") if isinstance(
            settings.get("blas_threads"), int) else None
        engines.append(engine)
    return engines


def bench_vector(label: str, matrix: np.ndarray, queries: np.ndarray, texts: list[str],
                 docs: list[tuple[DocumentRecord, list[Chunk]]], embed_model: str,
                 workdir: Path, passes: int, options: dict[str, Any],
                 qrels: dict[str, Any] | None = None, qids: list[str] | None = None,
                 doc_of_row: list[str] | None = None) -> dict[str, Any]:
    started = load_average()
    n_q = len(queries)
    console.print(f"vector, {label}: {matrix.shape[0]:,} vectors x {matrix.shape[1]} dims, "
                  f"{n_q} queries")
    t = time.perf_counter()
    truth = exact_topk(matrix, queries, K)
    console.print(f"  exact ground truth in {time.perf_counter() - t:.1f} s")
    engines = vector_engines(label.split()[0].lower(), matrix, queries, texts, docs,
                             embed_model, workdir, options)
    for engine in engines:
        warm_and_collect(engine, n_q, K)
    run_passes(engines, n_q, passes)
    rows = {}
    for engine in engines:
        row: dict[str, Any] = {"settings": engine.settings}
        if not engine.ok:
            row.update(available=False, reason=engine.error)
        else:
            recall = float(np.mean([len({r for r, _ in got} & set(exp)) / len(exp)
                                    for got, exp in zip(engine.results, truth)]))
            row.update(available=True, build=engine.build, timing=timing(engine),
                       recall_at_10_vs_exact=round(recall, 4))
            if qrels is not None and qids is not None and doc_of_row is not None:
                run = {}
                for qid, hits in zip(qids, engine.results):
                    seen: dict[str, float] = {}
                    for r, s in hits:
                        seen.setdefault(doc_of_row[r], s)
                    run[qid] = dict(M.strict_scores(list(seen.items())))
                row["ndcg@10_docs_from_top10_chunks"] = round(
                    M.evaluate(qrels, run, k=K, depth=QUALITY_DEPTH)[f"ndcg@{K}"], 4)
        rows[engine.name] = row
    close_all(engines)
    out = {"vectors": int(matrix.shape[0]), "dims": int(matrix.shape[1]), "queries": n_q,
           "k": K, "engines": rows, "rss_after": rss_mb(),
           "load_average": {"start": started, "end": load_average()}}
    print_vector(label, out)
    return out


def print_vector(label: str, r: dict[str, Any]) -> None:
    table = Table(title=f"Vector search, {label}: {r['vectors']:,} x {r['dims']} float32, "
                        f"{r['queries']} queries, k={r['k']}, one query at a time, query "
                        "embedding excluded")
    with_ndcg = any("ndcg@10_docs_from_top10_chunks" in e for e in r["engines"].values())
    cols = ["engine", "queries/s", "× ragd store", "p50 ms", "p95 ms", "CPU/wall",
            "recall@10 vs exact"] + (["nDCG@10"] if with_ndcg else []) + \
        ["ingest s", "index build s", "first query ms"]
    for col in cols:
        table.add_column(col, justify="left" if col == "engine" else "right")
    base = r["engines"].get(RAGD_EXACT, {}).get("timing", {}).get("qps")
    for name, e in r["engines"].items():
        if not e.get("available"):
            table.add_row(name, f"not available: {e['reason']}", *[""] * (len(cols) - 2))
            continue
        t, b = e["timing"], e["build"]
        table.add_row(name, _fmt(t.get("qps"), 0),
                      _fmt(t["qps"] / base if base and t.get("qps") else None),
                      _fmt(t.get("p50_ms")), _fmt(t.get("p95_ms")), _fmt(t.get("cpu_per_wall")),
                      _fmt(e["recall_at_10_vs_exact"], 3),
                      *([_fmt(e.get("ndcg@10_docs_from_top10_chunks"), 3)] if with_ndcg else []),
                      _fmt(b.get("ingest_s")), _fmt(b.get("index_build_s") or b.get(
                          "index_load_s")), _fmt(b.get("first_query_ms"), 1))
    console.print(table)


def synthetic_docs(n: int) -> tuple[list[tuple[DocumentRecord, list[Chunk]]], list[str]]:
    docs, texts = [], []
    for i in range(n):
        doc = f"r{i:07d}"
        text = f"synthetic chunk number {i}"
        docs.append((DocumentRecord(doc, "h", title=f"doc {i}"),
                     [Chunk(doc_id=doc, chunk_index=0, text=text)]))
        texts.append(text)
    return docs, texts


SYNTHETIC = {
    "random": f"seeded ({SEED}) standard normal, normalised: uniform on the 384-d sphere; "
              "queries drawn the same way. Every pair is nearly orthogonal, so graph and "
              "partition indexes find little structure: the worst case for ANN recall.",
    "scifact-mix": "bench/postgres.py's generator: the real SciFact chunk embeddings, then "
                   "0.6 a + 0.4 b (+ 0.01 noise) of random pairs of them, normalised, up to "
                   "--size; queries: the real SciFact test query embeddings (same topic space).",
}


def scifact_data_full() -> dict[str, Any]:
    """All SciFact chunk and query vectors in ``bench/postgres.py``'s order (cached)."""
    from postgres import scifact_data

    if "data" not in _FULL:
        _FULL["data"] = scifact_data()
    return _FULL["data"]


_FULL: dict[str, Any] = {}


# -- main ----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["lexical", "vector"], action="append")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 50 queries, 1,000 SciFact documents, 10k synthetic "
                             "vectors, 1 pass (numbers not comparable)")
    parser.add_argument("--size", type=int, default=100_000, help="synthetic vectors (100k)")
    parser.add_argument("--synthetic", default="scifact-mix,random",
                        help="synthetic vector sets at --size: scifact-mix (SciFact chunk "
                             "embeddings, then mixtures of pairs of them: realistic structure) "
                             "and/or random (uniform unit vectors: the worst case for ANN)")
    parser.add_argument("--queries", type=int, default=0,
                        help="SciFact test queries (0: all 300); also the synthetic query count")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--batch-repeats", type=int, default=5)
    parser.add_argument("--ragd-ef-search", default="112",
                        help="ragd's graph also searched at these ef_search (comma-separated; "
                             "empty: not)")
    parser.add_argument("--skip", action="append", default=[],
                        help="an engine's row name not to run (repeatable)")
    parser.add_argument("--chroma-m", type=int, default=16)
    parser.add_argument("--chroma-ef-construction", type=int, default=100)
    parser.add_argument("--chroma-ef-search", type=int, default=100)
    parser.add_argument("--lance-nprobes", type=int, default=20)
    parser.add_argument("--lance-ef", type=int, default=100)
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where stores and indexes are built (default: a temporary "
                             "directory, removed at the end)")
    parser.add_argument("--name", default="peers", help="results file name (without .json)")
    args = parser.parse_args(argv)
    if args.quick:
        args.size, args.passes, args.batch_repeats = 10_000, 1, 1
        args.queries = args.queries or 50
        if args.name == "peers":
            args.name = "peers-quick"
    only = set(args.only or ["lexical", "vector"])
    machine = machine_info()
    versions = peer_versions()
    console.print("versions: " + ", ".join(f"{k} {v}" for k, v in versions.items() if v))
    options = {"chroma_m": args.chroma_m, "chroma_ef_construction": args.chroma_ef_construction,
               "chroma_ef_search": args.chroma_ef_search, "skip": sorted(set(args.skip)),
               "ragd_ef_search": [int(v) for v in args.ragd_ef_search.split(",") if v.strip()],
               "lance_nprobes": args.lance_nprobes, "lance_ef": args.lance_ef}
    results: dict[str, Any] = {
        "benchmark": "peers",
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine, "versions": versions,
        "settings": {"k": K, "passes": args.passes, "quick": args.quick,
                     "statistic": f"median over {args.passes} interleaved passes of per-pass "
                                  "figures; queries/s = queries / summed per-query wall time",
                     "threads": "not pinned: every engine runs with its defaults on the "
                                f"{os.cpu_count()} cores; CPU/wall = process CPU time / wall "
                                "time over the timed loop", **options,
                     "synthetic_vectors": args.size, "seed": SEED},
    }
    temp = args.workdir is None
    work = Path(tempfile.mkdtemp(prefix="ragd-bench-peers-")) if temp else args.workdir
    work.mkdir(parents=True, exist_ok=True)
    try:
        sf = load_scifact(args.queries or None, 1000 if args.quick else None)
        console.print(f"SciFact: {len(sf['docs']):,} documents, {len(sf['chunk_vectors']):,} "
                      f"chunks, {len(sf['qids'])} test queries (embeddings: "
                      f"{sf['embedding_source']})")
        results["data"] = {"scifact": {"path": str(SCIFACT), "corpus_sha256": sf["corpus_sha256"],
                                       "documents": len(sf["docs"]),
                                       "chunks": int(len(sf["chunk_vectors"])),
                                       "queries": len(sf["qids"]),
                                       "embed_model": sf["embed_model"],
                                       "embeddings": sf["embedding_source"]}}
        if "lexical" in only:
            results["lexical_scifact"] = bench_lexical(sf, work, args.passes, args.batch_repeats)
            results["lexical_scifact"]["date"] = datetime.now(timezone.utc).isoformat(
                timespec="seconds")
        if "vector" in only:
            docs = sf["docs"]
            texts = [c.search_text for _, chunks in docs for c in chunks]
            doc_of_row = [c.doc_id for _, chunks in docs for c in chunks]
            results["vector_scifact"] = bench_vector(
                "SciFact chunks (MiniLM)", sf["chunk_vectors"], sf["query_vectors"], texts, docs,
                sf["embed_model"], work, args.passes, options, sf["qrels"], sf["qids"],
                doc_of_row)
            sdocs, stexts = synthetic_docs(args.size)
            for kind in [s.strip() for s in args.synthetic.split(",") if s.strip()]:
                if kind == "random":
                    rng = np.random.default_rng(SEED)
                    matrix = random_units(rng, args.size, sf["dims"])
                    queries = random_units(rng, len(sf["qids"]), sf["dims"])
                    label = f"random unit vectors ({args.size:,})"
                elif kind == "scifact-mix":
                    from postgres import _vectors  # bench/postgres.py's SciFact-derived set

                    full = scifact_data_full()
                    matrix, queries = _vectors("scifact", args.size, sf["dims"],
                                               len(sf["qids"]), full)
                    label = f"SciFact-derived vectors ({args.size:,})"
                else:
                    parser.error(f"unknown --synthetic kind {kind!r}")
                results[f"vector_{kind.replace('-', '_')}"] = {
                    **bench_vector(label, np.ascontiguousarray(matrix, np.float32),
                                   np.ascontiguousarray(queries, np.float32), stexts, sdocs,
                                   sf["embed_model"], work, args.passes, options),
                    "generator": SYNTHETIC[kind]}
    finally:
        if temp:
            shutil.rmtree(work, ignore_errors=True)
    path = write_results(args.name, results)
    m = results["machine"]
    console.print(f"{m['cpu_model']}, {m['cores']} cores, python {m['python']}; load average "
                  f"start {m['load_average_at_start']}, end {m.get('load_average_at_end')}")
    console.print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
