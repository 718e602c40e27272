"""``ragd calibrate``: sweep a profile's relevance threshold over labelled questions and
write the best into a copy of the profile."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.table import Table

from ..errors import UsageError
from ..evaluation.calibrate import (best, half_of, load_labelled, score_with_gate, sweep,
                                    sweep_fallback, thresholds)
from ..profiles import BUILTIN
from ..profiles.toml_text import to_toml
from .common import existing_collection, out, settings_of


def cmd_calibrate(args: argparse.Namespace) -> int:
    if not Path(args.labelled).is_file():
        raise UsageError(f"no such file: {args.labelled}")
    questions = load_labelled(args.labelled)
    if args.half != "all":
        questions = [q for q in questions if half_of(q.id) == args.half]
        if not questions:
            raise UsageError(f"{args.labelled}: no questions in the {args.half} half")
    coll = existing_collection(settings_of(args))
    profile = coll.profile
    r = profile.retrieval
    if r["threshold_rule"] == "none":
        raise UsageError(f"profile {profile.name!r} has no threshold to calibrate "
                         "(retrieval.threshold_rule is 'none')")
    try:
        scored_gated = score_with_gate(coll, questions)
    finally:
        coll.close()
    scored = [sc for sc, _ in scored_gated]
    rows = sweep(questions, scored, int(r["k"]), r["threshold_rule"], thresholds(args.step))
    chosen = best(rows)
    current = next((row for row in rows if abs(row.threshold - r["min_relevance"]) < 1e-9),
                   None)
    fb = r["fallback"]
    fb_rows, fb_chosen, fb_current = [], None, None
    if fb["min_relevance"] > 0 and r["threshold_rule"] == "top":
        fb_rows = sweep_fallback(questions, scored, [g for _, g in scored_gated],
                                 chosen.threshold, int(r["k"]), thresholds(args.step))
        fb_chosen = best(fb_rows)
        fb_current = next((row for row in fb_rows
                           if abs(row.threshold - fb["min_relevance"]) < 1e-9), None)
    target = Path(args.out or f"{profile.name}-calibrated.toml")
    retrieval: dict[str, Any] = {"min_relevance": chosen.threshold}
    fallback_note = ""
    if fb_chosen is not None:
        retrieval["fallback"] = {"min_relevance": fb_chosen.threshold}
        fallback_note = (f"; fallback {fb_chosen.threshold:.2f} (was {fb['min_relevance']:.2f}):"
                         f" {fb_chosen.correct_accept}/{fb_chosen.answerable} accepted, "
                         f"{fb_chosen.correct_reject}/{fb_chosen.unanswerable} rejected")
    copy = {"name": profile.name,
            "extends": profile.name if profile.source == BUILTIN else profile.source,
            "description": profile.description,
            "retrieval": retrieval,
            "calibration": {"model": coll.embedder.name,
                            "reference": f"ragd calibrate on {Path(args.labelled).name}"
                                         f"{'' if args.half == 'all' else f' ({args.half} half)'}"
                                         f": min_relevance {chosen.threshold:.2f} (was "
                                         f"{r['min_relevance']:.2f}): "
                                         f"{chosen.correct_accept}/{chosen.answerable} answerable "
                                         f"accepted, {chosen.correct_reject}/"
                                         f"{chosen.unanswerable} unanswerable rejected"
                                         + fallback_note}}
    target.write_text(f"# {profile.name} calibrated for {coll.embedder.name} by ragd calibrate\n"
                      + to_toml(copy), "utf-8")
    if args.json:
        out.print_json(data={"profile": profile.name, "model": coll.embedder.name,
                             "rule": r["threshold_rule"], "best": chosen.as_dict(),
                             "current": current.as_dict() if current else None,
                             "rows": [row.as_dict() for row in rows],
                             "fallback": None if fb_chosen is None else {
                                 "best": fb_chosen.as_dict(),
                                 "current": fb_current.as_dict() if fb_current else None,
                                 "rows": [row.as_dict() for row in fb_rows]},
                             "written": str(target)})
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
    if fb_chosen is not None:
        table = Table(title=f"fallback threshold under min_relevance {chosen.threshold:.2f} "
                            "(accepted only with the name gate)")
        for col in ("fallback", "correct accept", "correct reject", "balanced accuracy"):
            table.add_column(col, justify="right")
        for row in fb_rows:
            if row is fb_chosen or row is fb_current or round(row.threshold * 100) % 5 == 0:
                mark = (" ← best" if row is fb_chosen else
                        (" ← current" if row is fb_current else ""))
                table.add_row(f"{row.threshold:.2f}{mark}",
                              f"{row.correct_accept}/{row.answerable}",
                              f"{row.correct_reject}/{row.unanswerable}", f"{row.balanced:.3f}")
        out.print(table)
        out.print(f"best fallback {fb_chosen.threshold:.2f}")
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
                   help='lines {"id", "question", "answerable", "expected_doc"?}, or a QA '
                        'golden set (expected_not_found, expected_sections)')
    p.add_argument("--out", metavar="FILE.toml",
                   help="where the calibrated copy goes (default NAME-calibrated.toml)")
    p.add_argument("--step", type=float, default=0.01, help="threshold step (default 0.01)")
    p.add_argument("--half", choices=("dev", "test", "all"), default="all",
                   help="only questions whose id ends in an odd (dev) or even (test) number")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_calibrate)
