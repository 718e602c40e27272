"""A self-contained HTML report of an evaluation: the table, then plots (matplotlib, Agg).

One file, no external CSS, scripts or fonts: every plot is a base64 PNG inside an
``<img>``. Plots: per-query nDCG of each mode (sorted curves and pairwise scatters),
score distributions of relevant vs non-relevant retrieved documents, latency histograms.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import math
from pathlib import Path
from typing import Any, Mapping, Sequence

from .beir import Qrels
from .gates import GateResult
from .html_style import CSS as _CSS
from .runner import ModeResult, plan_label

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf",
          "#7f7f7f"]


def require_pyplot():
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the install
        from ..errors import ConfigError

        raise ConfigError("--report needs matplotlib: pip install 'ragd[eval]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
                         "legend.fontsize": 10, "figure.dpi": 100})
    return plt


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _color(i: int) -> str:
    return COLORS[i % len(COLORS)]


def _grid(panels: int, max_cols: int, width: float, height: float) -> tuple[Any, list[Any]]:
    """A figure of ``panels`` axes in rows of at most ``max_cols`` (spare cells hidden)."""
    plt = require_pyplot()
    cols = min(max_cols, panels)
    rows = math.ceil(panels / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[panels:]:
        ax.axis("off")
    return fig, list(axes.flat[:panels])


def plot_sorted_ndcg(results: Sequence[ModeResult], metric: str) -> str:
    plt = require_pyplot()
    fig, ax = plt.subplots(figsize=(11, 4.6))
    for i, r in enumerate(results):
        values = sorted((v[metric] for v in r.per_query.values()), reverse=True)
        ax.plot(range(1, len(values) + 1), values, color=_color(i), linewidth=2,
                label=f"{r.name} (mean {r.metrics[metric]:.3f})")
    ax.set_xlabel("queries, sorted by their own score (best first)")
    ax.set_ylabel(metric)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Per-query {metric} of each mode, sorted")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    return _png(fig)


def plot_pairs(results: Sequence[ModeResult], metric: str) -> str | None:
    pairs = list(itertools.combinations(range(len(results)), 2))
    if not pairs:
        return None
    fig, axes = _grid(len(pairs), 4, 3.6, 3.7)
    for ax, (i, j) in zip(axes, pairs):
        a, b = results[i], results[j]
        qids = list(a.per_query)
        x = [a.per_query[q][metric] for q in qids]
        y = [b.per_query[q][metric] for q in qids]
        # Identical (x, y) pairs are common (0/0, 1/1): one marker each, area by count.
        counts: dict[tuple[float, float], int] = {}
        for xv, yv in zip(x, y):
            key = (round(xv, 4), round(yv, 4))
            counts[key] = counts.get(key, 0) + 1
        ax.scatter([k[0] for k in counts], [k[1] for k in counts],
                   s=[14 + 9 * n for n in counts.values()], alpha=0.5, color=_color(j),
                   edgecolors="white", linewidths=0.5)
        ax.plot([0, 1], [0, 1], color="#555", linewidth=1, linestyle="--")
        above = sum(yv > xv + 1e-9 for xv, yv in zip(x, y))
        below = sum(yv < xv - 1e-9 for xv, yv in zip(x, y))
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_aspect("equal")
        ax.set_xlabel(f"{a.name}")
        ax.set_ylabel(f"{b.name}")
        ax.set_title(f"{b.name} better: {above}\n{a.name} better: {below}, "
                     f"tied: {len(x) - above - below}", fontsize=10)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Per-query {metric}, mode against mode (above the diagonal: the y mode "
                 "wins; marker area grows with the number of queries at that point)",
                 fontsize=12)
    fig.tight_layout()
    return _png(fig)


def plot_scores(results: Sequence[ModeResult], qrels: Qrels) -> str:
    fig, axes = _grid(len(results), 3, 4.6, 3.6)
    for ax, r in zip(axes, results):
        rel, non = [], []
        for qid, docs in r.ranked.items():
            judged = qrels.get(qid, {})
            for doc_id, score in docs:
                (rel if judged.get(doc_id, 0) > 0 else non).append(score)
        values = rel + non
        if values:
            lo, hi = min(values), max(values)
            bins = [lo + (hi - lo) * t / 40 for t in range(41)] if hi > lo else 10
            ax.hist(non, bins=bins, density=True, alpha=0.55, color="#7f7f7f",
                    label=f"not relevant ({len(non):,})")
            ax.hist(rel, bins=bins, density=True, alpha=0.65, color="#2ca02c",
                    label=f"relevant ({len(rel):,})")
        ax.set_title(f"{r.name} ({plan_label(r.plan)})", fontsize=10)
        ax.set_xlabel("score of the document's best chunk")
        ax.set_ylabel("density")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", framealpha=0.9)
    fig.suptitle("Scores of retrieved documents: relevant vs not relevant (by the qrels)",
                 fontsize=12)
    fig.tight_layout()
    return _png(fig)


def plot_latency(results: Sequence[ModeResult]) -> str:
    fig, axes = _grid(len(results), 3, 4.6, 3.4)
    for i, (ax, r) in enumerate(zip(axes, results)):
        values = list(r.latencies_ms.values())
        lat = r.latency
        ax.hist(values, bins=30, color=_color(i), alpha=0.8)
        ax.axvline(lat["p50_ms"], color="black", linestyle="-", linewidth=1.5,
                   label=f"p50 {lat['p50_ms']:.1f} ms")
        ax.axvline(lat["p95_ms"], color="black", linestyle="--", linewidth=1.5,
                   label=f"p95 {lat['p95_ms']:.1f} ms")
        ax.set_title(r.name)
        ax.set_xlabel("latency per query (ms)")
        ax.set_ylabel("queries")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right")
    fig.suptitle("Latency per query (query embedding + search + fusion)", fontsize=12)
    fig.tight_layout()
    return _png(fig)




def render_html(summary: Mapping[str, Any], results: Sequence[ModeResult], qrels: Qrels,
                gate_results: Sequence[GateResult] = ()) -> str:
    """The whole report as one HTML string."""
    esc = html.escape
    ds = summary["dataset"]
    cfg = summary["config"]
    names = list(next(iter(results)).metrics) if results else []
    ndcg = names[0] if names else "ndcg@10"
    best = {m: max(r.metrics[m] for r in results) for m in names} if results else {}
    rows = []
    for r in results:
        lat = r.latency
        cells = "".join(
            f"<td class='m'>{'<b>' if math.isclose(r.metrics[m], best[m]) else ''}"
            f"{r.metrics[m]:.4f}{'</b>' if math.isclose(r.metrics[m], best[m]) else ''}</td>"
            for m in names)
        rows.append(f"<tr><td class='l'>{esc(r.name)}</td>{cells}<td>{lat['p50_ms']:.1f}</td>"
                    f"<td>{lat['p95_ms']:.1f}</td><td class='l'>{esc(plan_label(r.plan))}</td></tr>")
    head = "".join(f"<th>{esc(m)}</th>" for m in names)
    table = (f"<table><tr><th class='l'>mode</th>{head}<th>p50 ms</th><th>p95 ms</th>"
             f"<th class='l'>plan</th></tr>{''.join(rows)}</table>")
    gates = ""
    if gate_results:
        grows = "".join(
            f"<tr><td class='l'>{esc(str(g.gate))}</td><td>"
            f"{'—' if g.value is None else f'{g.value:.4f}'}</td>"
            f"<td class='{'pass' if g.passed else 'fail'}'>{'PASS' if g.passed else 'FAIL'}</td></tr>"
            for g in gate_results)
        gates = (f"<h2>Gates</h2><table><tr><th class='l'>gate</th><th>measured</th>"
                 f"<th>verdict</th></tr>{grows}</table>")
    machine = summary.get("machine", {})
    images = [("Per-query " + ndcg, plot_sorted_ndcg(results, ndcg),
               "Each curve is one mode's per-query scores sorted from best to worst; "
               "a curve above another is better over the whole query set.")]
    pairs = plot_pairs(results, ndcg)
    if pairs:
        images.append((f"Per-query {ndcg}, mode against mode", pairs,
                       "Dots on the diagonal are queries both modes score the same; the counts "
                       "say how many queries each mode wins."))
    images.append(("Score distributions", plot_scores(results, qrels),
                   f"Scores of every retrieved document (top {cfg['depth']} per query), "
                   "normalised per class. The further apart the two classes, the better a "
                   "score threshold separates relevant from non-relevant results. Lexical "
                   "scores are bm25, vector scores cosine, fused scores RRF or weighted sums."))
    images.append(("Latency", plot_latency(results),
                   "Wall time of one search call per query, query embedding included, after "
                   "one warm-up query per mode."))
    figures = "".join(f"<h2>{esc(title)}</h2><p class='note'>{esc(note)}</p>"
                      f"<img alt='{esc(title)}' src='data:image/png;base64,{data}'>"
                      for title, data, note in images)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>ragd eval: {esc(ds['name'])}</title><style>{_CSS}</style></head>
<body>
<h1>ragd eval — {esc(ds['name'])} ({esc(ds['split'])}, {ds['queries']:,} queries)</h1>
<p class="meta">ragd {esc(str(summary.get('ragd_version')))} · embedder
{esc(summary['embedder']['name'])} · corpus sha256 {esc(ds['corpus_sha256'][:12])} ·
{esc(str(summary.get('date')))} · {esc(str(machine.get('cpu')))}, {machine.get('cores')} cores,
load average {esc(', '.join(str(x) for x in machine.get('load_average') or []) or 'n/a')}</p>
{table}
<p class="note">Chunks are aggregated to documents by each document's best-ranked chunk;
{cfg['depth']} documents per query; metrics by pytrec_eval (trec_eval);
{'documents whose id equals the query id are excluded; ' if cfg.get('exclude_self') else ''}
bold: best per column.</p>
{gates}
{figures}
</body></html>
"""


def write_report(path: Path, summary: Mapping[str, Any], results: Sequence[ModeResult],
                 qrels: Qrels, gate_results: Sequence[GateResult] = ()) -> Path:
    path = Path(path)
    if path.parent:
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(summary, results, qrels, gate_results), "utf-8")
    return path
