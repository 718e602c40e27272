"""BM25 on PostgreSQL (``lexical_rank=bm25``): the SQLite store's scores and rankings, document
frequencies and average length kept right by every write path, reweighting, the migration and
the option switch."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import with_store_options
from ragd.stores import DocumentRecord, SQLiteStore
from ragd.types import Chunk, Filters, index_text

psycopg = pytest.importorskip("psycopg")
from ragd.stores.postgres import PostgresStore, parse_store_url  # noqa: E402

WORDS = ("licence export control item cat mat dog park grass finance bank river tree stone "
         "water fire light dark music paper glass steel cotton wool salt sugar milk bread").split()


def corpus(seed: int, docs: int, prefix: str = "d") -> dict[str, list[str]]:
    """Seeded texts with Zipf-like word frequencies (a few very common words, many rare)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, len(WORDS) + 1)
    p /= p.sum()
    return {f"{prefix}{i:03d}": [" ".join(rng.choice(WORDS, size=int(rng.integers(3, 40)), p=p))
                                 for _ in range(int(rng.integers(1, 4)))] for i in range(docs)}


def chunks_of(doc_id: str, texts: list[str]) -> list[Chunk]:
    return [Chunk(doc_id=doc_id, chunk_index=i, text=t, tags=("even",) if len(t) % 2 == 0
                  else ("odd",), context="Title words" if i == 0 else "")
            for i, t in enumerate(texts)]


def vectors(n: int) -> np.ndarray:
    return np.ones((n, 3), dtype=np.float32)


QUERIES = [["licence"], ["cat", "mat"], ["export", "cotton", "bread"], ["title", "dog"],
           ["salt", "milk", "licence", "export", "control"], ["absent"], ["the"],
           ["wool", "item", "cat", "river", "glass", "sugar"]]


def assert_same(pg: PostgresStore, lite: SQLiteStore, limit: int, filters: Filters = Filters()
                ) -> None:
    for terms in QUERIES:
        got = pg.lexical_search("c", terms, limit, filters)
        want = lite.lexical_search("c", terms, limit, filters)
        assert [h.key for h in got] == [h.key for h in want], terms
        for g, w in zip(got, want):
            assert g.score == pytest.approx(w.score, rel=1e-5), (terms, g.key)


@pytest.fixture
def both(pg_location, tmp_path):
    pg = PostgresStore(pg_location)
    lite = SQLiteStore(tmp_path / "lite.sqlite")
    for s in (pg, lite):
        s.create_collection("c", "m", 3, {"bm25_drift": 0.0})
    yield pg, lite
    pg.close()
    lite.close()


def write(stores, doc_id: str, texts: list[str]) -> None:
    for s in stores:
        s.upsert_document("c", DocumentRecord(doc_id, doc_id), chunks_of(doc_id, texts),
                          vectors(len(texts)))


def stats(pg: PostgresStore) -> tuple[int, int, dict[int, int]]:
    """(rows, total length, {dim: df}) as the store keeps them."""
    cid = pg._coll("c").cid
    with pg._conn() as conn:
        rows, length = conn.execute("SELECT bm25_rows, bm25_length FROM collections WHERE id = "
                                    "%s", (cid,)).fetchone()
        df = dict(conn.execute(f"SELECT dim, df FROM bm25_df_{cid} WHERE df <> 0").fetchall())
    return int(rows), int(length), df


def recomputed(pg: PostgresStore) -> tuple[int, int, dict[int, int]]:
    """The same figures recomputed from the chunk texts."""
    from ragd.stores.pg_bm25 import term_counts

    texts = [c.chunk.index_text for d in pg.list_documents("c")
             for c in pg.document_chunks("c", d.doc_id)]
    counted = term_counts(texts)
    df: dict[int, int] = {}
    for dims, _, _ in counted:
        for d in dims.tolist():
            df[d] = df.get(d, 0) + 1
    return len(texts), sum(c[2] for c in counted), df


def test_bm25_scores_and_rankings_equal_the_sqlite_store(both):
    pg, lite = both
    for doc_id, texts in corpus(1, 60).items():
        write(both, doc_id, texts)
    assert_same(pg, lite, 50)
    assert_same(pg, lite, 3)   # small k: the commonest terms are pruned (MaxScore)
    assert_same(pg, lite, 5, Filters(tags_any=("even",)))
    assert pg.lexical_search("c", ["licence"], 5)[0].score > 0


