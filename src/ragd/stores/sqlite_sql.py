"""SQL of the embedded store: the schema and its migrations, filters as SQL, chunk rows.

Kept apart from :mod:`ragd.stores.sqlite` (the store itself) so that each stays small.
"""

from __future__ import annotations

import json
import sqlite3
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ..analysis import pack_terms
from ..errors import StoreError, UsageError
from ..ids import canonical_json
from ..types import Chunk, Filters, index_text

SCHEMA_VERSION = 5
CHUNK_COLUMNS = ("c.doc_id, c.chunk_index, c.chunk_id, c.section_id, c.parent_id, c.kind, "
                 "c.context, c.text, c.tags, c.metadata, c.tokens, c.start_offset, "
                 "c.end_offset, c.page")


def _json_filter_value(value: Any) -> tuple[str, Any]:
    """(json_each type, json_each value) that a top-level metadata value has in SQLite."""
    if value is None:
        return "null", None
    if value is True:
        return "true", 1
    if value is False:
        return "false", 0
    if isinstance(value, int):
        return "integer", value
    if isinstance(value, float):
        return ("integer", int(value)) if value.is_integer() else ("real", value)
    if isinstance(value, str):
        return "text", value
    if isinstance(value, (list, tuple)):
        return "array", json.dumps(list(value), separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, dict):
        return "object", json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    raise UsageError(f"metadata filter value {value!r} is not a JSON value")


def filter_sql(filters: Filters, alias: str = "c") -> tuple[str, list[Any]]:
    """SQL conditions (joined by AND) and parameters for ``filters``; values are parameters only."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.tags_any:
        marks = ",".join("?" * len(filters.tags_any))
        clauses.append(f"EXISTS (SELECT 1 FROM chunk_tags t WHERE t.chunk_rowid = {alias}.id "
                       f"AND t.tag IN ({marks}))")
        params.extend(filters.tags_any)
    if filters.tags_all:
        wanted = sorted(set(filters.tags_all))
        marks = ",".join("?" * len(wanted))
        clauses.append(f"(SELECT count(*) FROM chunk_tags t WHERE t.chunk_rowid = {alias}.id "
                       f"AND t.tag IN ({marks})) = ?")
        params.extend(wanted)
        params.append(len(wanted))
    for key in sorted(filters.metadata):
        kind, value = _json_filter_value(filters.metadata[key])
        test = "j.value IS NULL" if kind == "null" else "j.value = ?"
        clauses.append(f"EXISTS (SELECT 1 FROM json_each({alias}.metadata) j "
                       f"WHERE j.key = ? AND j.type = ? AND {test})")
        params.extend([key, kind] if kind == "null" else [key, kind, value])
    return " AND ".join(clauses), params


CHUNK_WRITE_COLUMNS = ("collection_id, doc_id, chunk_index, chunk_id, section_id, parent_id, "
                       "kind, context, text, tags, metadata, tokens, start_offset, end_offset, "
                       "page, embedding, terms")
STAGING_MAX_AGE = 86400.0
"""Seconds after which rows of a staged write that never finished are cleared."""


def chunk_row(cid: int, chunk: Chunk, vector: Any, terms: bytes) -> tuple:
    """A chunk's values in :data:`CHUNK_WRITE_COLUMNS` order."""
    return (cid, chunk.doc_id, chunk.chunk_index, chunk.chunk_id, chunk.section_id,
            chunk.parent_id, chunk.kind, chunk.context, chunk.text,
            canonical_json(list(chunk.tags)), canonical_json(dict(chunk.metadata)),
            chunk.tokens, chunk.start_offset, chunk.end_offset, chunk.page,
            vector.tobytes(), terms)


def clear_stale_staging(conn: sqlite3.Connection, cid: int, doc_id: str, job: str,
                        now: float) -> None:
    """Inside a transaction, as a staged write begins: the rows an earlier, crashed write of
    the same document left, and any staged row older than :data:`STAGING_MAX_AGE`."""
    conn.execute("DELETE FROM chunk_staging WHERE collection_id = ? AND doc_id = ? AND "
                 "job <> ?", (cid, doc_id, job))
    conn.execute("DELETE FROM chunk_staging WHERE created_at < ?", (now - STAGING_MAX_AGE,))


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    """A chunk from the first 14 columns of a row selected with :data:`CHUNK_COLUMNS`."""
    return Chunk(doc_id=row[0], chunk_index=int(row[1]), chunk_id=row[2], section_id=row[3],
                 parent_id=row[4], kind=row[5], context=row[6], text=row[7],
                 tags=tuple(json.loads(row[8])) if row[8] != "[]" else (),
                 metadata=json.loads(row[9]) if row[9] != "{}" else {},
                 tokens=int(row[10]), start_offset=row[11], end_offset=row[12], page=row[13])


