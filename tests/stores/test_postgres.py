"""What only the PostgreSQL store has: URLs and options, migrations, the HNSW path, bulk writes,
concurrency, and ``postgresql://`` wherever a store is named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from helpers import drop_pg_schema, with_store_options
from ragd.errors import StoreError, UsageError
from ragd.stores import DocumentRecord, open_store
from ragd.types import Chunk, Filters, index_text

psycopg = pytest.importorskip("psycopg")
from ragd.stores.postgres import (PostgresStore, SCHEMA_VERSION, init_store,  # noqa: E402
                                  parse_store_url)


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def chunk(doc_id: str, text: str, i: int = 0, **kw) -> Chunk:
    return Chunk(doc_id=doc_id, chunk_index=i, text=text, **kw)


# -- URLs ------------------------------------------------------------------------------------
def test_url_options_are_stripped_and_the_password_hidden():
    conninfo, opts, shown = parse_store_url(
        "postgresql://u:s3cret@db.example:5433/rag?sslmode=require&ef_search=100&hnsw_m=32"
        "&schema=tenant_a&search=exact")
    assert conninfo == "postgresql://u:s3cret@db.example:5433/rag?sslmode=require"
    assert (opts.ef_search, opts.hnsw_m, opts.schema, opts.search) == (100, 32, "tenant_a",
                                                                       "exact")
    assert "s3cret" not in shown and "***" in shown
    socket = parse_store_url("postgres://postgres@/ragd?host=/tmp/pg%20dir&pool_max=3")
    assert socket[0] == "postgres://postgres@/ragd?host=/tmp/pg%20dir"
    assert socket[1].pool_max == 3


@pytest.mark.parametrize("query, message", [
    ("ef_search=many", "integer"),
    ("schema=Robert'); DROP TABLE x", "schema"),
    ("search=fast", "search"),
    ("iterative_scan=sometimes", "iterative_scan"),
    ("hnsw_m=0", "hnsw_m"),
    ("lexical_rank=bm42", "lexical_rank"),
])
def test_bad_url_options_are_usage_errors(query, message):
    with pytest.raises(UsageError) as exc:
        parse_store_url(f"postgresql://localhost/db?{query}")
    assert message in str(exc.value)


def test_unreachable_server_is_a_store_error_naming_it(tmp_path):
    with pytest.raises(StoreError) as exc:
        open_store(f"postgresql://nobody@/nodb?host={tmp_path}&connect_timeout=2")
    assert "cannot open store postgresql://" in str(exc.value)


# -- migrations ------------------------------------------------------------------------------
def test_migrations_are_versioned_idempotent_and_race_safe(pg_dsn):
    schema = "t_migrate_race"
    drop_pg_schema(pg_dsn, schema)
    url = with_store_options(pg_dsn, schema=schema)
    errors: list[BaseException] = []

    def init() -> None:
        try:
            init_store(url)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=init) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        line = init_store(url)
        assert f"version {SCHEMA_VERSION}" in line and "pgvector" in line
        with psycopg.connect(pg_dsn) as conn:
            rows = conn.execute(f"SELECT version, name FROM {schema}.schema_version "
                                "ORDER BY version").fetchall()
        assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
    finally:
        drop_pg_schema(pg_dsn, schema)


def test_a_newer_schema_is_refused(pg_location, pg_dsn):
    PostgresStore(pg_location).close()
    schema = parse_store_url(pg_location)[1].schema
    with psycopg.connect(pg_dsn) as conn:
        conn.execute(f"INSERT INTO {schema}.schema_version (version, name) VALUES (999, 'x')")
    with pytest.raises(StoreError) as exc:
        PostgresStore(pg_location)
    assert "999" in str(exc.value) and "upgrade ragd" in str(exc.value)


def test_both_schemes_open_the_same_store(pg_location):
    a = open_store(pg_location)
    a.create_collection("c", "m", 3, {})
    b = open_store("postgres://" + pg_location.split("://", 1)[1])
    try:
        assert isinstance(b, PostgresStore)
        assert [c.name for c in b.list_collections()] == ["c"]
    finally:
        a.close()
        b.close()


# -- the HNSW path ---------------------------------------------------------------------------
def _fill(store, n: int, dims: int = 8, rare_every: int = 100, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store.create_collection("c", "m", dims, {})
    store.drop_vector_index("c")  # a bulk load then one build is much faster
    items = [(DocumentRecord(f"d{i:05d}", "h"),
              [chunk(f"d{i:05d}", f"text {i}", tags=("rare",) if i % rare_every == 0
                     else ("common",), metadata={"bucket": i % rare_every})],
              vectors[i:i + 1]) for i in range(n)]
    assert store.upsert_documents("c", items) == n
    store.build_vector_index("c")
    return vectors


def _exact(vectors: np.ndarray, q: np.ndarray, k: int, allowed=None) -> list[str]:
    scores = vectors @ q
    order = sorted(range(len(vectors)), key=lambda i: (-scores[i], i))
    return [f"d{i:05d}" for i in order if allowed is None or allowed(i)][:k]


@pytest.fixture
def big(pg_location):
    """3,000 chunks, a filter matching 1% of them, the index forced (seq scans off) and the
    exact shortcut for selective filters disabled, so the HNSW path is what is tested."""
    url = with_store_options(pg_location, exact_below=0,
                             options="-c enable_seqscan=off -c enable_bitmapscan=off")
    store = PostgresStore(url)
    vectors = _fill(store, 3000)
    yield store, vectors
    store.close()


def test_the_index_serves_vector_search(big):
    store, vectors = big
    with store._conn() as conn:
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT doc_id FROM chunks_1 c ORDER BY c.embedding <=> %s LIMIT 5",
            (vectors[0],)))
    assert "chunks_1_hnsw" in plan
    hits = store.vector_search("c", vectors[7], 10)
    assert hits[0].doc_id == "d00007" and abs(hits[0].score - 1.0) < 1e-5
    recall = np.mean([len(set(h.doc_id for h in store.vector_search("c", vectors[i], 10))
                          & set(_exact(vectors, vectors[i], 10))) / 10 for i in range(0, 300, 10)])
    assert recall >= 0.9


@pytest.mark.parametrize("mode", ["strict_order", "relaxed_order", "off"])
def test_a_one_percent_filter_still_returns_k(pg_location, mode):
    url = with_store_options(pg_location, exact_below=0, iterative_scan=mode, ef_search=10,
                             options="-c enable_seqscan=off -c enable_bitmapscan=off")
    store = PostgresStore(url)
    try:
        vectors = _fill(store, 3000)
        q = unit(*np.arange(1, 9))
        for filters, allowed in ((Filters(tags_any=("rare",)), lambda i: i % 100 == 0),
                                 (Filters(metadata={"bucket": 42}), lambda i: i % 100 == 42)):
            hits = store.vector_search("c", q, 10, filters)
            assert len(hits) == 10, mode
            assert {h.doc_id for h in hits} <= {f"d{i:05d}" for i in range(3000) if allowed(i)}
            scores = [h.score for h in hits]
            assert scores == sorted(scores, reverse=True)
        exact = store.vector_search("c", q, 10, Filters(tags_any=("rare",)), exact=True)
        assert [h.doc_id for h in exact] == _exact(vectors, q, 10, lambda i: i % 100 == 0)
    finally:
        store.close()


def test_exact_option_equals_numpy_and_ef_search_is_per_query(big):
    store, vectors = big
    q = unit(*np.linspace(-1, 1, 8))
    assert [h.doc_id for h in store.vector_search("c", q, 20, exact=True)] \
        == _exact(vectors, q, 20)
    wide = store.vector_search("c", q, 20, ef_search=400)
    assert [h.doc_id for h in wide] == _exact(vectors, q, 20)


def test_dropping_and_rebuilding_the_index_keeps_answers(big):
    store, vectors = big
    q = vectors[11]
    before = [h.doc_id for h in store.vector_search("c", q, 5)]
    store.drop_vector_index("c")
    assert [h.doc_id for h in store.vector_search("c", q, 5)] == before[:5]
    store.build_vector_index("c")
    assert store.vector_search("c", q, 5)[0].doc_id == "d00011"
    assert store.stats("c")["vector_index"]["kind"] == "hnsw"


def test_collection_config_sets_hnsw_parameters(pg_location):
    store = PostgresStore(pg_location)
    try:
        store.create_collection("c", "m", 4, {"hnsw_m": 8, "hnsw_ef_construction": 32})
        with store._conn() as conn:
            ddl = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = "
                               "'chunks_1_hnsw'").fetchone()[0]
        assert "m='8'" in ddl and "ef_construction='32'" in ddl
    finally:
        store.close()


def test_large_dimensions_use_halfvec_or_exact_search(pg_location):
    store = PostgresStore(pg_location)
    try:
        for name, dims, kind in (("wide", 3072, "hnsw_halfvec"), ("huge", 4100, "none")):
            store.create_collection(name, "m", dims, {})
            rng = np.random.default_rng(dims)
            vectors = rng.normal(size=(3, dims)).astype(np.float32)
            for i in range(3):
                store.upsert_document(name, DocumentRecord(f"d{i}", "h"),
                                      [chunk(f"d{i}", f"t{i}")], vectors[i:i + 1])
            assert store.stats(name)["vector_index"]["kind"] == kind
            assert store.vector_search(name, vectors[2], 1)[0].doc_id == "d2"
            # a chunk's cosine read by key is the search's own (half precision on halfvec)
            q = rng.normal(size=dims).astype(np.float32)
            scored = {h.key: h.score for h in store.vector_search(name, q, 3)}
            with store.snapshot(name) as snap:
                got = snap.cosines(q, list(scored))
            assert got.keys() == scored.keys()
            assert all(abs(got[k] - scored[k]) < 1e-6 for k in scored), (got, scored)
    finally:
        store.close()


# -- writes ----------------------------------------------------------------------------------
def test_bulk_writes_from_many_threads_each_land_whole(pg_location):
    """Bulk writes load in several COPYs fed by the store's encoder threads; concurrent
    calls share them, and each call's documents land whole, with their own vectors."""
    store = PostgresStore(with_store_options(pg_location, pool_max=6))
    errors: list[BaseException] = []
    try:
        store.create_collection("c", "m", 3, {})

        def writer(w: int) -> None:
            try:
                for round_ in range(3):
                    items = [(DocumentRecord(f"w{w}-d{d}", f"h{round_}"),
                              [chunk(f"w{w}-d{d}", f"writer {w} round {round_} part {i}", i)
                               for i in range(40)],
                              np.tile(unit(1 + w, d, round_), (40, 1)))
                             for d in range(5)]
                    assert store.upsert_documents("c", items) == 200
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        stored = list(store.iter_chunks("c"))
        assert len(stored) == 4 * 5 * 40
        for c, v in stored:
            w, d = (int(x[1:]) for x in c.doc_id.split("-"))
            assert c.text.startswith(f"writer {w} round 2 part ")
            assert np.allclose(v, unit(1 + w, d, 2))
        assert {d.version for d in store.list_documents("c")} == {3}
    finally:
        store.close()


