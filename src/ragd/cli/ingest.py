"""``ragd ingest``: load, chunk, embed and store documents under a collection's profile."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from ..collection import open_collection
from ..ingest.corpus_v1 import declares_corpus_file
from ..errors import UsageError
from ..ingest.loaders import LoadOptions
from ..ingest.pipeline import IngestReport, ingest
from ..service.ops import ingest_json
from .common import err, out, parse_meta, settings_of


def _profile_for_new(settings: Any, paths: list[str]) -> str | None:
    """The profile of a collection about to be created: the one asked for; else ``ear`` when
    every input is a retrieval-corpus.v1 file (said on stderr); else the default."""
    if settings.profile:
        return settings.profile
    files = [Path(p) for p in paths]
    if files and all(f.is_file() and declares_corpus_file(f) for f in files):
        err.print("profile: ear (the input is a retrieval-corpus.v1 corpus; pass --profile to "
                  "choose another)")
        return "ear"
    return None


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    max_bytes = (int(args.max_document_mb * 1024 * 1024) if args.max_document_mb
                 else settings.max_document_bytes)
    for path in args.paths:
        if not Path(path).exists():
            raise UsageError(f"no such file or directory: {path}")
    from ..stores import open_store

    store = open_store(settings.store_location)
    try:
        store.get_collection(settings.collection)
        profile = settings.profile or None
    except Exception:  # noqa: BLE001 - a new collection (UnknownCollectionError)
        profile = _profile_for_new(settings, args.paths)
    coll = open_collection(store, settings.collection,
                           settings.embedder if args.embedder else None, create=True,
                           profile=profile)
    prof = coll.profile.ingest
    options = LoadOptions(include=tuple(args.include or prof.get("include", ())),
                          exclude=tuple(args.exclude or prof.get("exclude", ())),
                          max_document_bytes=max_bytes, tags=tuple(args.tag or ()),
                          metadata=parse_meta(args.meta))
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
        out.print_json(data=ingest_json(report, coll))
    else:
        for failure in report.failures:
            err.print(f"[yellow]skipped[/] {escape(failure.source)}: {escape(failure.reason)}")
        for warning in report.warnings:
            err.print(f"[yellow]warning[/] {escape(warning)}")
        out.print(f"{report.documents} documents: {report.new} new, {report.changed} changed, "
                  f"{report.unchanged} unchanged, {report.failed} failed; "
                  f"{report.chunks} chunks written in {report.seconds:.1f} s "
                  f"(collection {coll.name!r}, profile {coll.profile.name!r}, "
                  f"store {coll.store.url})")
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ingest", parents=[common], help="load, chunk, embed and store documents")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    p.add_argument("--tag", action="append", help="tag every document (repeatable)")
    p.add_argument("--meta", action="append", metavar="K=V", help="metadata for every document")
    p.add_argument("--include", action="append", metavar="GLOB", help="only matching files")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip matching files")
    p.add_argument("--embedder", help="embedder of a new collection (minilm, toy, openai)")
    p.add_argument("--max-document-mb", type=float, help="refuse larger files (default 16)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (the "
                   "profile's form: a report, or the rules contract's IngestionResult)")
    p.set_defaults(func=cmd_ingest)
