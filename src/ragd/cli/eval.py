"""The ``ragd eval`` command group: ``ragd eval beir DIR`` runs a BEIR dataset through ragd.

Prints a table of nDCG@k, Recall@depth, MRR@k and latency p50/p95 per mode, writes
``summary.json``, ``per_query.json`` and ``run.<mode>.trec`` into ``--out``, optionally an
HTML report, and checks ``--gate`` conditions: exit 1 naming every failed gate, exit 2 for a
malformed gate, an unknown mode or metric, before any work.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..errors import UsageError
from .common import err, out, positive_int


def _modes(text: str) -> list[str]:
    from ..evaluation.modes import mode_names

    names = [m.strip() for m in text.split(",") if m.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one mode")
    unknown = [m for m in names if m not in mode_names()]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown mode {unknown[0]!r}; choose from {', '.join(mode_names())}")
    return list(dict.fromkeys(names))


def add_commands(subparsers: Any, common: argparse.ArgumentParser) -> None:
    """Register ``ragd eval beir`` under the CLI's subparsers (``common``: --store/--collection)."""
    from ..evaluation.modes import DEFAULT_MODES, mode_names

    group = subparsers.add_parser("eval", help="measure retrieval quality (BEIR datasets)")
    sub = group.add_subparsers(dest="eval_command", required=True, metavar="SUBCOMMAND")
    p = sub.add_parser(
        "beir", parents=[common], help="run a BEIR dataset in every mode and score it",
        description="Ingest a BEIR folder (corpus.jsonl[.gz], queries.jsonl, qrels/SPLIT.tsv) "
        "into a cached store, run every query in each mode, print nDCG, recall, MRR and "
        "latency per mode, write summary.json and TREC run files.")
    p.add_argument("dir", metavar="DIR", help="BEIR dataset folder")
    p.add_argument("--split", default="test", help="qrels split (qrels/SPLIT.tsv; default test)")
    p.add_argument("--modes", type=_modes, default=list(DEFAULT_MODES),
                   help=f"comma-separated, from {', '.join(mode_names())} "
                   f"(default {','.join(DEFAULT_MODES)})")
    p.add_argument("--limit-queries", type=positive_int, metavar="N",
                   help="only the first N queries (in qrels order)")
    p.add_argument("--k", type=positive_int, default=10, help="cutoff of nDCG and MRR (default 10)")
    p.add_argument("--depth", type=positive_int, default=100,
                   help="documents kept per query, the recall cutoff (default 100)")
    p.add_argument("--pool", type=positive_int, default=200,
                   help="chunks asked of each candidate list by the named modes (default 200)")
    p.add_argument("--exclude-self", action="store_true",
                   help="drop a document whose id equals the query id (ArguAna, Quora)")
    p.add_argument("--gate", action="append", default=[], metavar="MODE:METRIC>=X",
                   help="fail (exit 1) unless the condition holds, e.g. "
                   "'hybrid-rrf:ndcg@10>=0.70'; metrics ndcg@K, recall@DEPTH, mrr@K, p50_ms, "
                   "p95_ms; operators >= <= > < (repeatable)")
    p.add_argument("--report", metavar="FILE.html", help="write a self-contained HTML report")
    p.add_argument("--out", metavar="DIR",
                   help="where summary.json and run files go (default ./eval-results/DATASET)")
    p.add_argument("--cache", metavar="DIR",
                   help="store folder for the ingested corpus (default "
                   "RAGD_HOME/eval/DATASET-SHA-EMBEDDER-POLICY)")
    p.add_argument("--embedder", help="embedder of a new cache (default: the configured one)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_eval_beir)

    from ..evaluation.qa import METRICS

    p = sub.add_parser(
        "qa", parents=[common], help="answer a golden set and score the answers",
        description="Run every question of a QA golden set (JSONL: id, question, "
        "expected_not_found, must_include, must_not_include, min_citations, expected_sections) "
        "through `ragd ask` on the collection and report pass rate, correct and incorrect "
        "refusals, hallucination, citation precision, expected sections cited, fallback use "
        "and latency. A failed --gate exits 1.")
    p.add_argument("golden", metavar="GOLDEN.jsonl")
    p.add_argument("--gate", action="append", default=[], metavar="METRIC>=X",
                   help=f"e.g. 'hallucination==0', 'pass>=0.95'; metrics {', '.join(METRICS)}; "
                   "operators >= <= == > < (repeatable)")
    p.add_argument("--gates", metavar="NAME", help="also check the profile's gate set NAME "
                   "([evaluation.gates], e.g. pharma-qa's baseline or perturb)")
    p.add_argument("--llm", metavar="URL|none", help="an OpenAI-compatible endpoint (default "
                   "$RAGD_LLM_URL, else the offline extractive path)")
    p.add_argument("--model", help="the model name to ask for")
    p.add_argument("--out", metavar="FILE.json", help="write the summary and every answer")
    p.add_argument("--report", metavar="FILE.html", help="write a self-contained HTML report "
                   "(metrics, gates, outcomes, refusal reasons, latency, every answer)")
    p.add_argument("--compare", metavar="OLD.json", help="print before/after against an "
                   "earlier --out file")
    p.add_argument("--limit", type=positive_int, metavar="N", help="only the first N questions")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_eval_qa)