@pytest.mark.parametrize("bad, message", [
    (dict(text="nul\x00byte"), "NUL"),
    (dict(vector=np.array([[np.nan, 0, 1]], np.float32)), "NaN"),
])
def test_values_postgres_cannot_hold_are_refused_clearly(pg_location, bad, message):
    store = PostgresStore(pg_location)
    try:
        store.create_collection("c", "m", 3, {})
        with pytest.raises(UsageError) as exc:
            store.upsert_document("c", DocumentRecord("d", "h"),
                                  [chunk("d", bad.get("text", "fine"))],
                                  bad.get("vector", unit(1, 0, 0)[None]))
        assert message in str(exc.value)
        with pytest.raises(UsageError):
            store.vector_search("c", np.array([np.inf, 0, 0]), 3)
        assert store.stats("c")["documents"] == 0
    finally:
        store.close()


def test_concurrent_writers_and_searchers(pg_location):
    """Threads share one store (its pool): writers replace the same documents over and
    over while searchers read; every search sees whole documents, nothing fails."""
    store = PostgresStore(with_store_options(pg_location, pool_max=6))
    store.create_collection("c", "m", 3, {})
    errors: list[BaseException] = []
    stop = threading.Event()

    def writer(w: int) -> None:
        try:
            for n in range(25):
                doc = f"doc{n % 5}"
                k = 1 + (n + w) % 3
                store.upsert_document("c", DocumentRecord(doc, f"h{w}-{n}"),
                                      [chunk(doc, f"v{w}-{n} part {i}", i) for i in range(k)],
                                      np.stack([unit(1, i, w) for i in range(k)]))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    def searcher() -> None:
        try:
            while not stop.is_set():
                hits = store.vector_search("c", unit(1, 1, 1), 50)
                got = store.get_chunks("c", [h.key for h in hits])
                versions: dict[str, set[str]] = {}
                for key, stored in got.items():
                    versions.setdefault(key[0], set()).add(stored.chunk.text.split()[0])
                assert all(len(v) == 1 for v in versions.values()), versions
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
    readers = [threading.Thread(target=searcher) for _ in range(2)]
    for t in threads + readers:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    try:
        assert errors == []
        docs = store.list_documents("c")
        assert [d.doc_id for d in docs] == [f"doc{i}" for i in range(5)]
        assert sum(d.version for d in docs) == 75
        assert store.data_version("c") == 75
    finally:
        store.close()