def test_writes_and_deletes_keep_df_and_average_length_right(both):
    pg, lite = both
    docs = corpus(2, 30)
    for doc_id, texts in docs.items():
        write(both, doc_id, texts)
    assert stats(pg) == recomputed(pg)
    write(both, "d003", ["an entirely new text about licence licence steel"])  # replaced
    for s in both:
        assert s.delete_document("c", "d007")
    items = [(DocumentRecord(d, d), chunks_of(d, t), vectors(len(t)))
             for d, t in corpus(3, 10, "bulk").items()]
    for s in both:
        s.upsert_documents("c", items)
        s.stage_chunks("c", "job1", chunks_of("big", ["staged cat text", "staged river"]),
                       vectors(2))
        s.commit_staged("c", DocumentRecord("big", "big"), "job1", 2)
    rows, length, df = stats(pg)
    assert (rows, length, df) == recomputed(pg)
    assert rows == sum(pg.chunk_counts("c").values()) == sum(lite.chunk_counts("c").values())
    assert_same(pg, lite, 10)
    with pg._conn() as conn:
        avgdl = conn.execute("SELECT bm25_avgdl FROM collections WHERE name = 'c'").fetchone()[0]
    assert avgdl == pytest.approx(length / rows)


def test_the_average_length_is_rewritten_when_it_drifts(pg_location):
    pg = PostgresStore(pg_location)
    try:
        pg.create_collection("c", "m", 3, {})   # default bound: 2 %
        pg.upsert_document("c", DocumentRecord("a", "a"), chunks_of("a", ["cat mat dog"] * 2),
                           vectors(2))

        def avgdl() -> float:
            with pg._conn() as conn:
                return conn.execute("SELECT bm25_avgdl FROM collections WHERE name = 'c'"
                                    ).fetchone()[0]
        assert avgdl() == pytest.approx(5.0)     # "Title words", counted twice, on chunk 0
        long = " ".join(["river stone"] * 40)
        pg.upsert_document("c", DocumentRecord("b", "b"), chunks_of("b", [long]), vectors(1))
        assert avgdl() == pytest.approx((7 + 3 + 84) / 3)
        pg.upsert_document("c", DocumentRecord("b", "b"), chunks_of("b", [long + " x"]),
                           vectors(1))
        assert avgdl() == pytest.approx((7 + 3 + 84) / 3)   # 1 % off: weights kept
        assert pg.delete_document("c", "b")
        assert avgdl() == pytest.approx(5.0)
    finally:
        pg.close()


def test_lexical_rank_option_switches_the_ranking(pg_location):
    stores = {rank: PostgresStore(with_store_options(pg_location, lexical_rank=rank))
              for rank in ("bm25", "ts_rank_cd", "ts_rank")}
    try:
        assert PostgresStore(pg_location).options.lexical_rank == "bm25"
        stores["bm25"].create_collection("c", "m", 3, {})
        for doc_id, texts in corpus(4, 20).items():
            stores["bm25"].upsert_document("c", DocumentRecord(doc_id, doc_id),
                                           chunks_of(doc_id, texts), vectors(len(texts)))
        hits = {r: s.lexical_search("c", ["cat", "licence"], 100) for r, s in stores.items()}
        keys = {r: sorted(h.key for h in v) for r, v in hits.items()}
        assert keys["bm25"] == keys["ts_rank_cd"] == keys["ts_rank"]
        scores = {r: [round(h.score, 6) for h in v] for r, v in hits.items()}
        assert scores["bm25"] != scores["ts_rank_cd"] != scores["ts_rank"]
        assert max(scores["ts_rank_cd"]) < 1.0 < max(scores["bm25"])
    finally:
        for s in stores.values():
            s.close()


def written(location: str, tmp_path, seed: int) -> tuple[PostgresStore, SQLiteStore, int]:
    """A PostgreSQL and a SQLite store holding the same seeded corpus, and the PostgreSQL
    collection's id."""
    pg = PostgresStore(location)
    lite = SQLiteStore(tmp_path / "lite.sqlite")
    for s in (lite, pg):
        s.create_collection("c", "m", 3, {})
    for doc_id, texts in corpus(seed, 25).items():
        write((pg, lite), doc_id, texts)
    return pg, lite, pg._coll("c").cid


def test_migration_7_fills_the_weights_of_an_existing_store(pg_location, pg_dsn, tmp_path):
    pg, lite, cid = written(pg_location, tmp_path, 5)
    pg.close()
    schema = parse_store_url(pg_location)[1].schema
    with psycopg.connect(pg_dsn, autocommit=True) as conn:   # back to a version-6 store
        conn.execute(f"SET search_path = {schema}, public")
        conn.execute(f"DROP TABLE bm25_{cid}, bm25_df_{cid}; DROP FUNCTION bm25_changed_{cid}")
        conn.execute("ALTER TABLE collections DROP COLUMN bm25_rows, DROP COLUMN bm25_length, "
                     "DROP COLUMN bm25_avgdl, DROP COLUMN bm25_changes")
        conn.execute("DELETE FROM schema_version WHERE version >= 7")
    pg = PostgresStore(pg_location)
    try:
        assert pg.server.schema_version >= 7
        assert stats(pg) == recomputed(pg)
        assert_same(pg, lite, 10)
    finally:
        pg.close()
        lite.close()