def _schema_sql() -> str:
    return (resources.files("ragd.stores") / "schema_sqlite.sql").read_text("utf-8")


def _version(conn: sqlite3.Connection) -> tuple[int, set[str]]:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    row = (conn.execute("SELECT value FROM ragd_meta WHERE key = 'schema_version'")
           .fetchone() if "ragd_meta" in tables else None)
    return (int(row[0]) if row else 0), tables


def check_schema(conn: sqlite3.Connection, path: Path) -> None:
    """A store opened read-only must be at this schema version already (it cannot migrate)."""
    version, _ = _version(conn)
    if version != SCHEMA_VERSION:
        raise StoreError(f"store {path} is read-only and has schema version {version}; this "
                         f"ragd needs version {SCHEMA_VERSION}: open it once where it can be "
                         "written (ragd store init) to upgrade it")


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Create the schema, or bring an older store up to this version."""
    version, tables = _version(conn)
    if version > SCHEMA_VERSION:
        raise StoreError(f"store {path} has schema version {version}; this ragd "
                         f"supports up to {SCHEMA_VERSION}: upgrade ragd")
    if version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        if version == 0:
            for statement in _schema_sql().split(";"):
                if statement.strip():
                    conn.execute(statement)
        if version == 1:
            _migrate_1_to_2(conn, tables)
        if 1 <= version <= 2:
            _migrate_2_to_3(conn)
        if 1 <= version <= 3:
            _migrate_3_to_4(conn)
        if 1 <= version <= 4:
            _migrate_4_to_5(conn)
        conn.execute("INSERT OR REPLACE INTO ragd_meta VALUES ('schema_version', ?)",
                     (str(SCHEMA_VERSION),))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _migrate_1_to_2(conn: sqlite3.Connection, tables: set[str]) -> None:
    """v2 replaces the FTS5 tables by per-chunk analysed terms (in-memory BM25)."""
    conn.execute("ALTER TABLE chunks ADD COLUMN terms BLOB NOT NULL DEFAULT x''")
    conn.execute("CREATE INDEX IF NOT EXISTS chunks_by_section ON chunks "
                 "(collection_id, section_id)")
    for name in sorted(t for t in tables if t.startswith("fts_") and "_" not in t[4:]):
        conn.execute(f'DROP TABLE IF EXISTS "{name}"')   # (the terms: by _migrate_4_to_5)


def _migrate_2_to_3(conn: sqlite3.Connection) -> None:
    """v3 adds the query cache table."""
    sql = _schema_sql()
    create = sql[sql.index("CREATE TABLE IF NOT EXISTS query_cache"):]
    conn.execute(create.split(";")[0])


def _migrate_3_to_4(conn: sqlite3.Connection) -> None:
    """v4 records each document's source file and adds the staging table of large writes."""
    conn.execute("ALTER TABLE documents ADD COLUMN source_path TEXT NOT NULL DEFAULT ''")
    sql = _schema_sql()
    for start in ("CREATE INDEX IF NOT EXISTS documents_by_source",
                  "CREATE TABLE IF NOT EXISTS chunk_staging",
                  "CREATE INDEX IF NOT EXISTS chunk_staging_by_document"):
        conn.execute(sql[sql.index(start):].split(";")[0])


def _migrate_4_to_5(conn: sqlite3.Connection) -> None:
    """v5 indexes the context line twice (``ragd.types.index_text``): every chunk's packed
    terms are analysed again, staged ones too (the saved postings beside the file change
    format with it); cached results, ranked the old way, are dropped."""
    conn.execute("DELETE FROM query_cache")
    for table in ("chunks", "chunk_staging"):
        rows = conn.execute(f"SELECT rowid, context, text FROM {table}").fetchall()
        conn.executemany(f"UPDATE {table} SET terms = ? WHERE rowid = ?",
                         [(pack_terms(index_text(ctx, text)), rowid) for rowid, ctx, text in rows])
