"""PostgreSQL + pgvector store: parity with SQLite, HNSW recall and latency, ingest, concurrency.

    .venv/bin/python bench/postgres.py                    # everything (a local server is started)
    .venv/bin/python bench/postgres.py --only parity      # parity | ingest | hnsw | concurrent
    RAGD_BENCH_PG_DSN=postgresql://... .venv/bin/python bench/postgres.py   # an existing server

Sections:

- **parity** (SciFact, the real MiniLM embeddings): the corpus is chunked like ``ragd
  ingest`` does and embedded once; the vectors are cached in ``bench/.cache/`` as
  ``.npy`` keyed by the corpus hash, chunk policy and model, and reused. Both stores are
  written through the Store protocol with the same chunks and vectors. For every test
  query (``qrels/test.tsv``): vector top-10 of SQLite (exact numpy) vs Postgres exact
  (``search=exact``: no index) must be equal; recall@10 of HNSW at the default
  ef_search against exact; p50/p95 latency of each, side by side (store call only,
  query embedding excluded).
- **ingest**: chunks/s into Postgres, embedding excluded (cached vectors): the
  per-document path (``upsert_document``, one transaction per document, as the
  pipeline does today) and the bulk path (``upsert_documents``: COPY, one transaction
  per call) in calls of 1,024 and 256 chunks, with and without the HNSW index
  (without it: several rounds, then one index build), and the client's and the local
  server's CPU time per chunk.
- **hnsw**: 100k chunks of seeded random unit vectors (384 dims); search p50/p95 of
  ``vector_search`` (k=10, default ef_search, query embedding excluded), unfiltered and
  with a 1% tag filter, and the index build time.
- **concurrent**: 8 searcher threads + 1 ingester thread on the 100k collection for 60 s
  (``--seconds``): QPS, p50/p95 and the error count (must be 0).

Each prints a rich table; all results go to ``bench/results/postgres.json`` with machine
info and the server's version and settings. No timed assertions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (RESULTS_DIR, SCIFACT, cpu_times, load_average, machine_info, make_console, print_table,  # noqa: E402
                     median, percentile, pgserver, steal_share, write_results)

from ragd.chunking import chunk_document  # noqa: E402
from ragd.ingest.loaders import LoadOptions, iter_documents  # noqa: E402
from ragd.ingest.pipeline import document_hash  # noqa: E402
from ragd.stores import DocumentRecord  # noqa: E402
from ragd.types import Chunk, ChunkPolicy  # noqa: E402

console = make_console()
CACHE = Path(__file__).resolve().parent / ".cache"


# -- SciFact: chunks, cached embeddings, test queries ----------------------------------------
def _file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def scifact_documents(policy: ChunkPolicy, embedder) -> list[tuple[DocumentRecord, list[Chunk]]]:
    """SciFact as ``ragd ingest`` would store it: one record and its chunks per document."""
    out = []
    for doc in iter_documents([SCIFACT / "corpus.jsonl.gz"], LoadOptions()):
        chunks = chunk_document(doc, policy, count_tokens=embedder.count_tokens)
        record = DocumentRecord(doc_id=doc.doc_id, content_hash=document_hash(doc, policy),
                                title=doc.title, source=doc.source, metadata=dict(doc.metadata))
        out.append((record, chunks))
    return out


def scifact_queries() -> list[tuple[str, str]]:
    """(query id, text) of every SciFact test query (ids from qrels/test.tsv), in id order."""
    wanted = set()
    with (SCIFACT / "qrels" / "test.tsv").open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            parts = line.rstrip("\n").split("\t")
            if i == 0 and not parts[0].isdigit():
                continue
            wanted.add(parts[0])
    queries = []
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if str(rec["_id"]) in wanted:
                queries.append((str(rec["_id"]), rec["text"]))
    return sorted(queries, key=lambda q: int(q[0]) if q[0].isdigit() else q[0])


def scifact_data() -> dict[str, Any]:
    """Documents, chunk vectors and query vectors of SciFact, embedded once and cached."""
    from ragd.embedding.onnx import MiniLMEmbedder

    embedder = MiniLMEmbedder()
    policy = ChunkPolicy()
    key = hashlib.sha256(json.dumps([_file_hash(SCIFACT / "corpus.jsonl.gz"),
                                     _file_hash(SCIFACT / "queries.jsonl"), policy.as_dict(),
                                     embedder.name, embedder.dims]).encode()).hexdigest()[:16]
    docs = scifact_documents(policy, embedder)
    queries = scifact_queries()
    texts = [c.search_text for _, chunks in docs for c in chunks]
    chunk_file, query_file = CACHE / f"scifact-chunks-{key}.npy", CACHE / f"scifact-queries-{key}.npy"
    if chunk_file.exists() and query_file.exists():
        vectors, qvectors = np.load(chunk_file), np.load(query_file)
        source = f"cache {chunk_file.name}"
    else:
        CACHE.mkdir(parents=True, exist_ok=True)
        console.print(f"embedding {len(texts)} SciFact chunks and {len(queries)} queries "
                      "with the bundled model (once; cached in bench/.cache/) ...")
        started = time.perf_counter()
        vectors = embedder.embed_documents(texts)
        qvectors = np.stack([embedder.embed_query(q) for _, q in queries])
        np.save(chunk_file, vectors)
        np.save(query_file, qvectors)
        source = f"embedded in {time.perf_counter() - started:.0f} s"
    assert vectors.shape == (len(texts), embedder.dims)
    return {"docs": docs, "vectors": vectors.astype(np.float32), "queries": queries,
            "query_vectors": qvectors.astype(np.float32), "embed_model": embedder.name,
            "dims": embedder.dims, "source": source}


# -- helpers ---------------------------------------------------------------------------------
def _stats(latencies_ms: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(latencies_ms, 50), 3),
            "p95_ms": round(percentile(latencies_ms, 95), 3),
            "p99_ms": round(percentile(latencies_ms, 99), 3), "n": len(latencies_ms)}


def _timed(fn, args_list) -> tuple[list[Any], list[float]]:
    out, lat = [], []
    for args in args_list:
        t = time.perf_counter()
        out.append(fn(*args))
        lat.append((time.perf_counter() - t) * 1000)
    return out, lat


def _server(dsn: str | None):
    """(store URL base, a stop function, server facts)."""
    import psycopg

    stop = lambda: None  # noqa: E731
    if not dsn:
        local = pgserver().start(Path(CACHE / "pgdata"), keep_running=False)
        dsn, stop = local.dsn, local.stop
    with psycopg.connect(dsn) as conn:
        facts = {name: conn.execute("SELECT current_setting(%s)", (name,)).fetchone()[0]
                 for name in ("server_version", "shared_buffers", "maintenance_work_mem",
                              "work_mem", "max_parallel_maintenance_workers", "fsync",
                              "synchronous_commit")}
        facts["pgvector"] = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
    return dsn, stop, facts


def _url(dsn: str, **options: Any) -> str:
    from urllib.parse import urlencode

    return dsn + ("&" if "?" in dsn else "?") + urlencode(options)


def _set_system(dsn: str, name: str, value: str | None) -> None:
    """ALTER SYSTEM SET (or RESET, for None) a server setting and reload the configuration,
    which reaches the sessions already open too."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        if value is None:
            conn.execute(sql.SQL("ALTER SYSTEM RESET {}").format(sql.Identifier(name)))
        else:
            conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(
                sql.Identifier(name), sql.Literal(value)))
        conn.execute("SELECT pg_reload_conf()")


