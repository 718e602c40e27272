"""``ragd demo``: ingest the bundled sample corpus into a temporary store and search it."""

from __future__ import annotations

import tempfile
import time
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .collection import open_collection
from .ingest.loaders import LoadOptions
from .ingest.pipeline import ingest
from .retrieval import compress, retrieve
from .types import Plan

QUESTIONS = (
    "How long must audit logs be retained?",          # answered, with its citation
    "How much does an export license cost?",          # refused: the sample does not say
)

QUERIES = (
    ("Is a license required to export items subject to the EAR?", Plan(k=3)),
    ("what is the punishment for cheating", Plan(k=3)),
    ("how long must audit logs be kept", Plan(k=3)),
    ("restrictions on military end users", Plan(k=3, tags_any=("ear",))),
)


def demo_corpus() -> Path:
    """The folder of sample documents shipped inside the package."""
    return Path(str(resources.files("ragd") / "data" / "demo"))


def run_demo(out: Console, err: Console) -> int:
    """Ingest the sample corpus into a fresh temporary store and print cited results."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ragd-demo-") as tmp:
        # The ear profile: EAR passages are cited as 15 CFR sections; others by heading.
        coll = open_collection(Path(tmp) / "store", "demo", create=True, profile="ear")
        cite = coll.profile.scheme.cite
        out.print(f"[bold]ragd demo[/]: ingesting the sample corpus from {demo_corpus()}")
        report = ingest([demo_corpus()], coll, options=LoadOptions(exclude=("SOURCE.txt",)))
        out.print(f"{report.documents} documents ({report.new} new, {report.failed} failed), "
                  f"{report.chunks} chunks embedded with {coll.embedder.name} "
                  f"in {report.seconds:.1f} s\n")
        for query, plan in QUERIES:
            filters = f"  [dim](tags_any={list(plan.tags_any)})[/]" if plan.tags_any else ""
            out.print(f"[bold]search:[/] {escape(query)}{filters}")
            results = retrieve(query, coll.profile.plan(k=plan.k, tags_any=plan.tags_any), coll)
            windows = compress(query, results, {"window": 0, "max_chars": 220})
            for c, w in zip(results, windows):
                out.print(f"  {c.rank}. [cyan]{escape(cite(c, c.title))}[/] "
                          f"[dim]({escape(c.doc_id)} #{c.chunk_index}, score {c.score:.4f})[/]")
                out.print(f"     {escape(' '.join(w['text'].split()))}")
            out.print()
        from .answer import answer

        for question in QUESTIONS:
            out.print(f"[bold]ask:[/] {escape(question)}")
            result = answer(question, coll)
            for line in result.answer.splitlines():
                out.print(f"  {escape(line)}")
            if not result.answered:
                out.print(f"  [dim](refused: {escape(str(result.refusal_reason))})[/]")
            out.print()
        coll.close()
    out.print(f"demo finished in {time.perf_counter() - started:.1f} s; try it on your own "
              "files: ragd ingest PATH, then ragd search \"...\" or ragd ask \"...\"")
    return 0
