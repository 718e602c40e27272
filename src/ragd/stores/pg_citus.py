"""The Citus DDL of the PostgreSQL store (``pg_citus.sql``), read as sections of statements.

Applied by hand on a cluster's coordinator (docs/postgres-scale.md); this module only reads
the file, so the tests can run its ``plain`` section on any PostgreSQL, check every name it
uses against a live ragd schema, and run the ``citus`` section where the extension exists.

It also states, for the layouts docs/postgres-scale.md compares, which primary keys and
unique constraints of ragd's schema lack the distribution column Citus would need in them
(:data:`HASH_LAYOUTS`): the tests derive the same from the live schema, so the docs cannot
drift from the migrations.
"""

from __future__ import annotations

import re
from importlib import resources

SECTION = re.compile(r"^-- \[(\w+)\]\s*$")


def ddl_text() -> str:
    return (resources.files("ragd.stores") / "pg_citus.sql").read_text("utf-8")


def sections(text: str | None = None) -> dict[str, list[str]]:
    """Statements of each ``-- [name]`` section, in order, comments dropped. A statement
    ends with ``;`` at the end of a line (the file has no function bodies)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    pending: list[str] = []
    for line in (ddl_text() if text is None else text).splitlines():
        found = SECTION.match(line)
        if found:
            if pending:
                raise ValueError(f"statement not ended before section {found.group(1)}")
            current = out.setdefault(found.group(1), [])
            continue
        code = line.split("--", 1)[0].rstrip()
        if not code.strip() or current is None:
            continue
        pending.append(code.strip())
        if code.endswith(";"):
            current.append(" ".join(pending))
            pending = []
    if pending:
        raise ValueError("the last statement does not end with ';'")
    return out


HASH_LAYOUTS: dict[str, dict[str, str]] = {
    "collection_id": {"documents": "collection_id", "query_cache": "collection_id",
                      "chunk_staging": "collection_id", "chunks_*": "collection_id",
                      "bm25_*": "collection_id", "bm25_df_*": "collection_id"},
    "doc_id": {"documents": "doc_id", "chunk_staging": "doc_id", "chunks_*": "doc_id",
               "bm25_*": "doc_id"},
}
"""Hash distribution layouts: table (``*``: of every collection) → distribution column. The
tables not named (``collections``, ``schema_version``; under ``doc_id`` also ``query_cache``
and ``bm25_df_*``) would be reference tables, which need no distribution column."""

HASH_LAYOUT_GAPS: dict[str, set[str]] = {
    "collection_id": {"chunk_staging: PRIMARY KEY (job, chunk_index)",
                      "bm25_*: PRIMARY KEY (doc_id, chunk_index)",
                      "bm25_df_*: PRIMARY KEY (dim)", "bm25_df_*: no column collection_id"},
    "doc_id": {"chunk_staging: PRIMARY KEY (job, chunk_index)"},
}
"""The constraints each layout would have to change (what docs/postgres-scale.md lists)."""
