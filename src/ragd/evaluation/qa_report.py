"""A self-contained HTML report of a QA golden-set run (``ragd eval qa --report``).

Rendered from the run's summary (the ``--out`` JSON), so a saved run can be rendered
again: the metrics (with before/after when an earlier run is given), the gates, the
outcome matrix (should answer / should refuse × answered / refused), refusal reasons,
a latency histogram, the failures, then every question with its answer. Charts are
HTML bars (no script, no image, no plotting library), so the file opens anywhere and
the same run renders byte for byte the same.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from .html_style import CSS as _CSS

_EXTRA_CSS = """
td.q { text-align: left; max-width: 460px; } td.a { text-align: left; max-width: 560px;
       white-space: pre-wrap; font-size: 13px; }
.bar { display: inline-block; height: 12px; background: #1f77b4; vertical-align: middle; }
tr.failed td.id { color: #c62828; font-weight: bold; }
"""


def _fmt(name: str, value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:.1f}" if name.endswith("_ms") else f"{value:.3f}"


def _metrics_table(metrics: Mapping[str, float], old: Mapping[str, float] | None,
                   names: Sequence[str]) -> str:
    esc = html.escape
    head = "<th class='l'>metric</th><th>value</th>"
    if old is not None:
        head += "<th>before</th><th>change</th>"
    rows = []
    for name in names:
        value = metrics.get(name)
        cells = f"<td class='l'>{esc(name)}</td><td>{_fmt(name, value)}</td>"
        if old is not None:
            before = old.get(name)
            change = ("" if before is None or value is None
                      else f"{value - before:+.1f}" if name.endswith("_ms")
                      else f"{value - before:+.3f}")
            cells += f"<td>{_fmt(name, before)}</td><td>{change}</td>"
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _gates_table(gates: Sequence[Mapping[str, Any]]) -> str:
    if not gates:
        return "<p class='note'>No gate was asked for (<code>--gate</code>, <code>--gates</code>).</p>"
    esc = html.escape
    rows = "".join(
        f"<tr><td class='l'>{esc(g['gate'])}</td>"
        f"<td>{'—' if g['value'] is None else format(g['value'], '.4f')}</td>"
        f"<td class='{'pass' if g['passed'] else 'fail'}'>{'PASS' if g['passed'] else 'FAIL'}"
        f"</td></tr>" for g in gates)
    return f"<table><tr><th class='l'>gate</th><th>measured</th><th>verdict</th></tr>{rows}</table>"


def _outcomes(results: Sequence[Mapping[str, Any]]) -> str:
    cells = Counter((r["expected_not_found"], r["status"]) for r in results)
    rows = []
    for should_refuse, label in ((False, "should answer"), (True, "should refuse")):
        rows.append(f"<tr><td class='l'>{label}</td>"
                    f"<td>{cells[(should_refuse, 'answered')]}</td>"
                    f"<td>{cells[(should_refuse, 'refused')]}</td></tr>")
    return ("<table><tr><th class='l'></th><th>answered</th><th>refused</th></tr>"
            f"{''.join(rows)}</table>")


def _bars(counts: Sequence[tuple[str, int]], head: str) -> str:
    esc = html.escape
    top = max((n for _, n in counts), default=0) or 1
    rows = "".join(f"<tr><td class='l'>{esc(label)}</td><td>{n}</td><td class='l'>"
                   f"<span class='bar' style='width:{round(300 * n / top)}px'></span></td></tr>"
                   for label, n in counts)
    return f"<table><tr><th class='l'>{esc(head)}</th><th>questions</th><th></th></tr>{rows}</table>"


def latency_bins(ms: Sequence[float], bins: int = 10) -> list[tuple[str, int]]:
    """Equal-width bins from 0 to the slowest answer, as (label, count)."""
    if not ms:
        return []
    width = max(ms) / bins or 1.0  # all at 0 ms (or subnormal): one bin holds them
    counts = [0] * bins
    for value in ms:
        counts[min(int(value / width), bins - 1)] += 1
    return [(f"{i * width:.0f}–{(i + 1) * width:.0f} ms", n) for i, n in enumerate(counts)]


def _question_rows(results: Sequence[Mapping[str, Any]]) -> str:
    esc = html.escape
    rows = []
    for r in results:
        expected = "refuse" if r["expected_not_found"] else "answer"
        outcome = r["status"] + (f" ({r['refusal_reason']})" if r.get("refusal_reason") else "")
        verdict = "pass" if r["passed"] else "fail"
        rows.append(
            f"<tr class='{'' if r['passed'] else 'failed'}'><td class='l id'>{esc(r['id'])}</td>"
            f"<td class='q'>{esc(r['question'])}</td><td class='l'>{expected}</td>"
            f"<td class='l'>{esc(outcome)}</td><td class='{verdict}'>{verdict.upper()}</td>"
            f"<td class='q'>{esc('; '.join(r.get('why') or []))}</td><td>{r['ms']:.0f}</td>"
            f"<td class='a'>{esc(r.get('answer') or '')}</td></tr>")
    return ("<table><tr><th class='l'>id</th><th class='l'>question</th><th class='l'>expected"
            "</th><th class='l'>outcome</th><th>verdict</th><th class='l'>why</th><th>ms</th>"
            f"<th class='l'>answer</th></tr>{''.join(rows)}</table>")


def render_qa_html(summary: Mapping[str, Any], names: Sequence[str],
                   old: Mapping[str, Any] | None = None) -> str:
    """The report of one run (``summary`` as ``ragd eval qa --out`` writes it); ``old``, an
    earlier run's summary, adds before/change columns; ``names``: the metrics shown."""
    esc = html.escape
    results = summary["results"]
    failures = [r for r in results if not r["passed"]]
    reasons = Counter(r["refusal_reason"] for r in results if r["status"] == "refused")
    golden = Path(summary["golden"]).name
    old_metrics = old.get("metrics", {}) if old is not None else None
    failure_note = (f"{len(failures)} of {len(results)} questions failed; they are marked in "
                    "red in the table of every question below." if failures
                    else "Every question passed.")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>ragd eval qa: {esc(golden)}</title><style>{_CSS}{_EXTRA_CSS}</style></head>
<body>
<h1>ragd eval qa — {esc(golden)} ({len(results)} questions)</h1>
<p class="meta">profile {esc(summary['profile'])} · path {esc(summary['path'])}
{'· compared with ' + esc(Path(old['golden']).name) + ' (' + esc(old['path']) + ')'
 if old is not None else ''}</p>
<h2>Metrics</h2>
{_metrics_table(summary['metrics'], old_metrics, names)}
<p class="note">Hallucination: a question that must be refused was answered, or a sentence
is not supported by the evidence it cites (checked apart from the pipeline). Citation
precision: cited passages that support their sentence. Expected section: answers that cite
one of the question's expected sections, among those that list any.</p>
<h2>Gates</h2>
{_gates_table(summary.get('gates') or [])}
<h2>Outcomes</h2>
{_outcomes(results)}
<h2>Refusal reasons</h2>
{_bars(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])), 'reason')
 if reasons else "<p class='note'>No question was refused.</p>"}
<h2>Latency</h2>
{_bars(latency_bins([r['ms'] for r in results]), 'wall time per answer')}
<h2>Questions</h2>
<p class="note">{esc(failure_note)}</p>
{_question_rows(results)}
</body></html>
"""


def write_qa_report(path: str | Path, summary: Mapping[str, Any], names: Sequence[str],
                    old: Mapping[str, Any] | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_qa_html(summary, names, old), "utf-8")
    return path
