"""The Postgres bulk write path (issue 18 point 2): pg_copy's hand-encoded binary COPY vs
psycopg's own ``copy.set_types`` + ``write_row`` with pgvector's and the tsvector dumpers.

Same chunks (384-dim vectors, text, tags, metadata, tsvector), same server (a throwaway
local pgserver, fsync off), the chunk table with its HNSW index (as ``ragd ingest`` writes)
and without it (``--no-index``: a bulk load before one index build); each path three
times, alternating; the md5 of the stored rows shows both store the same thing.

    .venv/bin/python bench/pg_write_paths.py [N] [--no-index]

It needs ``ragd.stores.pg_copy``, removed once this measured both paths alike: run it at
commit 0289008 (results: ``bench/results/pg_write_paths*.json``).
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import pgserver, write_results  # noqa: E402
from psycopg import sql  # noqa: E402
from ragd.stores import DocumentRecord  # noqa: E402
from ragd.stores import pg_copy, postgres_sql as Q  # noqa: E402
from ragd.stores.postgres import PostgresStore  # noqa: E402
from ragd.types import Chunk  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
N = int(args[0]) if args else 4000
INDEX = "--no-index" not in sys.argv
rng = np.random.default_rng(1)
chunks = [Chunk(doc_id=f"d{i // 20}", chunk_index=i % 20,
                text=f"chunk {i} " + "export licence rules for controlled items " * 12,
                tags=("ear",), metadata={"n": i}, section_id="744.1", page=3, tokens=90)
          for i in range(N)]
vectors = rng.random((N, 384), dtype=np.float32)
local = pgserver().start(fast_unsafe=True)
try:
    store = PostgresStore(local.dsn)
    store.create_collection("c", "m", 384, {})
    if not INDEX:
        store.drop_vector_index("c")
    coll = store._coll("c")
    t = Q.chunk_table(coll.cid)
    cols = sql.SQL(", ").join(map(sql.Identifier, Q.WRITE_COLUMNS))
    copy_bin = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(t, cols)
    types = ["int4", "text", "int4", "text", "text", "text", "text", "text", "text", "text[]",
             "jsonb", "int4", "int4", "int4", "int4", "vector", "tsvector"]
    W = store._writes if hasattr(store, "_writes") else store
    records = [DocumentRecord(f"d{i}", "h") for i in range(N // 20 + 1)]
    with store._conn() as conn:
        conn.execute(W._UPSERT_DOCS, (coll.cid, pg_copy.documents_json(records, "2026-01-01")))
    results = {}
    for trial in range(3):
        for name in ("pg_copy", "set_types"):
            with store._conn() as conn:
                conn.execute(sql.SQL("TRUNCATE {}").format(t))
            started = time.perf_counter()
            with store._conn() as conn, conn.cursor() as cur:
                if name == "pg_copy":
                    data = (pg_copy.SIGNATURE + pg_copy.chunk_rows(
                        coll.cid, chunks, vectors, W._lexical(chunks)) + pg_copy.TRAILER)
                    with cur.copy(copy_bin) as out:
                        out.write(data)
                else:
                    rows = W._chunk_rows(coll.cid, chunks, list(vectors))
                    with cur.copy(copy_bin) as out:
                        out.set_types(types)
                        for row in rows:
                            out.write_row(row)
            elapsed = time.perf_counter() - started
            with store._conn() as conn:
                n = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(t)).fetchone()[0]
                digest = conn.execute(sql.SQL(
                    "SELECT md5(string_agg(doc_id || chunk_index || text || tags::text || "
                    "metadata::text || embedding::text || tsv::text, '|' ORDER BY doc_id, "
                    "chunk_index)) FROM {}").format(t)).fetchone()[0]
            results.setdefault(name, []).append(elapsed)
            print(f"{name:10s} trial {trial}: {N} chunks in {elapsed:.3f} s = "
                  f"{elapsed / N * 1e6:.1f} us/chunk, rows {n}, md5 {digest[:12]}")
    best = {name: round(min(times) / N * 1e6, 1) for name, times in results.items()}
    for name, us in best.items():
        print(f"{name:10s} best {us} us/chunk")
    write_results(f"pg_write_paths{'' if INDEX else '_no_index'}",
                  {"chunks": N, "hnsw_index": INDEX, "best_us_per_chunk": best,
                   "seconds": {k: [round(x, 3) for x in v] for k, v in results.items()}})
    store.close()
finally:
    local.stop()
