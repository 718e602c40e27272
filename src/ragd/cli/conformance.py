"""The ``ragd conformance`` command group: check a backend against the golden suite.

``run`` exits 0 when every case matches its golden, 1 when any differs (each
failure printed with a unified diff), 2 for a usage mistake (no such suite, goldens
pinned to another spec version). ``update`` rewrites the goldens from what the
engine does now, and says which changed: the only way goldens change.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.markup import escape

from .common import out

STORE_HELP = ("a store to run against: a directory, a .sqlite file or a postgresql:// URL; "
              "the run uses two fresh collections in it and drops them (default: two "
              "temporary SQLite stores)")


def _diff_line(line: str) -> str:
    style = ("bold" if line.startswith(("---", "+++")) else "cyan" if line.startswith("@@")
             else "red" if line.startswith("-") else "green" if line.startswith("+") else "")
    return f"[{style}]{escape(line)}[/]" if style else escape(line)


def print_run(report: Any) -> None:
    """PASS/FAIL per case; under each failure its reason and the diff; then a summary."""
    out.print(f"ragd conformance, spec {report.spec_version}: suite {escape(report.suite)}")
    out.print(f"store: {escape(report.store)} (backend {escape(report.backend)})")
    for result in report.results:
        if result.ok:
            out.print(f"[green]PASS[/] {escape(result.name)}")
            continue
        out.print(f"[bold red]FAIL[/] {escape(result.name)}"
                  + (f": {escape(result.message)}" if result.message else ""))
        for line in result.diff():
            out.print("    " + _diff_line(line))
    failed = len(report.failed)
    total = len(report.results)
    summary = f"{total} cases: {total - failed} passed, {failed} failed"
    if not failed:
        out.print(f"[bold green]{summary}[/]")
        return
    out.print(f"[bold red]{summary}[/]: {escape(', '.join(r.name for r in report.failed))}")


def cmd_conformance_run(args: argparse.Namespace) -> int:
    from ..conformance import load_suite, run_suite

    report = run_suite(load_suite(args.suite), getattr(args, "store", None))
    if args.json:
        out.print_json(data=report.as_dict())
    else:
        print_run(report)
    return 0 if report.ok else 1


def cmd_conformance_update(args: argparse.Namespace) -> int:
    from ..conformance import update_goldens
    from ..conformance.suite import default_suite_dir

    report, changes = update_goldens(args.suite, getattr(args, "store", None))
    folder = args.suite or str(default_suite_dir())
    if args.json:
        out.print_json(data={"suite": folder, "store": report.store, "backend": report.backend,
                             "changes": [{"golden": c.name, "change": c.change,
                                          "diff": list(c.diff)} for c in changes]})
        return 0
    for change in changes:
        out.print(f"[yellow]{escape(change.change)}[/] {escape(change.name)}")
        for line in change.diff:
            out.print("    " + _diff_line(line))
    total = sum(len(cases) for cases in report.outputs.values())
    counts = {kind: sum(1 for c in changes if c.change == kind)
              for kind in ("added", "changed", "removed")}
    if not changes:
        out.print(f"goldens in {escape(folder)}/goldens are up to date ({total} cases)")
    else:
        out.print(f"goldens in {escape(folder)}/goldens rewritten: " + ", ".join(
            f"{n} {kind}" for kind, n in counts.items()) + f" (of {total} cases)")
    return 0


def add_commands(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Register ``ragd conformance run|update`` under the CLI's subparsers."""
    group = subparsers.add_parser(
        "conformance", help="check a backend against the golden conformance suite",
        description="The conformance suite of the canonical spec: chunking, fusion, "
        "retrieval and deterministic-ingest cases with golden outputs.")
    sub = group.add_subparsers(dest="conformance_command", required=True, metavar="SUBCOMMAND")
    for name, func, text in (
            ("run", cmd_conformance_run,
             "run every case and show what differs from the goldens (exit 1 if any)"),
            ("update", cmd_conformance_update,
             "rewrite the goldens from what the engine does now, and say what changed")):
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--store", default=argparse.SUPPRESS, help=STORE_HELP)
        p.add_argument("--suite", metavar="DIR",
                       help="a suite folder (default: the suite bundled for this spec version)")
        p.add_argument("--json", action="store_true", help="print the outcome as JSON")
        p.set_defaults(func=func)