def _fresh(dsn: str, schema: str, **options: Any):
    import psycopg
    from psycopg import sql

    from ragd.stores.postgres import PostgresStore

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    return PostgresStore(_url(dsn, schema=schema, **options))


def _table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    print_table(console, title, columns, rows)


# -- ingest ----------------------------------------------------------------------------------
def _server_cpu_seconds() -> float | None:
    """CPU seconds used so far by the PostgreSQL processes on this machine (Linux /proc),
    or None where that cannot be read. Only meaningful for a local server."""
    import os

    try:
        tick, total = os.sysconf("SC_CLK_TCK"), 0.0
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if stat[stat.index("(") + 1:stat.rindex(")")] in ("postgres", "postmaster"):
                fields = stat[stat.rindex(")") + 2:].split()
                total += (int(fields[11]) + int(fields[12])) / tick
        return total
    except (OSError, ValueError, AttributeError):
        return None


def _batches(items: list[tuple], size: int) -> list[list[tuple]]:
    """Documents grouped into calls of at least ``size`` chunks, in corpus order."""
    out, batch, count = [], [], 0
    for item in items:
        batch.append(item)
        count += len(item[1])
        if count >= size:
            out.append(batch)
            batch, count = [], 0
    return out + ([batch] if batch else [])


def _load(n_chunks: int, fn) -> dict[str, Any]:
    """Run ``fn`` (a whole load) and report its rate, client CPU and server CPU per chunk,
    and the share of the machine's CPU time the hypervisor took meanwhile (steal)."""
    server, machine = _server_cpu_seconds(), cpu_times()
    cpu, t = time.process_time(), time.perf_counter()
    fn()
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    out = {"seconds": round(seconds, 2), "chunks_per_s": round(n_chunks / seconds),
           "client_cpu_us_per_chunk": round(cpu / n_chunks * 1e6, 1),
           "cpu_steal": steal_share(machine, cpu_times())}
    if server is not None:
        out["server_cpu_us_per_chunk"] = round(
            ((_server_cpu_seconds() or 0.0) - server) / n_chunks * 1e6, 1)
    return out


