"""The PostgreSQL store's schema versions and URL: the bundled migrations, applied in order
under an advisory lock (with their data steps), the store URL's options, and what the server
offers (version, pgvector, read-only or not).

The schema is set once per connection through ``search_path`` from a name validated
against ``[a-z_][a-z0-9_]*``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from importlib import resources
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import sql

from ..errors import StoreError, UsageError
from ..types import index_text
from .pg_tsvector import TsVector, TsVectorDumper, tsvectors
from .postgres_sql import RANKERS, settle_gin

SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
MIGRATION_LOCK = 0x72616764  # pg_advisory_xact_lock key ("ragd") serialising migrations


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, SQL) of every bundled migration, in order."""
    folder = resources.files("ragd.stores") / "pg_migrations"
    out = []
    for entry in folder.iterdir():
        match = re.match(r"^(\d{4})_(\w+)\.sql$", entry.name)
        if match:
            out.append((int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    return sorted(out)


# -- store URL, options, migrations -----------------------------------------------------------
SCHEMA_VERSION = max(v for v, _, _ in migrations())


@dataclass(frozen=True)
class PgOptions:
    """The ragd options of a store URL (see the module docstring)."""

    schema: str = "ragd"
    ef_search: int = 40
    hnsw_m: int = 16
    hnsw_ef_construction: int = 64
    search: str = "auto"
    iterative_scan: str = "relaxed_order"
    max_scan_tuples: int = 20000
    exact_below: int = 500
    lexical_rank: str = "bm25"
    bm25_budget: int = 4000
    pool_min: int = 1
    pool_max: int = 10

    def __post_init__(self) -> None:
        if not SCHEMA_NAME.match(self.schema):
            raise UsageError(f"store option schema={self.schema!r}: use lower-case letters, "
                             "digits and _ (not starting with a digit)")
        if self.search not in ("auto", "exact"):
            raise UsageError(f"store option search={self.search!r}: use auto or exact")
        if self.lexical_rank not in ("bm25", *RANKERS):
            raise UsageError(f"store option lexical_rank={self.lexical_rank!r}: use "
                             f"bm25, {' or '.join(RANKERS)}")
        if self.iterative_scan not in ("strict_order", "relaxed_order", "off"):
            raise UsageError(f"store option iterative_scan={self.iterative_scan!r}: use "
                             "strict_order, relaxed_order or off")
        if self.bm25_budget < 0:
            raise UsageError("store option bm25_budget must be >= 0 (0: no limit)")
        for name in ("ef_search", "hnsw_m", "hnsw_ef_construction", "max_scan_tuples",
                     "pool_max"):
            if getattr(self, name) < 1:
                raise UsageError(f"store option {name} must be >= 1")


_INT_OPTIONS = {f.name for f in fields(PgOptions) if f.type in ("int", int)}


def parse_store_url(url: str) -> tuple[str, PgOptions, str]:
    """(libpq connection URL, ragd options, URL to show with the password hidden)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise UsageError(f"not a PostgreSQL store URL: {url!r}")
    kept, opts = [], {}
    names = {f.name for f in fields(PgOptions)}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key in names:
            try:
                opts[key] = int(value) if key in _INT_OPTIONS else value
            except ValueError:
                raise UsageError(f"store option {key}={value!r} must be an integer") from None
        else:
            kept.append((key, value))
    query = urlencode(kept, quote_via=quote, safe="/")
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
    shown = parts.netloc
    if parts.password is not None:
        shown = shown.replace(":" + parts.password + "@", ":***@", 1)
    display = urlunsplit((parts.scheme, shown, parts.path, parts.query, ""))
    return conninfo, PgOptions(**opts), display


def message(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def reanalyse(conn: psycopg.Connection, batch: int = 2048) -> None:
    """Recompute the stored tsvector of every chunk table with ragd's analysis (the data step
    of migration 3), in ``batch``-row steps through a temporary table."""
    conn.adapters.register_dumper(TsVector, TsVectorDumper)
    tables = [r[0] for r in conn.execute(
        "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
        "AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9]+$' ORDER BY c.relname")]
    conn.execute('CREATE TEMP TABLE IF NOT EXISTS ragd_reanalysed (doc_id text COLLATE "C", '
                 "chunk_index integer, tsv tsvector) ON COMMIT DROP")
    for name in tables:
        table = sql.Identifier(name)
        with conn.cursor(name="ragd_reanalyse") as rows:
            rows.execute(sql.SQL("SELECT doc_id, chunk_index, context, text FROM {} "
                                 "ORDER BY doc_id, chunk_index").format(table))
            while chunk_rows := rows.fetchmany(batch):
                values = tsvectors([index_text(ctx, text) for _, _, ctx, text in chunk_rows])
                with conn.cursor().copy("COPY ragd_reanalysed FROM STDIN (FORMAT BINARY)") as out:
                    out.set_types(["text", "int4", "tsvector"])
                    for (doc_id, index, _, _), tsv in zip(chunk_rows, values):
                        out.write_row((doc_id, index, tsv))
        conn.execute(sql.SQL("UPDATE {} c SET tsv = r.tsv FROM ragd_reanalysed r "
                             "WHERE c.doc_id = r.doc_id AND c.chunk_index = r.chunk_index"
                             ).format(table))
        conn.execute("TRUNCATE ragd_reanalysed")


def _bm25_weights(conn: psycopg.Connection) -> None:
    from .pg_bm25 import upgrade  # pg_bm25 builds on this module

    upgrade(conn)


def _context_twice(conn: psycopg.Connection) -> None:
    from .pg_bm25 import reindex  # pg_bm25 builds on this module

    reanalyse(conn)
    reindex(conn)


DATA_STEPS = {3: reanalyse, 7: _bm25_weights, 8: _context_twice}
"""Python steps run right after a migration's SQL, in its transaction."""


@dataclass(frozen=True)
class ServerInfo:
    schema_version: int
    server_version: str
    pgvector_version: str
    search_path: str


def _search_path(conn: psycopg.Connection, schema: str) -> str:
    """The session's search path with the store's schema first."""
    base_path = conn.execute("SELECT current_setting('search_path')").fetchone()[0]
    return f'"{schema}", {base_path}' if base_path.strip() else f'"{schema}"'


def read_only_reason(conn: psycopg.Connection) -> str:
    """Why this session cannot write ("" when it can): a server in recovery (a hot-standby
    read replica), or a session whose transactions are read-only by default."""
    standby, read_only = conn.execute(
        "SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only') = 'on'"
    ).fetchone()
    if standby:
        return "the server is a read replica (in recovery)"
    return "the session's transactions are read-only (default_transaction_read_only)" \
        if read_only else ""


def inspect(conn: psycopg.Connection, schema: str) -> ServerInfo:
    """What :func:`migrate` would report, read without writing: for a server that refuses
    writes. The schema must already be at this ragd's version (migrate the primary first)."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None:
        raise StoreError("the pgvector extension is not installed in this database, and a "
                         "read-only server cannot create it")
    found = conn.execute("SELECT to_regclass(%s)",
                         (sql.Identifier(schema, "schema_version").as_string(conn),)).fetchone()[0]
    if found is None:
        raise StoreError(f"schema {schema!r} holds no ragd store, and a read-only server cannot "
                         "create one: run `ragd store init` against the primary")
    current = conn.execute(sql.SQL("SELECT coalesce(max(version), 0) FROM {}").format(
        sql.Identifier(schema, "schema_version"))).fetchone()[0]
    if current != SCHEMA_VERSION:
        hint = ("upgrade ragd" if current > SCHEMA_VERSION else
                "migrate it on the primary (`ragd store init`), then search the replica")
        raise StoreError(f"schema {schema!r} is at version {current}; this ragd reads version "
                         f"{SCHEMA_VERSION} and a read-only server cannot migrate it: {hint}")
    search_path = _search_path(conn, schema)
    server = conn.execute("SELECT current_setting('server_version')").fetchone()[0]
    return ServerInfo(current, server, row[0], search_path)


def migrate(conn: psycopg.Connection, schema: str) -> ServerInfo:
    """Bring ``schema`` to the latest version (idempotent; concurrent callers serialise on
    an advisory lock). Creates the ``vector`` extension when it is missing."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                           ).fetchone()
        if row is None:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                               ).fetchone()
        pgvector = row[0]
        if version_tuple(pgvector) < (0, 7, 0):
            raise StoreError(f"pgvector {pgvector} is too old: ragd needs 0.7 or later "
                             "(0.8 or later for iterative index scans)")
        encoding = conn.execute("SELECT current_setting('server_encoding')").fetchone()[0]
        if encoding.upper() not in ("UTF8", "UTF-8"):
            raise StoreError(f"the database's encoding is {encoding}; ragd needs a UTF8 "
                             "database (CREATE DATABASE ... ENCODING 'UTF8')")
        search_path = _search_path(conn, schema)
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute("SELECT set_config('search_path', %s, true)", (search_path,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
                     "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        current = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version"
                               ).fetchone()[0]
        if current > SCHEMA_VERSION:
            raise StoreError(f"schema {schema!r} is at version {current}; this ragd supports "
                             f"up to {SCHEMA_VERSION}: upgrade ragd")
        for version, name, text in migrations():
            if version > current:
                conn.execute(text)
                if version in DATA_STEPS:
                    DATA_STEPS[version](conn)
                    for (cid,) in conn.execute("SELECT id FROM collections").fetchall():
                        conn.execute(settle_gin(int(cid)))   # the rows it rewrote
                conn.execute("INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                             (version, name))
                current = version
        server = conn.execute("SELECT current_setting('server_version')").fetchone()[0]
    return ServerInfo(current, server, pgvector, search_path)
