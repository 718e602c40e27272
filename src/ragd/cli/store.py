"""``ragd stats``, ``ragd list``, ``ragd show``, ``ragd delete`` and ``ragd store init``:
what a store holds, and its upkeep."""

from __future__ import annotations

import argparse
from typing import Any

from rich.markup import escape
from rich.table import Table

from ..collection import open_collection
from ..errors import UsageError
from ..service.ops import stats_json
from ..stores import open_store
from .common import existing_collection, existing_store, out, settings_of


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


def _document(record: Any, chunks: int) -> dict[str, Any]:
    return {"doc_id": record.doc_id, "title": record.title, "chunks": chunks,
            "source": record.source, "source_path": record.source_path,
            "ingested_at": record.ingested_at, "version": record.version,
            "content_hash": record.content_hash, "metadata": dict(record.metadata)}


def cmd_list(args: argparse.Namespace) -> int:
    """Every document of the collection: doc_id, title, chunks, source, ingested at."""
    coll = existing_collection(settings_of(args))
    try:
        records = coll.store.list_documents(coll.name)
        counts = coll.store.chunk_counts(coll.name)
    finally:
        coll.close()
    docs = [_document(r, counts.get(r.doc_id, 0)) for r in records]
    if args.json:
        out.print_json(data={"collection": coll.name, "store": coll.store.url,
                             "documents": docs})
        return 0
    if not docs:
        out.print(f"collection {coll.name!r} holds no documents")
        return 0
    table = Table(title=f"{len(docs)} documents in collection {coll.name!r} "
                        f"({coll.store.url})")
    for col in ("doc_id", "title", "chunks", "source", "ingested at"):
        table.add_column(col, justify="right" if col == "chunks" else "left",
                         overflow="fold")
    for d in docs:
        table.add_row(escape(d["doc_id"]), escape(d["title"]), str(d["chunks"]),
                      escape(d["source_path"] or d["source"]), d["ingested_at"])
    out.print(table)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    """One document: what the store records about it, then its chunks in order."""
    coll = existing_collection(settings_of(args))
    try:
        record = coll.store.get_document(coll.name, args.doc_id)
        chunks = coll.store.document_chunks(coll.name, args.doc_id) if record else []
    finally:
        coll.close()
    if record is None:
        raise UsageError(f"no document {args.doc_id!r} in collection {coll.name!r} "
                         "(`ragd list` shows what it holds)")
    if args.json:
        out.print_json(data={**_document(record, len(chunks)),
                             "chunk_list": [_chunk(s.chunk) for s in chunks]})
        return 0
    out.print(f"[bold]{escape(record.doc_id)}[/]  {escape(record.title)}")
    out.print(f"source {escape(record.source_path or record.source)} · ingested "
              f"{record.ingested_at} · version {record.version} · {len(chunks)} chunks")
    for stored in chunks:
        c = stored.chunk
        where = " · ".join(w for w in (c.section_id or "", c.context) if w)
        out.print(f"[bold]#{c.chunk_index}[/] [dim]{escape(where)}[/]")
        out.print(f"   {escape(' '.join(c.text.split()))}")
    return 0


def _chunk(c: Any) -> dict[str, Any]:
    return {"chunk_index": c.chunk_index, "chunk_id": c.chunk_id, "section_id": c.section_id,
            "context": c.context, "text": c.text, "tags": list(c.tags),
            "metadata": dict(c.metadata), "tokens": c.tokens}


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


def cmd_export(args: argparse.Namespace) -> int:
    """The collection's chunk manifest (R1's index.json under legal-in) to a file or stdout."""
    import json

    from ..ingest.manifest import manifest

    coll = existing_collection(settings_of(args))
    try:
        data = manifest(coll)
    finally:
        coll.close()
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if args.manifest == "-":
        out.file.write(text)
        return 0
    with open(args.manifest, "w", encoding="utf-8") as handle:
        handle.write(text)
    out.print(f"{data['chunk_count']} chunks of collection {coll.name!r} "
              f"(profile {coll.profile.name!r}) written to {escape(args.manifest)}")
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("stats", parents=[common], help="what the store holds")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("list", parents=[common], help="the documents a collection holds "
                       "(doc_id, title, chunks, source, ingested at)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", parents=[common], help="one document and its chunks")
    p.add_argument("doc_id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", parents=[common],
                       help="write the collection's chunk manifest (chunk_id, doc_id and the "
                            "profile's manifest_fields per chunk)")
    p.add_argument("--manifest", required=True, metavar="FILE",
                   help="where to write it (index.json; '-' for stdout)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("delete", parents=[common], help="remove a document and its chunks")
    p.add_argument("doc_id")
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("store", help="manage a store")
    store_sub = p.add_subparsers(dest="store_command", required=True, metavar="COMMAND")
    p = store_sub.add_parser("init", parents=[common],
                             help="create or migrate a store's schema (SQLite or PostgreSQL)")
    p.set_defaults(func=cmd_store_init)