def bench_ingest(dsn: str, data: dict[str, Any], rounds: int = 3) -> dict[str, Any]:
    """chunks/s into Postgres, embedding excluded, on SciFact: the per-document path, and the
    bulk path in calls of 1,024 chunks (the pipeline's ``batch_chunks``) and of 256."""
    docs, vectors = data["docs"], data["vectors"]
    items, offset = [], 0
    for record, chunks in docs:
        items.append((record, chunks, vectors[offset:offset + len(chunks)]))
        offset += len(chunks)
    n = offset
    from ragd.stores.postgres import PostgresStore

    store = _fresh(dsn, "bench_ingest")
    fast = PostgresStore(_url(dsn, schema="bench_ingest", options="-c synchronous_commit=off"))
    out: dict[str, Any] = {"documents": len(items), "chunks": n, "rounds": rounds}

    def collection(name: str, target: PostgresStore = store, indexed: bool = True) -> str:
        target.create_collection(name, data["embed_model"], data["dims"], {})
        if not indexed:
            target.drop_vector_index(name)
        return name

    def bulk(target: PostgresStore, name: str, size: int):
        calls = _batches(items, size)
        return lambda: [target.upsert_documents(name, call) for call in calls]

    try:
        # 1. the pipeline's path: upsert_document, one transaction per document, HNSW
        #    maintained row by row; then the same with synchronous_commit off for the
        #    session (still atomic per document; a crash may lose the last commits).
        name = collection("perdoc")
        out["per_document"] = _load(n, lambda: [store.upsert_document(name, r, c, v)
                                                for r, c, v in items])
        name = collection("perdoc_async", fast)
        out["per_document_async_commit"] = _load(n, lambda: [fast.upsert_document(name, r, c, v)
                                                             for r, c, v in items])
        # 2. the bulk path with the HNSW index maintained during the load
        out["bulk_indexed"] = _load(n, bulk(store, collection("bulk"), 1024))
        # 3. the bulk path into collections without the HNSW index (built once at the end),
        #    several rounds (the machine's speed varies from minute to minute)
        runs: dict[str, list[dict[str, Any]]] = {"bulk_1024": [], "bulk_256": [],
                                                 "bulk_1024_async_commit": []}
        for round_ in range(rounds):
            runs["bulk_1024"].append(_load(n, bulk(
                store, collection(f"deferred{round_}", indexed=False), 1024)))
            runs["bulk_256"].append(_load(n, bulk(
                store, collection(f"deferred256_{round_}", indexed=False), 256)))
            runs["bulk_1024_async_commit"].append(_load(n, bulk(
                fast, collection(f"deferred_async{round_}", fast, indexed=False), 1024)))
        out.update(runs)
        t = time.perf_counter()
        store.build_vector_index("deferred0")
        build = time.perf_counter() - t
        best = max(runs["bulk_1024"], key=lambda r: r["chunks_per_s"])
        out["hnsw_build_after_load"] = {
            "seconds": round(build, 2),
            "chunks_per_s_including_build": round(n / (best["seconds"] + build))}
    finally:
        fast.close()
        store.close()

    def rates(key: str) -> str:
        return " / ".join(f"{r['chunks_per_s']:,}" for r in out[key])

    def steal(key: str) -> str:
        rows = out[key] if isinstance(out[key], list) else [out[key]]
        shares = [r["cpu_steal"] for r in rows if r.get("cpu_steal") is not None]
        return " / ".join(f"{100 * x:.0f}%" for x in shares) or "–"

    def cpu(key: str) -> str:
        rows = out[key] if isinstance(out[key], list) else [out[key]]
        client = median([r["client_cpu_us_per_chunk"] for r in rows])
        server = [r["server_cpu_us_per_chunk"] for r in rows if "server_cpu_us_per_chunk" in r]
        return f"{client:.0f} / {median(server):.0f}" if server else f"{client:.0f} / –"

    _table("Postgres ingest, SciFact, embedding excluded (goal ≥ 5,000 chunks/s)",
           ["path", "chunks/s", "CPU µs/chunk client / server", "CPU steal"],
           [["upsert_document (1 txn/doc, HNSW maintained)",
             f"{out['per_document']['chunks_per_s']:,}", cpu("per_document"),
             steal("per_document")],
            ["upsert_document, synchronous_commit=off",
             f"{out['per_document_async_commit']['chunks_per_s']:,}",
             cpu("per_document_async_commit"), steal("per_document_async_commit")],
            ["upsert_documents, 1,024-chunk calls, HNSW maintained",
             f"{out['bulk_indexed']['chunks_per_s']:,}", cpu("bulk_indexed"),
             steal("bulk_indexed")],
            ["upsert_documents, 1,024-chunk calls, no index (rounds)", rates("bulk_1024"),
             cpu("bulk_1024"), steal("bulk_1024")],
            ["upsert_documents, 256-chunk calls, no index (rounds)", rates("bulk_256"),
             cpu("bulk_256"), steal("bulk_256")],
            ["upsert_documents, 1,024, no index, synchronous_commit=off",
             rates("bulk_1024_async_commit"), cpu("bulk_1024_async_commit"),
             steal("bulk_1024_async_commit")],
            ["  + one HNSW build after the best 1,024 load",
             f"{out['hnsw_build_after_load']['chunks_per_s_including_build']:,}",
             f"build {out['hnsw_build_after_load']['seconds']} s", ""]])
    return out


