"""Stores behind one protocol, opened by location: a directory or ``.sqlite`` file (embedded)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import UsageError
from ..registry import Registry
from .base import (CollectionInfo, DocumentRecord, Hit, ReadOnlyStoreError, Snapshot, Store,
                   StoredChunk, rank_hits)
from .sqlite import SQLiteStore

SQLITE_FILENAME = "ragd.sqlite"

STORES: Registry[Callable[[str], Store]] = Registry("store URL scheme")
"""Store openers by URL scheme (``postgresql``); a path is the embedded SQLite store."""


def register_store_scheme(scheme: str, opener: Callable[[str], Store]) -> None:
    """Make ``open_store("<scheme>://...")`` call ``opener(url)``."""
    STORES.register(scheme, opener, replace=True)


def _open_postgres(url: str) -> Store:
    """``postgresql://`` and ``postgres://`` URLs: the PostgreSQL + pgvector store (needs the
    ``postgres`` extra: psycopg, psycopg-pool, pgvector)."""
    try:
        from .postgres import PostgresStore
    except ImportError as exc:
        raise UsageError(f"a PostgreSQL store needs ragd's postgres extra "
                         f"(pip install 'ragd[postgres]'): {exc}") from exc
    return PostgresStore(url)


register_store_scheme("postgresql", _open_postgres)
register_store_scheme("postgres", _open_postgres)


def open_store(location: str | Path) -> Store:
    """Open (creating if needed) the store at ``location``.

    A URL ``scheme://...`` goes to the backend registered for that scheme; a
    path ending in ``.sqlite``/``.db`` is a SQLite file; any other path is a
    directory that holds ``ragd.sqlite``.
    """
    text = str(location)
    if "://" in text:
        scheme = text.split("://", 1)[0].lower()
        if scheme not in STORES:
            raise UsageError(f"unsupported store URL scheme {scheme!r} in {text!r} "
                             f"(supported: a path{''.join(', ' + s + '://' for s in STORES.names())})")
        return STORES.get(scheme)(text)
    path = Path(text).expanduser()
    if path.suffix.lower() in (".sqlite", ".sqlite3", ".db"):
        return SQLiteStore(path)
    if path.exists() and not path.is_dir():
        raise UsageError(f"store path {path} exists and is not a directory or a .sqlite file")
    return SQLiteStore(path / SQLITE_FILENAME)


__all__ = ["CollectionInfo", "DocumentRecord", "Hit", "ReadOnlyStoreError", "SQLiteStore",
           "Snapshot", "Store", "StoredChunk", "open_store", "rank_hits",
           "register_store_scheme"]
