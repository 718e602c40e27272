"""Helpers shared by the tests (importable as ``helpers``: pytest's pythonpath includes tests/)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import numpy as np

from ragd.analysis import pack_terms, query_analyze, term_hash
from ragd.stores.lexical_index import LexicalDelta, LexicalIndex
from ragd.types import Chunk

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

VOCABULARY = ("export", "license", "licence", "item", "items", "ear", "cheating", "theft",
              "punishment", "murder", "logs", "audit", "retained", "days", "session", "token",
              "tokens", "logout", "invalidated", "red", "green", "blue", "apple", "banana")


def shared(*parts: str) -> Path:
    """A path under ../shared/data; the test is skipped when the data is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data {path} not available")
    return path


def inject_write_failure(store, marker: str) -> None:
    """Make the backend fail while inserting a chunk whose text contains ``marker``.

    A real failure inside the write transaction (a trigger raising), not a mock.
    """
    from ragd.stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        store._conn.execute(
            "CREATE TEMP TRIGGER ragd_test_fail BEFORE INSERT ON main.chunks "
            f"WHEN instr(new.text, '{marker}') > 0 "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
        return
    if type(store).__name__ == "PostgresStore":
        from psycopg import sql

        # A row trigger on every chunk table of the store's schema (one per collection).
        with store._pool.connection() as conn:
            conn.execute(
                "CREATE OR REPLACE FUNCTION ragd_test_fail() RETURNS trigger LANGUAGE plpgsql "
                "AS $$ BEGIN IF strpos(NEW.text, TG_ARGV[0]) > 0 THEN "
                "RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$")
            tables = [r[0] for r in conn.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9]+$'",
                (store.options.schema,))]
            for table in tables:
                conn.execute(sql.SQL(
                    "CREATE TRIGGER ragd_test_fail BEFORE INSERT ON {} FOR EACH ROW "
                    "EXECUTE FUNCTION ragd_test_fail({})").format(
                    sql.Identifier(store.options.schema, table), sql.Literal(marker)))
        return
    raise NotImplementedError(type(store).__name__)


def with_store_options(url: str, **options: object) -> str:
    """``url`` with ragd store options added as query parameters."""
    from urllib.parse import urlencode

    return url + ("&" if "?" in url else "?") + urlencode(options)


def drop_pg_schema(dsn: str, schema: str) -> None:
    """Remove a test's schema and everything in it."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def make_read_only(paths: list[Path]) -> list[Path]:
    """Take write permission away (root ignores permissions: make the paths immutable then;
    skipped where neither works). Returns what to give back with :func:`make_writable`."""
    if os.geteuid() != 0:
        for p in paths:
            p.chmod(0o555 if p.is_dir() else 0o444)
        return paths
    try:
        subprocess.run(["chattr", "+i", *map(str, paths)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot make a file read-only as root here (chattr: {exc})")
    return paths


def make_writable(paths: list[Path]) -> None:
    if os.geteuid() != 0:
        for p in paths:
            p.chmod(0o755 if p.is_dir() else 0o644)
    else:
        subprocess.run(["chattr", "-i", *map(str, paths)], check=False, capture_output=True)


# A chunk with every field set to something a store could mangle (non-ASCII, nested JSON,
# an escaped NUL that is not a NUL), and one with none: for the stores' write-path tests.
FULL_CHUNK = Chunk(doc_id="d-ü", chunk_index=7, text="Export of «items» — 5 %", chunk_id="d-ü#7",
                   context="Part 744 > § 744.21", tags=("ear", "Ωmega"),
                   metadata={"n": 1, "nested": {"list": [1, "two", None]}, "q": "it's 😀",
                             "path": "C:\\u0000 is not a NUL"},
                   tokens=12, start_offset=3, end_offset=40, section_id="744.21",
                   parent_id="744", kind="section", page=2)
BARE_CHUNK = Chunk(doc_id="d-ü", chunk_index=8, text="second")


# -- seeded random corpora for the BM25 index (pruned and compiled scoring) --------------
def vocabulary(n: int) -> list[str]:
    """``n`` made-up words (seeded), sorted."""
    rng = np.random.default_rng(7)
    letters = list("bcdfgklmnprstvz")
    vowels = list("aeiou")
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(letters) + rng.choice(vowels) for _ in range(3)))
    return sorted(words)


def zipf_texts(rng, words: list[str], n_docs: int) -> list[str]:
    """``n_docs`` texts of 1-59 words drawn by a Zipf law (ties and duplicates likely)."""
    p = 1.0 / np.arange(1, len(words) + 1) ** 1.1
    p /= p.sum()
    return [" ".join(rng.choice(words, int(rng.integers(1, 60)), p=p)) for _ in range(n_docs)]


def load_terms(texts: list[str], start: int = 1) -> LexicalIndex:
    """A loaded BM25 index of ``texts`` (rowids from ``start``; 3 chunks per document)."""
    index = LexicalIndex()
    keys = [(f"d{i // 3:05d}", i % 3) for i in range(len(texts))]
    index.load(0, np.arange(start, start + len(texts), dtype=np.int64), keys,
               [pack_terms(t) for t in texts])
    return index


def random_queries(rng, words, n):
    """``n`` queries of 1-12 words (term hashes), frequent words likelier."""
    p = 1.0 / np.arange(1, len(words) + 1) ** 0.8
    p /= p.sum()
    return [[term_hash(t) for t in query_analyze(list(rng.choice(words, int(rng.integers(1, 13)),
                                                                  p=p)))]
            for _ in range(n)]


def synced_with_delta(rng, words: list[str]) -> LexicalIndex:
    """An index of 2,000 texts moved on by one write: 250 rows removed, 300 added (so its
    view has a delta segment and dead rows)."""
    index = load_terms(zipf_texts(rng, words, 2000))
    more = zipf_texts(rng, words, 300)
    removed = rng.choice(np.arange(1, 2001), 250, replace=False)
    index.record(LexicalDelta(1, removed, np.arange(3001, 3301),
                              [(f"n{i:04d}", 0) for i in range(300)],
                              [pack_terms(t) for t in more]))
    assert index.sync(1)
    return index
