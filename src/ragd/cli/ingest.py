"""``ragd ingest``: load, chunk, embed and store documents under a collection's profile."""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from rich.markup import escape
from rich.progress import (BarColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from ..collection import open_collection
from ..errors import ConfigError, UnknownCollectionError, UsageError
from ..ingest.base import reason_name
from ..ingest.corpus_v1 import declares_corpus_file
from ..ingest.loaders import LoadOptions
from ..ingest.pipeline import IngestReport, ingest
from ..ingest.progress import ProgressLines, describe
from ..ingest.prune import prune, stale_documents
from ..service.ops import ingest_json
from ..stores import ReadOnlyStoreError, open_store
from .common import embedder_of, err, megabytes_arg, out, parse_meta, settings_of

EXIT_CODES = """exit codes: 0 every document found was loaded (files of a type ragd does not
read are listed, not failures); 1 a document failed (the others are stored), nothing was
found to load, or the store failed; 2 a usage or input mistake (bad option, missing path,
model or profile mismatch). Progress goes to stderr: a bar on a terminal, else a line every
10 s ($RAGD_PROGRESS_SECONDS); -q silences it."""


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


def _interval() -> float:
    text = os.environ.get("RAGD_PROGRESS_SECONDS", "").strip()
    try:
        return max(0.0, float(text)) if text else 10.0
    except ValueError:
        raise ConfigError(f"RAGD_PROGRESS_SECONDS must be a number of seconds, "
                          f"got {text!r}") from None


@contextmanager
def _progress(quiet: bool) -> Iterator[Any]:
    """The run's progress callback: a live bar on a terminal, else a line to stderr every
    ~10 s; nothing with ``-q``."""
    if quiet:
        yield None
        return
    if not err.is_terminal:
        yield ProgressLines(sys.stderr, _interval())
        return
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               TimeElapsedColumn(), TextColumn("elapsed,"), TimeRemainingColumn(),
               TextColumn("left"))
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("ingesting", total=None)
        clock = bar.get_time
        started = clock()

        def update(report: IngestReport) -> None:
            bar.update(task, total=report.bytes_total or None, completed=report.bytes_done,
                       description="ingesting: " + describe(report, clock() - started,
                                                            time_left=False))

        yield update


def _summary(report: IngestReport, coll: Any) -> None:
    for failure in report.skipped:
        err.print(f"[yellow]skipped[/] ({escape(reason_name(failure.code))}) "
                  f"{escape(failure.source)}: {escape(failure.reason)}")
    for failure in report.failures:
        err.print(f"[red]failed[/] ({escape(reason_name(failure.code))}) "
                  f"{escape(failure.source)}: {escape(failure.reason)}")
    for warning in report.warnings:
        err.print(f"[yellow]warning[/] {escape(warning)}")
    out.print(f"{report.documents} documents: {report.new} new, {report.changed} changed, "
              f"{report.unchanged} unchanged, {report.failed} failed; "
              f"{report.chunks} chunks written in {report.seconds:.1f} s "
              f"(collection {coll.name!r}, profile {coll.profile.name!r}, "
              f"store {coll.store.url})")
    reasons = report.by_reason()
    if reasons:
        out.print(f"not loaded: {len(report.skipped) + len(report.failures)} "
                  f"({', '.join(f'{reason} {n}' for reason, n in reasons.items())})")
    if report.pruned:
        out.print(f"pruned {len(report.pruned)} documents whose file is gone: "
                  f"{escape(', '.join(report.pruned))}")
    if report.documents == 0 and not report.pruned:
        err.print("ragd: nothing was loaded: no document found to ingest")


def _dry_run(args: argparse.Namespace, settings: Any, store: Any) -> int:
    """``--prune --dry-run``: list what would be pruned; change nothing."""
    try:
        coll = open_collection(store, settings.collection, profile=settings.profile or None)
    except UnknownCollectionError:
        store.close()
        out.print("would prune nothing (the collection does not exist yet)")
        return 0
    stale = [d.doc_id for d in stale_documents(args.paths, coll)]
    coll.close()
    if args.json:
        out.print_json(data={"dry_run": True, "would_prune": stale})
    else:
        out.print(f"would prune {len(stale)} documents whose file is gone"
                  + (f": {escape(', '.join(stale))}" if stale else ""))
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    max_bytes = args.max_document_mb or settings.max_document_bytes
    for path in args.paths:
        if not Path(path).exists():
            raise UsageError(f"no such file or directory: {path}")
    if args.dry_run and not args.prune:
        raise UsageError("--dry-run goes with --prune (it lists what would be pruned)")
    # none named (flag, $RAGD_EMBEDDER, ragd.toml): a new collection gets its profile's
    embedder = embedder_of(settings.embedder) if settings.embedder else None
    location = settings.store_location
    if args.dry_run and "://" not in location and not Path(location).exists():
        out.print(f"would prune nothing (no store at {location} yet)")
        return 0
    store = open_store(location)
    if store.read_only:
        store.close()
        raise ReadOnlyStoreError(f"cannot ingest into store {store.url}: it is read-only "
                                 f"({store.read_only}); searches still work")
    if args.dry_run:
        return _dry_run(args, settings, store)
    try:
        store.get_collection(settings.collection)
        profile = settings.profile or None
    except UnknownCollectionError:
        profile = _profile_for_new(settings, args.paths)
    coll = open_collection(store, settings.collection, embedder, create=True, profile=profile)
    prof = coll.profile.ingest
    options = LoadOptions(include=tuple(args.include or prof.get("include", ())),
                          exclude=tuple(args.exclude or prof.get("exclude", ())),
                          max_document_bytes=max_bytes, tags=tuple(args.tag or ()),
                          metadata=parse_meta(args.meta), id_prefix=args.id_prefix or "")
    try:
        with _progress(args.quiet) as update:
            report = ingest(args.paths, coll, options=options, policy=settings.chunking,
                            on_progress=update, replace_others=args.replace)
        if args.prune:
            report.pruned = prune(args.paths, coll)
    finally:
        coll.close()
    if args.json:
        out.print_json(data=ingest_json(report, coll))
    else:
        _summary(report, coll)
    return report.exit_code


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ingest", parents=[common], help="load, chunk, embed and store documents",
                       epilog=EXIT_CODES)
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    p.add_argument("--tag", action="append", help="tag every document (repeatable)")
    p.add_argument("--meta", action="append", metavar="K=V", help="metadata for every document")
    p.add_argument("--include", action="append", metavar="GLOB", help="only matching files")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip matching files")
    p.add_argument("--embedder", help="embedder of a new collection (default: its profile's "
                   "[embedding] model): minilm, bge-small, openai, or a JSON spec such as '{\"kind\": \"toy\", \"vocabulary\": [...]}'")
    p.add_argument("--max-document-mb", type=megabytes_arg, metavar="MB",
                   help="refuse larger files (a number over 0; default 16)")
    p.add_argument("--id-prefix", metavar="PREFIX",
                   help="put PREFIX before every doc_id of this run (to ingest a second tree "
                        "whose relative paths are already taken by other files)")
    p.add_argument("--replace", action="store_true",
                   help="a file whose doc_id is stored from another file replaces it "
                        "(refused otherwise)")
    p.add_argument("--prune", action="store_true",
                   help="after loading, remove the documents recorded under these "
                        "directories whose file is gone")
    p.add_argument("--dry-run", action="store_true",
                   help="with --prune: list what would be pruned, change nothing")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (the "
                   "profile's form: a report, or the rules contract's IngestionResult)")
    p.set_defaults(func=cmd_ingest)