# -- a postgresql:// URL wherever a store is named ------------------------------------------
def test_cli_and_environment_accept_a_postgres_url(pg_location, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Audit logs are retained for ninety days.")
    (docs / "b.txt").write_text("Export licence rules for controlled items.")
    toy = json.dumps({"kind": "toy", "vocabulary": ["audit", "logs", "retained", "days",
                                                    "export", "licence", "items"]})
    env = {**os.environ, "RAGD_HOME": str(tmp_path / "home")}

    def ragd(*args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ragd.cli", *args], capture_output=True,
                              text=True, env={**env, **extra}, cwd=tmp_path, timeout=120)

    run = ragd("ingest", str(docs), "--store", pg_location, "--embedder", toy)
    assert run.returncode == 0, run.stderr
    found = ragd("search", "audit logs", "--json", "-k", "1", RAGD_STORE=pg_location)
    assert found.returncode == 0, found.stderr
    assert "a.txt" in found.stdout
    stats = ragd("stats", "--json", "--store", pg_location)
    assert stats.returncode == 0 and '"backend": "postgres"' in stats.stdout
    bad = ragd("search", "x", "--store", "postgresql://nobody@/x?host=/nonexistent")
    assert bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1


def test_python_api_opens_a_collection_by_url(pg_location):
    import ragd

    coll = ragd.open_collection(pg_location, "docs",
                                {"kind": "toy", "vocabulary": ["red", "green"]}, create=True)
    try:
        ragd.index([Chunk(doc_id="x", chunk_index=0, text="red red green")], coll)
        assert ragd.retrieve("red", ragd.Plan(k=1), coll)[0].doc_id == "x"
        assert ragd.index([Chunk(doc_id="x", chunk_index=0, text="red red green")],
                          coll)["unchanged"] == 1
    finally:
        coll.close()


def test_local_server_helper_reports_settings(pg_dsn):
    if os.environ.get("RAGD_TEST_PG_DSN"):
        pytest.skip("the session uses an external server")
    with psycopg.connect(pg_dsn) as conn:
        buffers = conn.execute("SELECT setting::bigint * 8192 FROM pg_settings "
                               "WHERE name = 'shared_buffers'").fetchone()[0]
        ext = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                           ).fetchone()[0]
    assert buffers >= 256 * 1024 * 1024
    assert tuple(int(x) for x in ext.split(".")[:2]) >= (0, 8)
    assert Path(pg_dsn.split("host=")[1].split("&")[0]).exists()