# -- parity ----------------------------------------------------------------------------------
def bench_parity(dsn: str, data: dict[str, Any], workdir: Path, passes: int) -> dict[str, Any]:
    from ragd.stores import SQLiteStore

    docs, vectors, qv = data["docs"], data["vectors"], data["query_vectors"]
    sqlite = SQLiteStore(workdir / "parity.sqlite")
    sqlite.create_collection("scifact", data["embed_model"], data["dims"], {})
    offset = 0
    for record, chunks in docs:
        sqlite.upsert_document("scifact", record, chunks, vectors[offset:offset + len(chunks)])
        offset += len(chunks)
    from ragd.stores.postgres import PostgresStore

    pg = PostgresStore(_url(dsn, schema="bench_ingest"))
    coll = "bulk"
    k = 10
    queries = [(q,) for q in qv]
    sqlite.vector_search("scifact", qv[0], k)  # loads the matrix cache
    lite, _ = _timed(lambda q: sqlite.vector_search("scifact", q, k), queries)
    exact, _ = _timed(lambda q: pg.vector_search(coll, q, k, exact=True), queries)
    equal = sum([h.key for h in a] == [h.key for h in b] for a, b in zip(lite, exact))
    ties = 0
    for a, b in zip(lite, exact):
        if [h.key for h in a] != [h.key for h in b]:
            sa = {h.key: h.score for h in a}
            if all(abs(sa.get(h.key, -9) - h.score) < 1e-6 or
                   abs(a[-1].score - h.score) < 1e-6 for h in b):
                ties += 1
    recall = {}
    for ef in (None, 64, 100, 200):
        got, _ = _timed(lambda q: pg.vector_search(coll, q, k, ef_search=ef), queries)
        recall[str(ef or pg.options.ef_search)] = round(float(np.mean(
            [len({h.key for h in g} & {h.key for h in e}) / max(len(e), 1)
             for g, e in zip(got, exact)])), 4)
    lat: dict[str, list[list[float]]] = {"sqlite": [], "pg_exact": [], "pg_hnsw": [],
                                        "sqlite_lexical": [], "pg_lexical": [],
                                        "pg_lexical_ts_rank": []}
    pg_plain = PostgresStore(_url(dsn, schema="bench_ingest", lexical_rank="ts_rank"))
    from ragd.text import query_terms

    terms = [(query_terms(text),) for _, text in data["queries"]]
    for _ in range(passes):
        lat["sqlite"].append(_timed(lambda q: sqlite.vector_search("scifact", q, k), queries)[1])
        lat["pg_exact"].append(_timed(lambda q: pg.vector_search(coll, q, k, exact=True),
                                      queries)[1])
        lat["pg_hnsw"].append(_timed(lambda q: pg.vector_search(coll, q, k), queries)[1])
        lat["sqlite_lexical"].append(_timed(lambda t: sqlite.lexical_search("scifact", t, k),
                                            terms)[1])
        lat["pg_lexical"].append(_timed(lambda t: pg.lexical_search(coll, t, k), terms)[1])
        lat["pg_lexical_ts_rank"].append(_timed(lambda t: pg_plain.lexical_search(coll, t, k),
                                                terms)[1])
    summary = {name: {"p50_ms": round(median([percentile(p, 50) for p in runs]), 3),
                      "p95_ms": round(median([percentile(p, 95) for p in runs]), 3)}
               for name, runs in lat.items()}
    sqlite.close()
    pg.close()
    pg_plain.close()
    out = {"queries": len(queries), "k": k, "chunks": int(vectors.shape[0]),
           "top10_equal_sqlite_vs_pg_exact": equal, "differing_only_by_float_near_ties": ties,
           "hnsw_recall_at_10_vs_exact": recall, "default_ef_search": pg.options.ef_search,
           "latency": summary, "passes": passes}
    _table(f"SciFact parity: vector top-{k}, {len(queries)} test queries, "
           f"{vectors.shape[0]} chunks", ["check", "value"],
           [["top-10 SQLite == Postgres exact", f"{equal}/{len(queries)}"],
            ["… differing only within 1e-6 ties", ties]]
           + [[f"HNSW recall@10 vs exact, ef_search={ef}", r] for ef, r in recall.items()])
    _table("Query latency (store call only, query embedding excluded; median of passes)",
           ["search", "p50 ms", "p95 ms"],
           [[n, v["p50_ms"], v["p95_ms"]] for n, v in summary.items()])
    return out