def cmd_eval_qa(args: argparse.Namespace) -> int:
    import json

    from ..evaluation.gates import check_gates, failed
    from ..evaluation.jobs import alerts, failed_gates_line, qa_gates, qa_summary
    from ..evaluation.qa import METRICS, load_golden, metrics, run_golden
    from .ask import llm_client
    from .common import existing_collection, settings_of

    gates = qa_gates(args.gate, {}, None, "")
    if not Path(args.golden).is_file():
        raise UsageError(f"no such file: {args.golden}")
    golden = load_golden(args.golden)[:args.limit]
    old = json.loads(Path(args.compare).read_text("utf-8")) if args.compare else None
    llm = llm_client(args.llm, args.model)
    coll = existing_collection(settings_of(args))
    evaluation = coll.profile.data["evaluation"]
    try:
        gates += qa_gates([], evaluation, args.gates, coll.profile.name)
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                      TextColumn("{task.completed}/{task.total}"), console=err,
                      transient=True, disable=not err.is_terminal) as progress:
            task = progress.add_task("answering", total=len(golden))
            results = run_golden(golden, coll, llm=llm,
                                 on_progress=lambda i: progress.update(task, completed=i))
        profile = coll.profile.name
    finally:
        coll.close()
    measured = metrics(results)
    gate_results = check_gates(gates, {"qa": measured})
    summary = qa_summary(str(args.golden), profile, llm, measured, gate_results, results)
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n")
    if args.report:
        from ..evaluation.qa_report import write_qa_report

        write_qa_report(args.report, summary, METRICS, old)
        err.print(f"report: {escape(str(args.report))}")
    if args.json:
        out.print_json(data={k: v for k, v in summary.items() if k != "results"})
    else:
        table = Table(title=f"{Path(args.golden).name}: {len(results)} questions, profile "
                            f"{profile}, {summary['path']}")
        table.add_column("metric")
        table.add_column("value", justify="right")
        if old:
            table.add_column("before", justify="right")
            table.add_column("change", justify="right")
        for name in METRICS:
            value = measured[name]
            row = [name, f"{value:.3f}" if not name.endswith("_ms") else f"{value:.1f}"]
            if old:
                before = old.get("metrics", {}).get(name)
                row += ["" if before is None else f"{before:.3f}",
                        "" if before is None else f"{value - before:+.3f}"]
            table.add_row(*row)
        out.print(table)
        for r in results:
            if not r.passed:
                out.print(f"[red]FAIL[/] {escape(r.golden.id)}: {escape('; '.join(r.why))} — "
                          f"{escape(r.golden.question[:90])}")
    for g in gate_results:
        (out if g.passed and not args.json else err).print(escape(g.describe()))
    bad = failed(gate_results)
    if bad:
        for message in alerts(evaluation, bad):
            err.print(f"[bold red]ALERT[/] {escape(message)}")
        err.print(f"ragd: {escape(failed_gates_line(bad))}")
        return 1
    return 0