def test_both_lexical_rankers_match_the_same_chunks(pg_location):
    texts = ["export licence for controlled items", "items items items", "licence",
             "nothing here", "Café exports: 736.2(b)"]
    stores = [PostgresStore(pg_location),
              PostgresStore(with_store_options(pg_location, lexical_rank="ts_rank"))]
    try:
        stores[0].create_collection("c", "m", 3, {})
        for i, text in enumerate(texts):
            stores[0].upsert_document("c", DocumentRecord(f"d{i}", "h"),
                                      [chunk(f"d{i}", text)], unit(1, i, 0)[None])
        for terms in (["licence", "items"], ["cafe", "736"], ["export"], ["the"]):
            got = [sorted(h.doc_id for h in s.lexical_search("c", terms, 10)) for s in stores]
            assert got[0] == got[1], terms
        assert [h.doc_id for h in stores[1].lexical_search("c", ["items"], 10)][0] == "d1"
        assert [h.doc_id for h in stores[0].lexical_search("c", ["cafe", "736"], 10)] == ["d4"]
    finally:
        for s in stores:
            s.close()


# A chunk table as schema version 2 created it: the server generated the tsvector.
_V2_CHUNK_TABLE = """
CREATE TABLE chunks_{cid} (
    collection_id integer NOT NULL DEFAULT {cid} CHECK (collection_id = {cid}),
    doc_id text COLLATE "C" NOT NULL, chunk_index integer NOT NULL CHECK (chunk_index >= 0),
    chunk_id text NOT NULL, section_id text COLLATE "C", parent_id text,
    kind text NOT NULL DEFAULT 'chunk', context text NOT NULL DEFAULT '', text text NOT NULL,
    tags text[] NOT NULL DEFAULT '{{}}', metadata jsonb NOT NULL DEFAULT '{{}}',
    tokens integer NOT NULL DEFAULT 0, start_offset integer, end_offset integer, page integer,
    embedding vector(3) NOT NULL,
    tsv tsvector GENERATED ALWAYS AS
        (to_tsvector('ragd_english'::regconfig, ragd_fold(context || ' ' || text))) STORED,
    PRIMARY KEY (collection_id, doc_id, chunk_index),
    FOREIGN KEY (collection_id, doc_id) REFERENCES documents (collection_id, doc_id)
        ON DELETE CASCADE);
CREATE INDEX chunks_{cid}_tsv ON chunks_{cid} USING gin (tsv);
"""