# -- HNSW at 100k and concurrency --------------------------------------------------------------
def _random_units(rng: np.random.Generator, n: int, dims: int) -> np.ndarray:
    x = rng.normal(size=(n, dims)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _synthetic_items(vectors: np.ndarray, start: int = 0) -> list[tuple]:
    from ragd.types import Chunk

    items = []
    for i, v in enumerate(vectors, start=start):
        doc = f"r{i:07d}"
        items.append((DocumentRecord(doc, "h", title=f"doc {i}"),
                      [Chunk(doc_id=doc, chunk_index=0, text=f"synthetic chunk number {i}",
                             tags=("rare",) if i % 100 == 0 else ("common",),
                             metadata={"bucket": i % 100})], v[None, :]))
    return items


def _vectors(kind: str, size: int, dims: int, n_queries: int,
             data: dict[str, Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """``size`` chunk vectors and ``n_queries`` query vectors.

    ``random``: seeded uniform unit vectors, the worst case for HNSW (no neighbourhood
    structure: every pair is nearly orthogonal). ``scifact``: the real SciFact chunk
    embeddings, then mixtures 0.6·a + 0.4·b (+ small noise) of random pairs of them,
    normalised, up to ``size``: new points in the same topic space; queries are the real
    SciFact test queries, then slightly perturbed copies of them.
    """
    rng = np.random.default_rng(20240611)
    if kind == "random" or data is None:
        return _random_units(rng, size, dims), _random_units(rng, n_queries, dims)
    base, queries = data["vectors"], data["query_vectors"]
    n = min(size, len(base))
    mix = [base[:n]]
    if size > n:
        i = rng.integers(0, len(base), size - n)
        j = rng.integers(0, len(base), size - n)
        extra = 0.6 * base[i] + 0.4 * base[j] + 0.01 * rng.normal(size=(size - n, dims))
        mix.append(extra.astype(np.float32))
    vectors = np.concatenate(mix)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    reps = -(-n_queries // len(queries))
    q = np.concatenate([queries] + [queries + 0.01 * rng.normal(size=queries.shape)
                                    for _ in range(reps - 1)])[:n_queries].astype(np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return vectors.astype(np.float32), q


def bench_hnsw(dsn: str, size: int, dims: int, n_queries: int, kind: str = "random",
               data: dict[str, Any] | None = None) -> dict[str, Any]:
    from ragd.stores.postgres import PgOptions
    from ragd.types import Filters

    vectors, query_vectors = _vectors(kind, size, dims, n_queries, data)
    store = _fresh(dsn, "bench_hnsw", pool_max=12)
    store.create_collection("r", "random", dims, {})
    store.drop_vector_index("r")
    t = time.perf_counter()
    for start in range(0, size, 5000):
        store.upsert_documents("r", _synthetic_items(vectors[start:start + 5000], start))
    load = time.perf_counter() - t
    t = time.perf_counter()
    store.build_vector_index("r")
    build = time.perf_counter() - t
    queries = [(q,) for q in query_vectors]
    _CONCURRENT_QUERIES["q"] = query_vectors
    for q in queries[:20]:
        store.vector_search("r", q[0], 10)  # warm the buffer cache
    out: dict[str, Any] = {"vectors": kind, "chunks": size, "dims": dims,
                           "ef_search": PgOptions().ef_search, "load_seconds": round(load, 1),
                           "load_chunks_per_s": round(size / load),
                           "index_build_seconds": round(build, 1)}
    rows = []
    rare = Filters(tags_any=("rare",))
    for name, fn in (("unfiltered", lambda q: store.vector_search("r", q, 10)),
                     ("1% tag filter", lambda q: store.vector_search("r", q, 10, rare)),
                     ("1% filter, HNSW forced", lambda q: store.vector_search(
                         "r", q, 10, rare, exact=False))):
        got, lat = _timed(fn, queries)
        short = sum(len(g) < 10 for g in got)
        out[name] = {**_stats(lat), "short_results": short}
        rows.append([name, out[name]["p50_ms"], out[name]["p95_ms"], short])
    sample = queries[:50]
    approx = [store.vector_search("r", q, 10) for (q,) in sample]
    exact = [store.vector_search("r", q, 10, exact=True) for (q,) in sample]
    out["recall_at_10_vs_exact"] = round(float(np.mean(
        [len({h.key for h in a} & {h.key for h in e}) / 10 for a, e in zip(approx, exact)])), 4)
    exact_rare = [store.vector_search("r", q, 10, rare, exact=True) for (q,) in sample]
    store.close()
    from ragd.stores.postgres import PostgresStore

    for mode in ("strict_order", "relaxed_order"):
        other = PostgresStore(_url(dsn, schema="bench_hnsw", iterative_scan=mode))
        got, lat = _timed(lambda q: other.vector_search("r", q, 10, rare, exact=False), sample)
        other.close()
        out[f"1% filter, HNSW forced, {mode}"] = {
            **_stats(lat), "recall_at_10_vs_exact": round(float(np.mean(
                [len({h.key for h in a} & {h.key for h in e}) / 10
                 for a, e in zip(got, exact_rare)])), 4)}
        rows.append([f"1% filter, HNSW forced, {mode} (recall "
                     f"{out[f'1% filter, HNSW forced, {mode}']['recall_at_10_vs_exact']})",
                     out[f"1% filter, HNSW forced, {mode}"]["p50_ms"],
                     out[f"1% filter, HNSW forced, {mode}"]["p95_ms"],
                     sum(len(g) < 10 for g in got)])
    _table(f"HNSW search at {size:,} chunks ({dims} dims, {kind} vectors, k=10; "
           f"goal p95 ≤ 5 ms)", ["search", "p50 ms", "p95 ms", "short results"], rows)
    console.print(f"load {load:.1f} s ({size / load:,.0f} chunks/s without index), "
                  f"HNSW build {build:.1f} s, recall@10 vs exact "
                  f"{out['recall_at_10_vs_exact']}")
    return out


_CONCURRENT_QUERIES: dict[str, np.ndarray] = {}


def bench_concurrent(dsn: str, dims: int, seconds: float, searchers: int,
                     kind: str = "random") -> dict[str, Any]:
    """``searchers`` threads searching + 1 thread ingesting, on the 100k collection."""
    import threading

    from ragd.stores.postgres import PostgresStore
    from ragd.types import Filters

    store = PostgresStore(_url(dsn, schema="bench_hnsw", pool_max=searchers + 4))
    queries = _CONCURRENT_QUERIES.get("q", _random_units(np.random.default_rng(1), 100, dims))
    lat: list[list[float]] = [[] for _ in range(searchers)]
    errors: list[str] = []
    written = [0]
    stop = threading.Event()

    def search(i: int) -> None:
        rng = np.random.default_rng(i)
        rare = Filters(tags_any=("rare",))
        while not stop.is_set():
            q = _random_units(rng, 1, dims)[0] if kind == "random" else \
                queries[int(rng.integers(0, len(queries)))]
            t = time.perf_counter()
            try:
                hits = store.vector_search("r", q, 10, rare if rng.random() < 0.2 else Filters())
                if len(hits) != 10:
                    errors.append(f"short result: {len(hits)}")
            except Exception as exc:  # noqa: BLE001 - counted and reported
                errors.append(repr(exc))
            lat[i].append((time.perf_counter() - t) * 1000)

    def ingest() -> None:
        rng = np.random.default_rng(99)
        n = 0
        while not stop.is_set():
            try:
                record, chunks, vec = _synthetic_items(_random_units(rng, 1, dims),
                                                       10_000_000 + n)[0]
                store.upsert_document("r", record, chunks, vec)
                n += 1
            except Exception as exc:  # noqa: BLE001
                errors.append(repr(exc))
        written[0] = n

    threads = [threading.Thread(target=search, args=(i,)) for i in range(searchers)]
    threads.append(threading.Thread(target=ingest))
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    store.close()
    all_lat = [x for per in lat for x in per]
    out = {"seconds": round(elapsed, 1), "searchers": searchers, "ingesters": 1,
           "searches": len(all_lat), "qps": round(len(all_lat) / elapsed, 1),
           **_stats(all_lat), "documents_ingested": written[0],
           "ingest_docs_per_s": round(written[0] / elapsed, 1), "errors": len(errors),
           "first_errors": errors[:5]}
    _table(f"{searchers} searchers + 1 ingester for {elapsed:.0f} s ({kind} vectors, 20% of "
           "searches filtered)",
           ["searches", "QPS", "p50 ms", "p95 ms", "docs ingested", "errors"],
           [[out["searches"], out["qps"], out["p50_ms"], out["p95_ms"], written[0],
             len(errors)]])
    return out


def main(argv: list[str] | None = None) -> int:
    import os
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["ingest", "parity", "hnsw", "concurrent"],
                        action="append")
    parser.add_argument("--size", type=int, default=100_000,
                        help="chunks of the hnsw section (results of other sizes are kept "
                             "under hnsw_<vectors>_<size>)")
    parser.add_argument("--maintenance-work-mem", default=None, metavar="SIZE",
                        help="ALTER SYSTEM maintenance_work_mem for the run (e.g. 3GB, so a "
                             "1M-vector HNSW graph fits while it is built); reset afterwards")
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--searchers", type=int, default=8)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--vectors", choices=["scifact", "random"], default="scifact",
                        help="100k section: SciFact-derived vectors (default) or uniform random")
    args = parser.parse_args(argv)
    only = set(args.only or ["ingest", "parity", "hnsw", "concurrent"])
    dsn, stop, facts = _server(os.environ.get("RAGD_BENCH_PG_DSN"))
    results: dict[str, Any] = {}
    previous = RESULTS_DIR / "postgres.json"
    if args.only and previous.exists():  # a partial run keeps the other sections' results
        results = {k: v for k, v in json.loads(previous.read_text("utf-8")).items()
                   if k not in ("server", "machine")}
    results.update(server=facts, machine=machine_info())

    def section(name: str, fn, *fn_args) -> None:
        """Run one section; its result records when and under what machine load."""
        started = load_average()
        results[name] = {**fn(*fn_args), "date": datetime.now(timezone.utc).isoformat(
            timespec="seconds"), "load_average": {"start": started, "end": load_average()}}
    try:
        data = None
        if only & {"ingest", "parity"} or args.vectors == "scifact":
            data = scifact_data()
            console.print(f"SciFact: {len(data['docs'])} documents, {data['vectors'].shape[0]} "
                          f"chunks, {len(data['queries'])} test queries ({data['source']})")
        if only & {"ingest", "parity"}:
            section("ingest", bench_ingest, dsn, data)
        if "parity" in only:
            with tempfile.TemporaryDirectory() as tmp:
                section("parity", bench_parity, dsn, data, Path(tmp), args.passes)
        if args.maintenance_work_mem:
            _set_system(dsn, "maintenance_work_mem", args.maintenance_work_mem)
        if "hnsw" in only or "concurrent" in only:
            suffix = "" if args.size == 100_000 else f"_{args.size}"
            section(f"hnsw_{args.vectors}{suffix}", bench_hnsw, dsn, args.size, args.dims,
                    args.queries, args.vectors, data)
        if "concurrent" in only:
            section(f"concurrent_{args.vectors}", bench_concurrent, dsn, args.dims,
                    args.seconds, args.searchers, args.vectors)
    finally:
        if args.maintenance_work_mem:
            _set_system(dsn, "maintenance_work_mem", None)
        stop()
    path = write_results("postgres", results)
    console.print(f"results: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
