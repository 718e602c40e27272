"""Search latency (p50/p95/p99) of vector, lexical and hybrid retrieval over synthetic stores.

    .venv/bin/python bench/search.py                          # 10k and 100k chunks
    .venv/bin/python bench/search.py --sizes 10000 --passes 5
    .venv/bin/python bench/search.py --workdir /tmp/ragd-search --keep   # reuse stores later
    .venv/bin/python bench/search.py --profile                # + cProfile of hybrid at the largest size
    .venv/bin/python bench/search.py --sizes 100000,1000000 --vectors scifact \
        --scifact-store .ragd/eval/scifact-.../ragd.sqlite --workdir /tmp/ragd-scale

The stores are synthetic, built fast: chunk texts are sentences of real English words
drawn (seeded RNG) from the unigram distribution of the SciFact corpus, so term
statistics are realistic; embeddings are seeded random unit vectors of 384 dims,
written through the Store protocol directly (embedding 100k chunks with the model
would take hours). Queries are real: SciFact test queries (``queries.jsonl``, ids
from ``qrels/test.tsv``), embedded with the real MiniLM model. ``--vectors scifact``
replaces the random embeddings by SciFact-derived ones (0.6·a + 0.4·b + noise of two real SciFact chunk embeddings, read from
a store ``ragd eval beir`` built): random vectors have no neighbourhoods, which no
approximate index can search well, and real collections do.

Latency is measured through ``ragd.retrieve`` (validation, candidate searches,
chunk fetch, fusion), twice:

- query embedding excluded: the collection's embedder is a small wrapper that
  returns the query vectors precomputed with the real model (same name and dims,
  so the collection accepts it);
- query embedding included: the real ``MiniLMEmbedder``.

Lexical search embeds nothing, so it has only the first. The first vector search
of a freshly opened store loads the matrix cache: that warm-up is reported on its
own and never counted in the percentiles. Each pass runs every query once per mode;
percentiles are per pass, and the median over passes is reported (other work may
share the machine). Results: ``bench/results/search.json``. No timed assertions.

Scale (:mod:`search_scale`): before the timed runs, fresh processes open the store and
run one first search each (lexical, then vector), twice: the first open builds and saves
the missing index files (BM25 postings; the HNSW graph once the collection is above the
threshold), the reopen maps them. Then exact against the default vector search (the
graph above the threshold): latency and recall@10.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import gzip
import hashlib
import io
import json
import pstats
import re
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_scale import cold_start, ef_sweep, exact_vs_approximate  # noqa: E402
from _common import (RESULTS_DIR, SCIFACT, human_bytes, load_average, machine_info,  # noqa: E402
                     make_console, median, percentile, rss_mb, write_results)

import ragd  # noqa: E402
from ragd.embedding.onnx import MiniLMEmbedder  # noqa: E402
from ragd.retrieval.fusion import fuse  # noqa: E402
from ragd.retrieval.query import validate_query  # noqa: E402
from ragd.retrieval.retrieve import candidate_lists  # noqa: E402
from ragd.stores import DocumentRecord, open_store  # noqa: E402
from ragd.text import query_terms  # noqa: E402
from ragd.types import Chunk, Plan  # noqa: E402

console = make_console()
COLLECTION = "bench"
GENERATOR_VERSION = 1  # bump when the synthetic corpus changes (stores are reused by name)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")


# -- the synthetic corpus --------------------------------------------------------------------
def scifact_unigrams(corpus: Path, min_count: int = 2) -> tuple[list[str], np.ndarray]:
    """Words of the SciFact corpus (lower-cased, seen ``min_count`` times or more) and their
    relative frequencies, in a fixed order (count desc, then word)."""
    counts: Counter[str] = Counter()
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                counts.update(w.lower() for w in _WORD.findall(f"{rec.get('title', '')} "
                                                                 f"{rec.get('text', '')}"))
    items = sorted(((w, c) for w, c in counts.items() if c >= min_count),
                   key=lambda wc: (-wc[1], wc[0]))
    words = [w for w, _ in items]
    freq = np.array([c for _, c in items], dtype=np.float64)
    return words, freq / freq.sum()


class SyntheticCorpus:
    """Deterministic documents of sentences drawn from a unigram distribution."""

    def __init__(self, words: list[str], probs: np.ndarray, seed: int,
                 chunks_per_doc: int, dims: int, base: np.ndarray | None = None) -> None:
        self.base = base  # real embeddings to mix (SciFact-derived vectors), or None: random
        self.kind = "random" if base is None else "scifact"
        self.words = np.array(words, dtype=object)
        self.cdf = np.cumsum(probs)
        self.cdf[-1] = 1.0
        self.seed = seed
        self.chunks_per_doc = chunks_per_doc
        self.dims = dims

    def _draw(self, rng: np.random.Generator, n: int) -> list[str]:
        return self.words[np.searchsorted(self.cdf, rng.random(n), side="right")].tolist()

    def _sentence_block(self, rng: np.random.Generator, n_words: int) -> str:
        words = self._draw(rng, n_words)
        out, i = [], 0
        while i < n_words:
            length = int(rng.integers(8, 26))
            part = words[i:i + length]
            i += length
            out.append(part[0].capitalize() + (" " + " ".join(part[1:]) if len(part) > 1 else "")
                       + ".")
        return " ".join(out)

    def document(self, number: int) -> tuple[DocumentRecord, list[Chunk], np.ndarray]:
        """Document ``number``: the same on every run (its own RNG stream)."""
        rng = np.random.default_rng([self.seed, number])
        doc_id = f"syn-{number:07d}"
        title = self._sentence_block(rng, int(rng.integers(6, 14))).rstrip(".")
        chunks = []
        for i in range(self.chunks_per_doc):
            text = self._sentence_block(rng, int(rng.integers(80, 161)))
            chunks.append(Chunk(doc_id=doc_id, chunk_index=i, text=text, context=title,
                                tokens=int(len(text) / 4.2)))
        if self.base is None:
            vectors = rng.standard_normal((len(chunks), self.dims), dtype=np.float32)
        else:  # 0.6·a + 0.4·b (+ small noise) of two real embeddings, as bench/postgres.py
            i, j = rng.integers(0, len(self.base), (2, len(chunks)))
            vectors = (0.6 * self.base[i] + 0.4 * self.base[j]
                       + 0.01 * rng.standard_normal((len(chunks), self.dims))).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        digest = hashlib.sha256("\x1f".join([title, *(c.text for c in chunks)]).encode()).hexdigest()
        return (DocumentRecord(doc_id=doc_id, content_hash=digest, title=title,
                               source="synthetic"), chunks, vectors)


def build_store(path: Path, corpus: SyntheticCorpus, n_chunks: int) -> dict[str, Any]:
    """Write ``n_chunks`` synthetic chunks (whole documents) through the Store protocol."""
    n_docs = -(-n_chunks // corpus.chunks_per_doc)
    store = open_store(path)
    store.create_collection(COLLECTION, MiniLMEmbedder.name, MiniLMEmbedder.dims,
                            {"embedder": {"kind": "minilm"},
                             "synthetic": {"generator": GENERATOR_VERSION, "seed": corpus.seed,
                                           "chunks": n_chunks, "vectors": corpus.kind}})
    gen_s = write_s = 0.0
    written = 0
    started = time.perf_counter()
    for number in range(n_docs):
        t0 = time.perf_counter()
        record, chunks, vectors = corpus.document(number)
        keep = min(len(chunks), n_chunks - written)
        chunks, vectors = chunks[:keep], vectors[:keep]
        t1 = time.perf_counter()
        store.upsert_document(COLLECTION, record, chunks, vectors)
        t2 = time.perf_counter()
        gen_s += t1 - t0
        write_s += t2 - t1
        written += keep
        if number % 2000 == 1999:
            console.print(f"  built {written:,}/{n_chunks:,} chunks "
                          f"({time.perf_counter() - started:.0f} s)")
    t0 = time.perf_counter()
    store.close()  # the last connection checkpoints the WAL into the main file
    close_s = time.perf_counter() - t0
    return {"documents": n_docs, "chunks": written, "generate_seconds": gen_s,
            "write_seconds": write_s, "close_seconds": close_s,
            "chunks_per_second_written": written / write_s if write_s else None,
            "reused": False}


def store_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())


def existing_chunks(path: Path, seed: int, kind: str = "random") -> int | None:
    """Chunk count of a reusable store built by this generator with this seed, else None."""
    if not path.exists():
        return None
    store = open_store(path)
    try:
        info = store.get_collection(COLLECTION)
        syn = dict(info.config).get("synthetic") or {}
        if syn.get("generator") != GENERATOR_VERSION or syn.get("seed") != seed \
                or syn.get("vectors", "random") != kind:
            return None
        chunks = store.stats(COLLECTION)["chunks"]
        return chunks if chunks == syn.get("chunks") else None
    except ragd.RagdError:
        return None
    finally:
        store.close()


def scifact_vectors(store_path: Path) -> np.ndarray:
    """The chunk embeddings (bundled model) of a SciFact store built by ``ragd eval beir``,
    read without writing to it: the base of the SciFact-derived vectors."""
    import sqlite3
    conn = sqlite3.connect(f"file:{store_path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT embedding FROM chunks ORDER BY doc_id, chunk_index").fetchall()
    finally:
        conn.close()
    return np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(len(rows), -1)


# -- queries -----------------------------------------------------------------------------------
def scifact_test_queries(n: int) -> list[tuple[str, str]]:
    """(id, text) of the first ``n`` SciFact test queries (qrels/test.tsv order of first use)."""
    ids: list[str] = []
    with open(SCIFACT / "qrels" / "test.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            qid = line.split("\t", 1)[0].strip()
            if qid and qid not in ids:
                ids.append(qid)
    texts = {}
    with open(SCIFACT / "queries.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                texts[str(rec["_id"])] = rec["text"]
    chosen = [q for q in ids if q in texts][:n] if n else [q for q in ids if q in texts]
    return [(q, validate_query(texts[q])) for q in chosen]


class PrecomputedQueryEmbedder:
    """An embedder that answers ``embed_query`` from vectors computed beforehand with the
    real model, so retrieval can be timed without the model (same name and dims)."""

    def __init__(self, inner: MiniLMEmbedder, vectors: dict[str, np.ndarray]) -> None:
        self._inner = inner
        self._vectors = vectors
        self.name = inner.name
        self.dims = inner.dims
        self.max_input_tokens = inner.max_input_tokens

    def embed_query(self, text: str) -> np.ndarray:
        return self._vectors[text]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        raise RuntimeError("the search benchmark embeds no documents")

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self._inner.count_tokens(texts)

    def spec(self) -> dict[str, Any]:
        return self._inner.spec()


# -- timing ------------------------------------------------------------------------------------
def summarize(passes: list[list[float]]) -> dict[str, Any]:
    """Per-pass percentiles (ms), and their median over passes."""
    per_pass = [{"p50": percentile(p, 50) * 1e3, "p95": percentile(p, 95) * 1e3,
                 "p99": percentile(p, 99) * 1e3, "mean": sum(p) / len(p) * 1e3,
                 "max": max(p) * 1e3} for p in passes if p]
    out: dict[str, Any] = {k: median([pp[k] for pp in per_pass])
                           for k in ("p50", "p95", "p99", "mean", "max")}
    out["samples_per_pass"] = len(passes[0]) if passes else 0
    out["passes"] = per_pass
    return out


def time_calls(fn: Callable[[str], Any], queries: list[str]
               ) -> tuple[list[float], list[float], list[Any]]:
    """Wall times, CPU times of the calling thread (not counting BLAS/onnxruntime worker
    threads; less sensitive to other processes than wall time) and results, per query."""
    times, cpu, results = [], [], []
    for q in queries:
        c0, t0 = time.thread_time(), time.perf_counter()
        r = fn(q)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        results.append(r)
    return times, cpu, results


def bench_size(path: Path, size: int, queries: list[str], qvecs: dict[str, np.ndarray],
               embedder: MiniLMEmbedder, passes: int, profile: bool,
               efs: list[int] | None = None) -> dict[str, Any]:
    gc.collect()
    # Cold starts in fresh processes: the first builds and saves whatever index files are
    # missing (BM25 postings; the HNSW graph above the threshold), the second maps them.
    q0 = queries[0]
    cold: dict[str, Any] = {}
    for mode in ("lexical", "vector"):
        for run in ("first_open", "reopen"):
            c = cold[f"{mode}/{run}"] = cold_start(path, COLLECTION, mode, query_terms(q0),
                                                   qvecs[q0])
            console.print(f"  {mode} {run}: first search {c['first_search_seconds']:.2f} s, "
                          f"RSS after open {c['after_open']['rss_mb']:.0f} MiB, after search "
                          f"{c['after_search']['rss_mb']:.0f} MiB, peak "
                          f"{c['after_search']['peak_mb']:.0f} MiB")
    store = open_store(path)
    excl = ragd.open_collection(store, COLLECTION, PrecomputedQueryEmbedder(embedder, qvecs))
    incl = ragd.open_collection(store, COLLECTION, embedder)
    out: dict[str, Any] = {"chunks": store.stats(COLLECTION)["chunks"], "rss_after_open":
                           rss_mb(), "cold_start": cold}

    # Warm-up: the first vector search loads the matrix cache (timed on its own).
    t0 = time.perf_counter()
    store.vector_search(COLLECTION, qvecs[q0], 50)
    out["first_vector_search_seconds"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.vector_search(COLLECTION, qvecs[q0], 50)
    out["second_vector_search_seconds"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    store.lexical_search(COLLECTION, query_terms(q0), 50)
    out["first_lexical_search_seconds"] = time.perf_counter() - t0
    for q in queries[:20]:
        for mode in ("vector", "lexical", "hybrid"):
            ragd.retrieve(q, Plan(mode=mode), excl)
    out["rss_after_warmup"] = rss_mb()
    out["exact_vs_approximate"] = exact_vs_approximate(
        store, COLLECTION, [qvecs[q] for q in queries], summarize, passes)
    ea = out["exact_vs_approximate"]
    console.print(f"  vector k=10: exact p50/p95 {ea['exact']['p50']:.2f}/{ea['exact']['p95']:.2f}"
                  f" ms, default p50/p95 {ea['approximate']['p50']:.2f}/"
                  f"{ea['approximate']['p95']:.2f} ms, recall@10 {ea['recall_at_k']:.3f}")
    if efs:
        out["ef_sweep"] = ef_sweep(store, COLLECTION, [qvecs[q] for q in queries], efs,
                                   summarize)
        for row in out["ef_sweep"]:
            console.print(f"  ef_search {row['ef_search']}{' (default)' if row['default'] else ''}"
                          f": recall@10 {row['recall_at_k']:.3f}, p50/p95 {row['p50']:.2f}/"
                          f"{row['p95']:.2f} ms (load {row['load_average'][0]:.1f})")

    runs: dict[str, list[list[float]]] = {}
    cpu_runs: dict[str, list[list[float]]] = {}
    counts: dict[str, list[int]] = {}
    variants = [("vector", "excluded", excl), ("lexical", "excluded", excl),
                ("hybrid", "excluded", excl), ("vector", "included", incl),
                ("hybrid", "included", incl)]
    for p in range(passes):
        for mode, emb, coll in variants:
            plan = Plan(mode=mode)
            times, cpu, results = time_calls(lambda q: ragd.retrieve(q, plan, coll), queries)
            runs.setdefault(f"{mode}/{emb}", []).append(times)
            cpu_runs.setdefault(f"{mode}/{emb}", []).append(cpu)
            counts[f"{mode}/{emb}"] = [len(r) for r in results]
        console.print(f"  pass {p + 1}/{passes} done (load average {load_average()})")
    out["latency_ms"] = {name: {**summarize(t), "mean_results": sum(counts[name]) /
                                len(counts[name]),
                                "thread_cpu": summarize(cpu_runs[name])}
                         for name, t in runs.items()}

    # Components of hybrid (embedding excluded), one pass: where the time goes.
    comp: dict[str, list[float]] = {"query_embedding": [], "vector_search": [],
                                    "lexical_search": [], "get_chunks": [], "fuse_rrf": []}
    hits_lex: list[int] = []
    for q in queries:
        t0 = time.perf_counter()
        embedder.embed_query(q)
        t1 = time.perf_counter()
        vhits = store.vector_search(COLLECTION, qvecs[q], 50)
        t2 = time.perf_counter()
        lhits = store.lexical_search(COLLECTION, query_terms(q), 50)
        t3 = time.perf_counter()
        chunks = store.get_chunks(COLLECTION, [h.key for h in vhits] + [h.key for h in lhits])
        t4 = time.perf_counter()
        lists = candidate_lists(q, Plan(mode="hybrid"), excl)
        t5 = time.perf_counter()
        fuse(lists, "rrf", {"k": 60})
        t6 = time.perf_counter()
        comp["query_embedding"].append(t1 - t0)
        comp["vector_search"].append(t2 - t1)
        comp["lexical_search"].append(t3 - t2)
        comp["get_chunks"].append(t4 - t3)
        comp["fuse_rrf"].append(t6 - t5)
        hits_lex.append(len(lhits))
        assert len(chunks) >= len(vhits)
    out["components_ms"] = {k: summarize([v]) for k, v in comp.items()}
    out["lexical_hits_mean"] = sum(hits_lex) / len(hits_lex)

    if profile:
        prof = cProfile.Profile()
        plan = Plan(mode="hybrid")
        prof.enable()
        for q in queries:
            ragd.retrieve(q, plan, excl)
        prof.disable()
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("cumulative")
        stats.print_stats(30)
        buf.write("\n--- by internal time ---\n")
        stats.sort_stats("tottime").print_stats(20)
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        prof_path = RESULTS_DIR / f"search_profile_{size}.txt"
        prof_path.write_text(f"cProfile of {len(queries)} hybrid retrieve() calls, query "
                             f"embedding excluded, {size:,} chunks\n\n" + buf.getvalue())
        out["profile"] = str(prof_path)

    out["rss_after"] = rss_mb()
    store.close()
    del store, excl, incl
    gc.collect()
    return out


# -- main --------------------------------------------------------------------------------------
def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # so that ``finally`` removes a temporary workdir


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _terminate)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000",
                        help="comma-separated chunk counts; default 10000,100000")
    parser.add_argument("--queries", type=int, default=200,
                        help="SciFact test queries to use (0: all 300); default 200")
    parser.add_argument("--passes", type=int, default=3,
                        help="passes over the queries per mode (median of per-pass percentiles)")
    parser.add_argument("--chunks-per-doc", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--workdir", type=Path, default=None,
                        help="where stores are built (reused when they match); default: a "
                             "temporary directory, deleted at the end")
    parser.add_argument("--keep", action="store_true", help="keep a temporary workdir")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile hybrid retrieve at each size into bench/results/")
    parser.add_argument("--vectors", choices=("random", "scifact"), default="random",
                        help="chunk vectors: seeded random units, or SciFact-derived (mixtures "
                             "of pairs of real SciFact chunk embeddings; needs --scifact-store)")
    parser.add_argument("--scifact-store", type=Path, default=None,
                        help="a SciFact store built by `ragd eval beir` (its embeddings)")
    parser.add_argument("--build-only", action="store_true", help="build the stores and stop")
    parser.add_argument("--ef-sweep", default="",
                        help="after the exact/default comparison, recall@10 and latency of the "
                             "HNSW graph at these ef_search values (comma list; 0: the default)")
    parser.add_argument("--name", default="search", help="results file name (without .json)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    machine = machine_info()

    corpus_path = SCIFACT / "corpus.jsonl.gz"
    t0 = time.perf_counter()
    words, probs = scifact_unigrams(corpus_path)
    vocab_s = time.perf_counter() - t0
    base = scifact_vectors(args.scifact_store) if args.vectors == "scifact" else None
    corpus = SyntheticCorpus(words, probs, args.seed, args.chunks_per_doc, MiniLMEmbedder.dims,
                             base)
    console.print(f"vocabulary: {len(words):,} SciFact words ({vocab_s:.1f} s)")

    qs = scifact_test_queries(args.queries)
    queries = [text for _, text in qs]
    embedder = MiniLMEmbedder()
    t0 = time.perf_counter()
    embedder.embed_query(queries[0])
    model_load_s = time.perf_counter() - t0
    qvecs = {q: embedder.embed_query(q) for q in queries}
    console.print(f"{len(queries)} SciFact test queries embedded (model load {model_load_s:.1f} s)")

    temp = args.workdir is None
    work = Path(tempfile.mkdtemp(prefix="ragd-bench-search-")) if temp else args.workdir
    work.mkdir(parents=True, exist_ok=True)
    per_size: dict[str, Any] = {}
    try:
        for size in sizes:
            kind = "" if corpus.kind == "random" else f"-{corpus.kind}"
            path = work / f"synthetic-g{GENERATOR_VERSION}-s{args.seed}-c{args.chunks_per_doc}" \
                          f"{kind}-{size}.sqlite"
            if existing_chunks(path, args.seed, corpus.kind) == size:
                build = {"reused": True, "chunks": size}
                console.print(f"{size:,} chunks: reusing {path}")
            else:
                for p in path.parent.glob(path.name + "*"):
                    p.unlink()
                console.print(f"{size:,} chunks: building {path}")
                t0 = time.perf_counter()
                build = build_store(path, corpus, size)
                build["seconds"] = time.perf_counter() - t0
                console.print(f"  built in {build['seconds']:.0f} s "
                              f"({build['chunks_per_second_written']:.0f} chunks/s written)")
            result = {"build": build, "store_bytes": store_bytes(path)}
            if args.build_only:
                continue
            console.print(f"{size:,} chunks: measuring ({args.passes} passes x "
                          f"{len(queries)} queries x 5 variants)")
            result.update(bench_size(path, size, queries, qvecs, embedder, args.passes,
                                     args.profile, [int(e) for e in args.ef_sweep.split(",")
                                                    if e.strip()]))
            per_size[str(size)] = result
    finally:
        if temp and not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        elif temp:
            console.print(f"kept {work}")

    if args.build_only:
        return 0
    results = {
        "benchmark": "search",
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine,
        "settings": {"sizes": sizes, "queries": len(queries), "passes": args.passes,
                     "chunks_per_doc": args.chunks_per_doc, "seed": args.seed,
                     "plan": {"k": Plan().k, "pool": Plan().pool, "fusion": Plan().fusion},
                     "vocabulary_words": len(words), "embeddings": "seeded random unit vectors",
                     "statistic": f"median over {args.passes} passes of per-pass percentiles",
                     "target": "hybrid p95 <= 25 ms at 100k chunks, query embedding excluded"},
        "model_load_seconds": model_load_s,
        "sizes": per_size,
    }
    path = write_results(args.name, results)
    print_tables(results)
    console.print(f"results: {path}")
    return 0


def print_tables(r: dict[str, Any]) -> None:
    s = r["settings"]
    table = Table(title=f"ragd search latency (ms) — {s['queries']} SciFact test queries, "
                        f"k={s['plan']['k']} pool={s['plan']['pool']}, synthetic chunks — "
                        f"{s['statistic']}")
    for col in ("chunks", "mode", "query embedding", "p50", "p95", "p99", "mean",
                "p50 / p95 thread CPU", "results"):
        table.add_column(col, justify="left" if col in ("mode", "query embedding") else "right")
    for size, res in r["sizes"].items():
        for name, lat in res["latency_ms"].items():
            mode, emb = name.split("/")
            mark = ""
            if name == "hybrid/excluded" and int(size) >= 100_000:
                mark = " ✓" if lat["p95"] <= 25 else " ✗"
            table.add_row(f"{int(size):,}", mode, emb if mode != "lexical" else "n/a",
                          f"{lat['p50']:.2f}", f"{lat['p95']:.2f}{mark}", f"{lat['p99']:.2f}",
                          f"{lat['mean']:.2f}",
                          f"{lat['thread_cpu']['p50']:.2f} / {lat['thread_cpu']['p95']:.2f}",
                          f"{lat['mean_results']:.1f}")
        table.add_section()
    console.print(table)

    t2 = Table(title="components of hybrid (query embedding excluded), one pass, ms; "
                     "store, cache and memory")
    for col in ("chunks", "embed query p50/p95", "vector_search p50/p95",
                "lexical_search p50/p95", "get_chunks p50/p95", "fuse p50", "first vector / lexical "
                "search (cache/index load)", "store file", "RSS now / peak", "build"):
        t2.add_column(col, justify="right")
    for size, res in r["sizes"].items():
        c = res["components_ms"]

        def pp(name: str) -> str:
            return f"{c[name]['p50']:.2f} / {c[name]['p95']:.2f}"
        b = res["build"]
        build = ("reused" if b.get("reused") else
                 f"{b['seconds']:.0f} s, {b['chunks_per_second_written']:.0f} chunks/s")
        rss = res["rss_after"]
        t2.add_row(f"{int(size):,}", pp("query_embedding"), pp("vector_search"),
                   pp("lexical_search"), pp("get_chunks"), f"{c['fuse_rrf']['p50']:.2f}",
                   f"{res['first_vector_search_seconds'] * 1e3:.0f} / "
                   f"{res['first_lexical_search_seconds'] * 1e3:.0f} ms",
                   human_bytes(res["store_bytes"]),
                   f"{rss['rss_mb']:.0f} / {rss['max_rss_mb']:.0f} MiB", build)
    console.print(t2)

    t3 = Table(title="scale: cold start in a fresh process (first open builds and saves the "
                     "index files, reopen maps them) and exact vs default vector search, k=10")
    for col in ("chunks", "first lexical search: first open / reopen", "its peak RSS: first "
                "open / reopen", "first vector search: first open / reopen", "exact p50/p95",
                "default p50/p95", "recall@10", "hybrid p50/p95"):
        t3.add_column(col, justify="right")
    for size, res in r["sizes"].items():
        cold, ea = res.get("cold_start"), res.get("exact_vs_approximate")
        if not cold or not ea:
            continue
        a, b = cold["lexical/first_open"], cold["lexical/reopen"]
        va, vb = cold["vector/first_open"], cold["vector/reopen"]
        hy = res["latency_ms"]["hybrid/excluded"]
        t3.add_row(f"{int(size):,}",
                   f"{a['first_search_seconds']:.2f} / {b['first_search_seconds']:.2f} s",
                   f"{a['after_search']['peak_mb']:.0f} / {b['after_search']['peak_mb']:.0f} MiB",
                   f"{va['first_search_seconds']:.2f} / {vb['first_search_seconds']:.2f} s",
                   f"{ea['exact']['p50']:.2f} / {ea['exact']['p95']:.2f}",
                   f"{ea['approximate']['p50']:.2f} / {ea['approximate']['p95']:.2f}",
                   f"{ea['recall_at_k']:.3f}", f"{hy['p50']:.2f} / {hy['p95']:.2f}")
    console.print(t3)
    m = r["machine"]
    console.print(f"{m['cpu_model']}, {m['cores']} cores, python {m['python']}, numpy "
                  f"{m['numpy']}, onnxruntime {m['onnxruntime']}, sqlite {m['sqlite']}; load "
                  f"average at start {m['load_average_at_start']}. Other work may share the "
                  "machine: percentiles are medians over passes; 'thread CPU' is the calling "
                  "thread's CPU time (excludes BLAS/onnxruntime worker threads).")


if __name__ == "__main__":
    sys.exit(main())