def test_migrations_from_version_2_reanalyse_every_chunk_and_keep_rows_inline(pg_location,
                                                                             pg_dsn):
    """A version-2 store (server-generated tsvectors, with PostgreSQL's stems and stop words)
    opens at version 3 with every chunk re-analysed: it matches what the SQLite store would;
    version 4 then keeps its rows inline."""
    from ragd.analysis import analyze
    from ragd.stores.pg_tsvector import TsVector, TsVectorDumper, tsvectors
    from ragd.stores.postgres_schema import migrations

    schema = parse_store_url(pg_location)[1].schema
    texts = {("d1", 0): ("", "The internal controls of the exporter"),
             ("d1", 1): ("Part 736", "General prohibitions: 736.2(b)"),
             ("d2", 0): ("", "Café naïve résumé " + "licence " * 300)}
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        conn.execute(f"SET search_path = {schema}, public")
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        conn.execute("CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT "
                     "NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        for version, name, text in migrations()[:2]:
            conn.execute(text)
            conn.execute("INSERT INTO schema_version VALUES (%s, %s)", (version, name))
        cid = conn.execute("INSERT INTO collections (name, embed_model, embed_dims, created_at,"
                           " vector_index) VALUES ('c', 'm', 3, 'now', '{\"kind\": \"none\"}')"
                           " RETURNING id").fetchone()[0]
        conn.execute(_V2_CHUNK_TABLE.format(cid=cid))
        for doc_id in ("d1", "d2"):
            conn.execute("INSERT INTO documents (collection_id, doc_id, content_hash, "
                         "ingested_at) VALUES (%s, %s, 'h', 'now')", (cid, doc_id))
        for (doc_id, index), (context, text) in texts.items():
            conn.execute(f"INSERT INTO chunks_{cid} (doc_id, chunk_index, chunk_id, context, "
                         "text, embedding) VALUES (%s, %s, %s, %s, %s, '[1,0,0]')",
                         (doc_id, index, f"{doc_id}#{index}", context, text))
        # PostgreSQL's stemmer and ragd's disagree on this word: only the migration fixes it
        assert conn.execute(f"SELECT tsv::text LIKE '%%''intern''%%' FROM chunks_{cid} "
                            "WHERE doc_id = 'd1' AND chunk_index = 0").fetchone()[0]
    assert analyze("internal") == ["internal"]

    store = PostgresStore(pg_location)
    try:
        assert store.server.schema_version == SCHEMA_VERSION >= 3
        with psycopg.connect(pg_dsn) as conn:
            conn.adapters.register_dumper(TsVector, TsVectorDumper)
            keys = sorted(texts)
            expected = tsvectors([index_text(c, t) for c, t in map(texts.get, keys)])
            for key, tsv in zip(keys, expected):
                same = conn.execute(f"SELECT tsv = %s FROM {schema}.chunks_{cid} WHERE doc_id ="
                                    " %s AND chunk_index = %s", (tsv, *key)).fetchone()[0]
                assert same, key
            generated = conn.execute(
                "SELECT attgenerated FROM pg_attribute WHERE attrelid = %s::regclass "
                "AND attname = 'tsv'", (f"{schema}.chunks_{cid}",)).fetchone()[0]
            assert generated == ""
            gone = conn.execute("SELECT count(*) FROM pg_proc WHERE proname = 'ragd_fold' AND "
                                "pronamespace = %s::regnamespace", (schema,)).fetchone()[0]
            assert gone == 0
        assert [h.key for h in store.lexical_search("c", ["internal"], 5)] == [("d1", 0)]
        assert [h.key for h in store.lexical_search("c", ["the"], 5)] == []  # a stop word
        assert [h.key for h in store.lexical_search("c", ["736"], 5)] == [("d1", 1)]
        assert [h.key for h in store.lexical_search("c", ["resume"], 5)] == [("d2", 0)]
        # version 4: rows stay inline up to a page, in old tables and new ones alike
        store.create_collection("new", "m", 3, {})
        with psycopg.connect(pg_dsn) as conn:
            options = conn.execute(
                "SELECT relname, reloptions FROM pg_class WHERE relnamespace = "
                "%s::regnamespace AND relname ~ '^chunks_[0-9]+$' ORDER BY oid",
                (schema,)).fetchall()
        assert [o for _, o in options] == [["toast_tuple_target=8160"]] * 2
    finally:
        store.close()