def _table(results: list, title: str) -> Table:
    from ..evaluation.runner import plan_label

    names = list(results[0].metrics) if results else []
    table = Table(title=title)
    table.add_column("mode", no_wrap=True)
    for m in names:
        table.add_column(m, justify="right")
    table.add_column("p50 ms", justify="right")
    table.add_column("p95 ms", justify="right")
    table.add_column("plan", no_wrap=True)
    best = {m: max(r.metrics[m] for r in results) for m in names}
    for r in results:
        lat = r.latency
        cells = [(f"[bold]{r.metrics[m]:.4f}[/]" if r.metrics[m] == best[m]
                  else f"{r.metrics[m]:.4f}") for m in names]
        table.add_row(r.name, *cells, f"{lat['p50_ms']:.1f}", f"{lat['p95_ms']:.1f}",
                      escape(plan_label(r.plan)))
    return table


def cmd_eval_beir(args: argparse.Namespace) -> int:
    from ..evaluation import metrics as M
    from ..evaluation.gates import check_gates, failed, parse_gates
    from ..evaluation.jobs import BeirJob, failed_gates_line, require_tools
    from ..evaluation.runner import LATENCY_METRICS, EvalConfig, run_mode, write_outputs
    from ..evaluation.cache import prepare_store

    # Everything that can be a usage mistake is checked before any work.
    config = EvalConfig(k=args.k, depth=args.depth, pool=args.pool,
                        exclude_self=args.exclude_self)
    metric_names = [*M.metric_names(config.k, config.depth), *LATENCY_METRICS]
    gates = parse_gates(args.gate, args.modes, metric_names)
    require_tools(report=bool(args.report))
    job = BeirJob.resolve(args.dir, args.split, args.limit_queries, embedder=args.embedder,
                          profile=getattr(args, "profile", None),
                          store=getattr(args, "store", None),
                          collection=getattr(args, "collection", None), cache=args.cache,
                          out=args.out)
    dataset, collection = job.dataset, job.collection
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                  TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task(f"ingesting {dataset.name}", total=None)

        def ingested(report: Any) -> None:
            progress.update(task, description=(
                f"ingesting {dataset.name}: {report.documents} documents, "
                f"{report.chunks} new chunks"))

        prepared = prepare_store(dataset, job.embedder, job.policy, job.location, collection,
                                 ingested, profile=job.profile)
        coll = prepared.collection
        progress.remove_task(task)
        report = prepared.report
        stats = coll.stats()
        err.print(f"corpus {escape(str(dataset.corpus_path))}: {report.documents:,} documents "
                  f"({report.new:,} new, {report.changed:,} changed, {report.unchanged:,} "
                  f"unchanged, {report.failed:,} failed) in {report.seconds:.1f} s; "
                  f"{stats.get('chunks', '?'):,} chunks in {escape(coll.store.url)} "
                  f"(collection {collection!r})")
        results = []
        for name in args.modes:
            task = progress.add_task(f"{name}", total=len(dataset.queries))
            results.append(run_mode(name, dataset, coll, job.base, config,
                                    lambda i, t=task: progress.update(t, completed=i)))
            progress.remove_task(task)
    gate_results = check_gates(gates, {r.name: r.measured() for r in results})
    data = job.summary(coll, results, config, stats, report, gate_results)
    coll.close()
    out_dir = job.out_dir
    paths = write_outputs(out_dir, dataset, results, data)
    if args.report:
        from ..evaluation.report import write_report

        paths["report"] = write_report(Path(args.report), data, results, dataset.qrels,
                                       gate_results)
    if args.json:
        out.print_json(data=data)
    else:
        table = _table(results, f"{dataset.name} ({dataset.split}, "
                                f"{len(dataset.queries):,} queries)")
        # Not a terminal (a pipe, a log): wide enough that no row wraps.
        (out if out.is_terminal else Console(highlight=False, emoji=False, width=160)).print(table)
        out.print(f"wrote {escape(str(out_dir))}/summary.json and run files"
                  + (f"; report {escape(str(paths['report']))}" if "report" in paths else ""))
    for g in gate_results:
        (out if g.passed else err).print(("" if g.passed else "[bold red]") + escape(g.describe())
                                         + ("" if g.passed else "[/]"))
    bad = failed(gate_results)
    if bad:
        err.print(f"ragd: {escape(failed_gates_line(bad))}")
        return 1
    return 0


__all__ = ["add_commands", "cmd_eval_beir", "cmd_eval_qa"]
