"""The ``ragd`` command: a thin adapter over the library.

Errors print one line on stderr and exit 2 (usage or input) or 1 (runtime);
set ``RAGD_DEBUG=1`` for tracebacks.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import __version__
from .cli_conformance import add_conformance_commands
from .cli_corpus import add_corpus_commands
from .cli_eval import add_eval_commands
from .collection import open_collection
from .config import Settings, load_settings
from .errors import RagdError, UsageError
from .ingest.loaders import LoadOptions
from .ingest.pipeline import IngestReport, ingest
from .retrieval import compress, retrieve
from .retrieval.citations import citation
from .stores import open_store
from .types import MODES, FUSION_METHODS, Candidate, Plan

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def parse_meta(items: Sequence[str] | None) -> dict[str, Any]:
    """``k=v`` pairs; a value that parses as a JSON scalar (2, true, null) is typed, else text."""
    meta: dict[str, Any] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--meta expects key=value, got {item!r}")
        try:
            value = json.loads(raw)
            if isinstance(value, (dict, list)):
                value = raw
        except ValueError:
            value = raw
        meta[key.strip()] = value
    return meta


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings({"store": args.store, "collection": args.collection,
                          "embedder": getattr(args, "embedder", None)})


def _existing_store(settings: Settings):
    location = settings.store_location
    if "://" not in location and not Path(location).exists():
        raise UsageError(f"no ragd store at {location}; run `ragd ingest PATH` first "
                         "(or name one with --store)")
    return open_store(location)


# -- commands ----------------------------------------------------------------------------
def cmd_ingest(args: argparse.Namespace) -> int:
    settings = _settings(args)
    max_bytes = (int(args.max_document_mb * 1024 * 1024) if args.max_document_mb
                 else settings.max_document_bytes)
    options = LoadOptions(include=tuple(args.include or ()), exclude=tuple(args.exclude or ()),
                          max_document_bytes=max_bytes, tags=tuple(args.tag or ()),
                          metadata=parse_meta(args.meta))
    for path in args.paths:
        if not Path(path).exists():
            raise UsageError(f"no such file or directory: {path}")
    coll = open_collection(settings.store_location, settings.collection,
                           settings.embedder if args.embedder else None, create=True)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task("ingesting", total=None)

        def update(report: IngestReport) -> None:
            progress.update(task, description=(
                f"ingesting: {report.documents} documents, {report.embedded} chunks embedded"))

        report = ingest(args.paths, coll, options=options, policy=settings.chunking,
                        on_progress=update)
    coll.close()
    if args.json:
        out.print_json(data=report.as_dict())
    else:
        for failure in report.failures:
            err.print(f"[yellow]skipped[/] {escape(failure.source)}: {escape(failure.reason)}")
        out.print(f"{report.documents} documents: {report.new} new, {report.changed} changed, "
                  f"{report.unchanged} unchanged, {report.failed} failed; "
                  f"{report.chunks} chunks written in {report.seconds:.1f} s "
                  f"(collection {coll.name!r}, store {coll.store.url})")
    return 0


def _plan(args: argparse.Namespace, settings: Settings) -> Plan:
    return Plan(k=args.k or settings.k, mode=args.mode or settings.mode,
                fusion=args.fusion or settings.fusion, tags_any=tuple(args.tag or ()),
                tags_all=tuple(args.all_tags or ()), metadata=parse_meta(args.meta))


def print_results(query: str, results: Sequence[Candidate]) -> None:
    """Ranked passages with doc id, chunk index, scores and a snippet around the query."""
    if not results:
        out.print("no results")
        return
    snippets = {(s["doc_id"], s["chunk_index"]): s["text"]
                for s in compress(query, results, {"window": 0, "max_chars": 320})}
    for c in results:
        parts = [f"score {c.score:.4f}"]
        if c.vector_rank is not None:
            parts.append(f"vector {c.vector_score:.3f} #{c.vector_rank}")
        if c.lexical_rank is not None:
            parts.append(f"lexical {c.lexical_score:.3f} #{c.lexical_rank}")
        if c.pinned:
            parts.append("named section")
        out.print(f"[bold]{c.rank}.[/] [cyan]{escape(c.doc_id)}[/] #{c.chunk_index}  "
                  f"[dim]{escape(', '.join(parts))}[/]")
        cite = citation(c)
        where = " · ".join(dict.fromkeys(w for w in (cite, c.context or c.title) if w))
        if where:
            out.print(f"   [green]{escape(where)}[/]")
        out.print(f"   {escape(' '.join(snippets.get(c.key, c.text[:320]).split()))}")


def cmd_search(args: argparse.Namespace) -> int:
    settings = _settings(args)
    plan = _plan(args, settings)
    store = _existing_store(settings)
    coll = open_collection(store, settings.collection)
    results = retrieve(args.query, plan, coll)
    coll.close()
    if args.json:
        out.print_json(data={"query": args.query, "plan": {"k": plan.k, "mode": plan.mode,
                                                           "fusion": plan.fusion},
                             "results": [{**c.as_dict(), "citation": citation(c)}
                                         for c in results]})
    else:
        print_results(args.query, results)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = _existing_store(settings)
    names = [c.name for c in store.list_collections()]
    if args.collection and args.collection not in names:
        open_collection(store, args.collection)  # raises UnknownCollectionError with the list
    stats = [store.stats(n) for n in names if not args.collection or n == args.collection]
    store.close()
    if args.json:
        out.print_json(data={"store": store.url, "collections": stats})
        return 0
    if not stats:
        out.print(f"store {store.url} holds no collections yet")
        return 0
    table = Table(title=f"ragd store {store.url}")
    for col in ("collection", "documents", "chunks", "tokens", "embed model", "dims", "size"):
        table.add_column(col, justify="right" if col not in ("collection", "embed model") else "left")
    for s in stats:
        table.add_row(s["collection"], str(s["documents"]), str(s["chunks"]), str(s["tokens"]),
                      s["embed_model"], str(s["embed_dims"]), f"{s['bytes'] / 1e6:.1f} MB")
    out.print(table)
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    settings = _settings(args)
    store = _existing_store(settings)
    coll = open_collection(store, settings.collection)
    found = store.delete_document(coll.name, args.doc_id)
    store.close()
    if not found:
        raise UsageError(f"no document {args.doc_id!r} in collection {coll.name!r}")
    out.print(f"deleted {args.doc_id} from collection {coll.name!r}")
    return 0


def cmd_store_init(args: argparse.Namespace) -> int:
    """Apply the schema and its migrations; print what the store now is."""
    location = _settings(args).store_location
    if location.split("://", 1)[0].lower() in ("postgresql", "postgres"):
        from .stores.postgres import init_store

        out.print(init_store(location))
        return 0
    store = open_store(location)
    store.close()
    out.print(f"SQLite store {store.url} is ready")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(out, err)


# -- parser ------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", help="store location: a directory, a .sqlite file "
                        "(default: $RAGD_HOME or ./.ragd)")
    common.add_argument("--collection", help="collection name (default: default)")
    parser = argparse.ArgumentParser(prog="ragd", description=__doc__.splitlines()[0],
                                     parents=[common])
    parser.add_argument("--version", action="version", version=f"ragd {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("ingest", parents=[common], help="load, chunk, embed and store documents")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    p.add_argument("--tag", action="append", help="tag every document (repeatable)")
    p.add_argument("--meta", action="append", metavar="K=V", help="metadata for every document")
    p.add_argument("--include", action="append", metavar="GLOB", help="only matching files")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip matching files")
    p.add_argument("--embedder", help="embedder of a new collection (minilm, toy, openai)")
    p.add_argument("--max-document-mb", type=float, help="refuse larger files (default 16)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("search", parents=[common], help="ranked passages for a query")
    p.add_argument("query")
    p.add_argument("-k", type=int, help="number of results (default 12)")
    p.add_argument("--mode", choices=MODES, help="vector, lexical or hybrid (default)")
    p.add_argument("--fusion", choices=FUSION_METHODS, help="hybrid fusion (default rrf)")
    p.add_argument("--tag", action="append", help="keep chunks with any of these tags")
    p.add_argument("--all-tags", action="append", metavar="TAG",
                   help="keep chunks with all of these tags")
    p.add_argument("--meta", action="append", metavar="K=V", help="metadata equality filter")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("stats", parents=[common], help="what the store holds")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("delete", parents=[common], help="remove a document and its chunks")
    p.add_argument("doc_id")
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("demo", help="ingest a bundled sample corpus and run example searches")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("store", help="manage a store")
    store_sub = p.add_subparsers(dest="store_command", required=True, metavar="COMMAND")
    p = store_sub.add_parser("init", parents=[common],
                             help="create or migrate a store's schema (SQLite or PostgreSQL)")
    p.set_defaults(func=cmd_store_init)

    add_corpus_commands(sub, common)
    add_eval_commands(sub, common)
    add_conformance_commands(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RagdError as exc:
        if os.environ.get("RAGD_DEBUG"):
            raise
        err.print(f"ragd: error: {escape(str(exc))}")
        return exc.exit_code
    except OSError as exc:
        if os.environ.get("RAGD_DEBUG"):
            raise
        err.print(f"ragd: error: {escape(str(exc))}")
        return 1
    except KeyboardInterrupt:
        err.print("ragd: interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
