"""The ``ragd corpus`` command group: validate, build and export retrieval-corpus.v1 files.

``validate`` exits 0 when the corpus is valid and 1 when it is not (that is
its contract, for scripts and CI); a usage mistake (missing file) exits 2.
``build --profile ear`` turns eCFR text into a corpus; ``export`` writes a
collection ingested from a corpus back as one.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from .common import err, out, settings_of

from ..collection import open_collection
from ..corpus import ValidationReport, validate_corpus
from ..citing.cfr_ids import EAR_PARTS
from ..corpus.build import build_corpus
from ..errors import UsageError
from ..corpus.export import export_corpus
from ..stores import open_store

PROFILES = ("ear",)



def _max_errors(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def summary_line(report: ValidationReport) -> str:
    """``FILE: N documents, valid|M errors (by rule), T s``."""
    verdict = "valid" if report.valid else (
        f"INVALID: {report.errors_total:,} error{'s' if report.errors_total != 1 else ''} ("
        + ", ".join(f"{rule} {n:,}" for rule, n in sorted(report.errors_by_rule.items())) + ")")
    return f"{report.source}: {report.documents:,} documents, {verdict}, {report.seconds:.2f} s"


def print_report(report: ValidationReport, console: Console = out) -> None:
    """Errors as ``FILE:LINE: doc_id field: [rule] message``, then the summary line."""
    for error in report.errors:
        console.print(error.format(report.source), markup=False)
    if report.truncated:
        console.print(f"... {report.errors_total - len(report.errors):,} more errors not listed "
                      f"(--max-errors {report.errors_total} lists them all)", markup=False)
    console.print(summary_line(report), markup=False,
                  style="green" if report.valid else "bold red")


def cmd_validate(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.exists():
        raise UsageError(f"no such file: {args.file}")
    if path.is_dir():
        raise UsageError(f"{args.file} is a directory, not a corpus file")
    report = validate_corpus(args.file, max_errors=args.max_errors)
    if args.json:
        out.print_json(data=report.as_dict())
    else:
        print_report(report)
    return 0 if report.valid else 1


def cmd_build(args: argparse.Namespace) -> int:
    for path in args.sources:
        if not Path(path).exists():
            raise UsageError(f"no such file or directory: {path}")
    report = build_corpus([Path(p) for p in args.sources], Path(args.output),
                          source_ref=args.source_ref,
                          parts=None if args.all_parts else EAR_PARTS)
    shown = report.issues if args.notes else report.issues[:5]
    for issue in shown:
        err.print(f"note: {issue}", markup=False)
    if len(shown) < len(report.issues):
        err.print(f"note: {len(report.issues) - len(shown)} more notes on irregular source text "
                  "(--notes lists them all)", markup=False)
    out.print(f"wrote {report.documents:,} documents to {escape(str(report.out))}: "
              f"{report.sections:,} sections, {report.subsections:,} subsections, "
              f"{report.paragraphs:,} paragraphs in {report.seconds:.1f} s")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    location = settings.store_location
    if "://" not in location and not Path(location).exists():
        raise UsageError(f"no ragd store at {location}")
    coll = open_collection(open_store(location), settings.collection,
                           profile=settings.profile or None)
    try:
        count = export_corpus(coll, Path(args.output))
    finally:
        coll.close()
    out.print(f"exported {count:,} documents of collection {coll.name!r} to "
              f"{escape(str(args.output))}")
    return 0


def add_commands(subparsers: Any, common_parent: argparse.ArgumentParser | None = None
                 ) -> Any:
    """Register ``corpus`` (and ``corpus validate``) on ``ragd``'s subparsers; returns the
    group's subparsers for further commands. ``common_parent`` (--store, --collection) is
    given to the group, for the commands that need a store; ``validate`` needs none."""
    parents = [common_parent] if common_parent is not None else []
    group = subparsers.add_parser("corpus", parents=parents,
                                  help="retrieval-corpus.v1 files: validate (and more)",
                                  description="retrieval-corpus.v1 JSONL corpora")
    corpus_sub = group.add_subparsers(dest="corpus_command", required=True, metavar="COMMAND")
    p = corpus_sub.add_parser(
        "validate", help="check a corpus file against retrieval-corpus.v1",
        description="Check every document of a retrieval-corpus.v1 JSONL file (.jsonl or "
                    ".jsonl.gz). Exit 0 valid, 1 invalid, 2 usage error.")
    p.add_argument("file", metavar="FILE", help="the corpus (.jsonl or .jsonl.gz)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--max-errors", type=_max_errors, default=100, metavar="N",
                   help="list at most N errors (default 100; all are counted)")
    p.set_defaults(func=cmd_validate)

    p = corpus_sub.add_parser(
        "build", help="build a corpus from eCFR section text",
        description="Chunk eCFR-style Markdown or JSONL section snapshots into a "
                    "retrieval-corpus.v1 file: one section document, subsection documents for "
                    "its lettered paragraphs, paragraph documents below. Byte-identical output "
                    "for the same input.")
    p.add_argument("--profile", choices=PROFILES, default=argparse.SUPPRESS,
                   help="corpus profile (ear, the only one that builds corpora)")
    p.add_argument("sources", nargs="+", metavar="SRC", help="eCFR Markdown/JSONL files or folders")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="corpus file to write")
    p.add_argument("--source-ref", help="provenance string (default: derived from the input hash)")
    p.add_argument("--notes", action="store_true",
                   help="list every note on irregular source text (default: the first 5)")
    p.add_argument("--all-parts", action="store_true",
                   help="keep every part, not only the EAR's (730-774)")
    p.set_defaults(func=cmd_build)

    p = corpus_sub.add_parser("export", parents=parents,
                              help="write a collection back as a retrieval-corpus.v1 file")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="corpus file to write")
    p.set_defaults(func=cmd_export)
    return corpus_sub
