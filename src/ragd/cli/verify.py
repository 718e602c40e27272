"""``ragd verify``: check an answer produced elsewhere against the collection, sentence by
sentence (exit 1 if any sentence is unsupported or cites nothing stored)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.markup import escape

from ..answer.verify import SUPPORTED, verify
from ..errors import InvalidDocumentError, UsageError
from .common import existing_collection, out, settings_of


def cmd_verify(args: argparse.Namespace) -> int:
    source = args.file or "stdin"
    try:
        text = sys.stdin.read() if args.file in (None, "-") else open(
            args.file, encoding="utf-8").read()
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc}") from None
    try:
        payload = json.loads(text)
    except ValueError as exc:
        raise InvalidDocumentError(f"not JSON: {exc}", source=source) from None
    coll = existing_collection(settings_of(args))
    try:
        verdicts = verify(payload, coll, source)
    finally:
        coll.close()
    if args.json:
        out.print_json(data={"sentences": [v.to_dict() for v in verdicts],
                             "ok": all(v.status == SUPPORTED for v in verdicts)})
    else:
        for i, v in enumerate(verdicts, start=1):
            style = "green" if v.status == SUPPORTED else "red"
            out.print(f"{i}. [{style}]{v.status}[/] {escape(v.sentence[:160])}"
                      + (f" [dim]({escape(v.reason)})[/]" if v.reason else ""))
    return 0 if all(v.status == SUPPORTED for v in verdicts) else 1


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("verify", parents=[common],
                       help="check an answer made elsewhere: is each sentence supported by "
                            "its citations?",
                       description='Reads {"question", "answer_sentences": [{"sentence", '
                       '"citations"}]} from FILE or stdin and prints, per sentence, supported, '
                       "unsupported or unknown_citation. Exit 0 when every sentence is "
                       "supported, 1 otherwise, 2 for bad input.")
    p.add_argument("file", nargs="?", metavar="FILE", help="the answer JSON (default stdin)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_verify)