def test_migration_8_indexes_the_context_line_twice(pg_location, pg_dsn, tmp_path,
                                                    monkeypatch):
    """A version-7 store (weights and tsvectors of the context line counted once) opens at
    version 8 with both written again from the stored texts: the SQLite store's ranking."""
    import ragd.stores.pg_bm25 as pg_bm25
    from ragd.stores.pg_tsvector import TsVector, TsVectorDumper, tsvectors
    from ragd.types import search_text

    pg, lite, cid = written(pg_location, tmp_path, 6)
    before = recomputed(pg)
    pg.stage_chunks("c", "j", chunks_of("z", ["cat staged"]), vectors(1))  # a write unfinished
    pg.close()
    schema = parse_store_url(pg_location)[1].schema
    with psycopg.connect(pg_dsn, autocommit=True) as conn:   # back to a version-7 store
        conn.execute(f"SET search_path = {schema}, public")
        conn.adapters.register_dumper(TsVector, TsVectorDumper)
        pg_bm25.register_vector(conn)
        conn.execute(pg_bm25.drop_tables(cid))
        conn.execute("UPDATE collections SET bm25_rows = 0, bm25_length = 0, bm25_avgdl = NULL")
        conn.execute(pg_bm25.create_tables(cid))
        with monkeypatch.context() as m, conn.transaction():
            m.setattr(pg_bm25, "index_text", search_text)   # the context line once
            pg_bm25.fill(conn, cid, 1.2, 0.75)
        for doc, index, ctx, text in conn.execute(
                f"SELECT doc_id, chunk_index, context, text FROM chunks_{cid}").fetchall():
            conn.execute(f"UPDATE chunks_{cid} SET tsv = %s WHERE doc_id = %s AND chunk_index "
                         "= %s", (tsvectors([search_text(ctx, text)])[0], doc, index))
        length = conn.execute("SELECT bm25_length FROM collections WHERE id = %s",
                              (cid,)).fetchone()[0]
        assert length < before[1]        # the version-7 lengths count the context line once
        conn.execute("DELETE FROM schema_version WHERE version >= 8")
    pg = PostgresStore(pg_location)
    try:
        assert pg.server.schema_version >= 8
        assert stats(pg) == recomputed(pg) == before
        with pg._conn() as conn:     # its staged chunks carried old tsvectors: dropped
            assert conn.execute("SELECT count(*) FROM chunk_staging").fetchone()[0] == 0
        assert_same(pg, lite, 10)
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"SET search_path = {schema}, public")
            conn.adapters.register_dumper(TsVector, TsVectorDumper)
            for doc, index, ctx, text in conn.execute(
                    f"SELECT doc_id, chunk_index, context, text FROM chunks_{cid}").fetchall():
                assert conn.execute(f"SELECT tsv = %s FROM chunks_{cid} WHERE doc_id = %s AND "
                                    "chunk_index = %s", (tsvectors([index_text(ctx, text)])[0],
                                                         doc, index)).fetchone()[0]
    finally:
        pg.close()
        lite.close()


def test_dropping_a_collection_drops_its_weights(pg_location):
    pg = PostgresStore(pg_location)
    try:
        pg.create_collection("c", "m", 3, {})
        write((pg,), "a", ["cat"])
        cid = pg._coll("c").cid
        pg.drop_collection("c")
        with pg._conn() as conn:
            left = conn.execute("SELECT count(*) FROM pg_class WHERE relname IN (%s, %s) AND "
                                "relnamespace = current_schema()::regnamespace",
                                (f"bm25_{cid}", f"bm25_df_{cid}")).fetchone()[0]
        assert left == 0
    finally:
        pg.close()


def test_the_row_budget_bounds_candidates_but_never_changes_a_score(both, pg_location):
    from ragd.stores import pg_bm25

    pg, lite = both
    for doc_id, texts in corpus(6, 80).items():
        write(both, doc_id, texts)
    exact = PostgresStore(with_store_options(pg_location, bm25_budget=0))
    small = PostgresStore(with_store_options(pg_location, bm25_budget=5))
    try:
        assert_same(exact, lite, 3)
        before = pg_bm25.COUNTS["bounded"]
        for terms in QUERIES:
            want = {h.key: h.score for h in lite.lexical_search("c", terms, 1000)}
            for hit in small.lexical_search("c", terms, 3):
                assert hit.score == pytest.approx(want[hit.key], rel=1e-5)
        assert pg_bm25.COUNTS["bounded"] > before
    finally:
        exact.close()
        small.close()


def test_concurrent_writes_and_deletes_keep_df_right(pg_location):
    import threading

    pg = PostgresStore(pg_location)
    errors: list[BaseException] = []
    docs = corpus(7, 40)
    try:
        pg.create_collection("c", "m", 3, {})
        for doc_id, texts in list(docs.items())[:20]:
            write((pg,), doc_id, texts)

        def worker(ids: list[str]) -> None:
            try:
                for doc_id in ids:
                    write((pg,), doc_id, docs[doc_id])
                    if doc_id < "d010":
                        pg.delete_document("c", doc_id)
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(exc)
        ids = sorted(docs)
        threads = [threading.Thread(target=worker, args=(ids[i::4],)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert stats(pg) == recomputed(pg)
        assert len(pg.list_documents("c")) == 30
    finally:
        pg.close()
