"""``ragd stats``, ``ragd delete`` and ``ragd store init``: what a store holds, and its upkeep."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from ..collection import open_collection
from ..service.ops import stats_json
from ..stores import open_store
from .common import existing_store, out, settings_of
from ..errors import UsageError


def cmd_stats(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    store = existing_store(settings)
    try:
        stats = stats_json(store, getattr(args, "collection", None))["collections"]
    finally:
        store.close()
    if args.json:
        out.print_json(data={"store": store.url, "collections": stats})
        return 0
    if not stats:
        out.print(f"store {store.url} holds no collections yet")
        return 0
    table = Table(title=f"ragd store {store.url}")
    for col in ("collection", "profile", "documents", "chunks", "words", "embed model", "dims",
                "size"):
        table.add_column(col, justify="left" if col in ("collection", "profile", "embed model")
                         else "right")
    for s in stats:
        table.add_row(s["collection"], s["profile"]["name"], str(s["documents"]),
                      str(s["chunks"]), str(s["tokens"]), s["embed_model"], str(s["embed_dims"]),
                      f"{s['bytes'] / 1e6:.1f} MB")
    out.print(table)
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    store = existing_store(settings)
    coll = open_collection(store, settings.collection)
    found = store.delete_document(coll.name, args.doc_id)
    store.close()
    if not found:
        raise UsageError(f"no document {args.doc_id!r} in collection {coll.name!r}")
    out.print(f"deleted {args.doc_id} from collection {coll.name!r}")
    return 0


def cmd_store_init(args: argparse.Namespace) -> int:
    """Apply the schema and its migrations; print what the store now is."""
    location = settings_of(args).store_location
    if location.split("://", 1)[0].lower() in ("postgresql", "postgres"):
        from ..stores.postgres import init_store

        out.print(init_store(location))
        return 0
    store = open_store(location)
    store.close()
    out.print(f"SQLite store {store.url} is ready")
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("stats", parents=[common], help="what the store holds")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("delete", parents=[common], help="remove a document and its chunks")
    p.add_argument("doc_id")
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("store", help="manage a store")
    store_sub = p.add_subparsers(dest="store_command", required=True, metavar="COMMAND")
    p = store_sub.add_parser("init", parents=[common],
                             help="create or migrate a store's schema (SQLite or PostgreSQL)")
    p.set_defaults(func=cmd_store_init)
