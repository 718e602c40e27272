"""``ragd calibrate``: sweep a profile's relevance threshold over labelled questions and
write the best into a copy of the profile."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from ..errors import UsageError
from ..evaluation.calibrate import best, load_labelled, score_questions, sweep, thresholds
from ..profiles import BUILTIN
from ..profiles.toml_text import to_toml
from .common import existing_collection, out, settings_of


def cmd_calibrate(args: argparse.Namespace) -> int:
    if not Path(args.labelled).is_file():
        raise UsageError(f"no such file: {args.labelled}")
    questions = load_labelled(args.labelled)
    coll = existing_collection(settings_of(args))
    profile = coll.profile
    r = profile.retrieval
    if r["threshold_rule"] == "none":
        raise UsageError(f"profile {profile.name!r} has no threshold to calibrate "
                         "(retrieval.threshold_rule is 'none')")
    try:
        scored = score_questions(coll, questions)
    finally:
        coll.close()
    rows = sweep(questions, scored, int(r["k"]), r["threshold_rule"], thresholds(args.step))
    chosen = best(rows)
    current = next((row for row in rows if abs(row.threshold - r["min_relevance"]) < 1e-9),
                   None)
    target = Path(args.out or f"{profile.name}-calibrated.toml")
    copy = {"name": profile.name,
            "extends": profile.name if profile.source == BUILTIN else profile.source,
            "description": profile.description,
            "retrieval": {"min_relevance": chosen.threshold},
            "calibration": {"model": coll.embedder.name,
                            "reference": f"ragd calibrate on {Path(args.labelled).name}: "
                                         f"{chosen.correct_accept}/{chosen.answerable} answerable "
                                         f"accepted, {chosen.correct_reject}/"
                                         f"{chosen.unanswerable} unanswerable rejected"}}
    target.write_text(f"# {profile.name} calibrated for {coll.embedder.name} by ragd calibrate\n"
                      + to_toml(copy), "utf-8")
    if args.json:
        out.print_json(data={"profile": profile.name, "model": coll.embedder.name,
                             "rule": r["threshold_rule"], "best": chosen.as_dict(),
                             "current": current.as_dict() if current else None,
                             "rows": [row.as_dict() for row in rows], "written": str(target)})
        return 0
    table = Table(title=f"{profile.name}: threshold sweep on {len(questions)} questions "
                        f"({coll.embedder.name}, rule {r['threshold_rule']})")
    for col in ("min_relevance", "correct accept", "correct reject", "balanced accuracy"):
        table.add_column(col, justify="right")
    for row in rows:
        if row is chosen or row is current or round(row.threshold * 100) % 5 == 0:
            mark = " ← best" if row is chosen else (" ← current" if row is current else "")
            table.add_row(f"{row.threshold:.2f}{mark}",
                          f"{row.correct_accept}/{row.answerable}",
                          f"{row.correct_reject}/{row.unanswerable}", f"{row.balanced:.3f}")
    out.print(table)
    out.print(f"best min_relevance {chosen.threshold:.2f} (balanced accuracy "
              f"{chosen.balanced:.3f}); wrote {escape(str(target))}: use it with "
              f"--profile {escape(str(target))}")
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("calibrate", parents=[common],
                       help="calibrate a profile's relevance threshold on labelled questions",
                       description="Sweep the threshold over questions labelled answerable "
                       "(with the document that answers) or not; print correct accepts and "
                       "rejects per value; write the best into a copy of the profile.")
    p.add_argument("labelled", metavar="LABELLED.jsonl",
                   help='lines {"id", "question", "answerable", "expected_doc"?}')
    p.add_argument("--out", metavar="FILE.toml",
                   help="where the calibrated copy goes (default NAME-calibrated.toml)")
    p.add_argument("--step", type=float, default=0.01, help="threshold step (default 0.01)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_calibrate)
