"""``ragd demo``: ingest a bundled sample corpus and run example searches."""

from __future__ import annotations

import argparse
from typing import Any

from .common import err, out


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    return run_demo(out, err)


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("demo", help="ingest a bundled sample corpus and run example searches")
    p.set_defaults(func=cmd_demo)
