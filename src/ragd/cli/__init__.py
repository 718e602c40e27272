"""The ragd command: a thin adapter over the library, one module per command group.

Errors print one line on stderr and exit 2 (usage or input) or 1 (runtime);
set ``RAGD_DEBUG=1`` for tracebacks. ``--store``, ``--collection`` and
``--profile`` parse the same before or after the command.
"""

from __future__ import annotations

import argparse
import os
from typing import Sequence

from rich.markup import escape

from .. import __version__
from ..errors import RagdError
from . import ask, calibrate, conformance, corpus, demo, eval as eval_, ingest, mcp, \
    profiles, search, serve, store, verify
from .common import err, shared_options

GROUPS = (ingest, search, ask, verify, store, profiles, calibrate, demo, corpus, eval_,
          conformance, serve, mcp)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ragd", description=__doc__.splitlines()[0],
                                     parents=[shared_options(top=True)])
    parser.add_argument("--version", action="version", version=f"ragd {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    common = shared_options(top=False)
    for group in GROUPS:
        group.add_commands(sub, common)
    return parser


def _debug() -> bool:
    return os.environ.get("RAGD_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except RagdError as exc:
        if _debug():
            raise
        err.print(f"ragd: error: {escape(str(exc))}")
        return exc.exit_code
    except OSError as exc:
        if _debug():
            raise
        err.print(f"ragd: error: {escape(str(exc))}")
        return 1
    except KeyboardInterrupt:
        err.print("ragd: interrupted")
        return 130


__all__ = ["build_parser", "main"]
