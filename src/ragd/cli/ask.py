"""``ragd ask``: a cited answer from the collection, or its profile's refusal."""

from __future__ import annotations

import argparse
import os
from typing import Any

from rich.markup import escape

from .common import err, existing_collection, out, settings_of


def llm_client(url: str | None, model: str | None) -> Any:
    """The chat client for ``--llm URL`` (or ``$RAGD_LLM_URL``); None for the offline path."""
    url = url if url is not None else os.environ.get("RAGD_LLM_URL")
    if not url or url.strip().lower() == "none":
        return None
    from ..llm import make_client, warnings_to_stderr

    warnings_to_stderr()  # why a model call failed, next to the refusal
    return make_client(url, model)


def cited_order(result: Any) -> list[Any]:
    """The answer's evidence in the order its sentences first cite it (then any other)."""
    first = list(dict.fromkeys(e.key for s in result.sentences for e in s.citations))
    rank = {key: i for i, key in enumerate(first)}
    return sorted(result.evidence, key=lambda e: rank.get(e.key, len(rank)))


def print_answer(result: Any, show_context: bool) -> None:
    if show_context or not result.answered:
        if result.evidence:
            out.print("[bold]Evidence[/]")
            for e in result.evidence:
                out.print(f"  [cyan]{e.key}[/] {escape(e.citation)} [dim]({escape(e.doc_id)}, "
                          f"relevance {e.relevance:.3f})[/]")
                if show_context:
                    out.print(f"     {escape(e.text[:600])}")
    if result.answered:
        out.print(escape(result.answer))
        if not show_context:
            out.print("[dim]Sources:[/]")
            for e in cited_order(result):
                out.print(f"  [dim]{escape(e.citation)} — {escape(e.doc_id)}[/]")
    else:
        out.print(escape(result.answer))
        by = f" ({result.trace.refused_by})" if result.trace.refused_by else ""
        err.print(f"[dim]refused: {escape(str(result.refusal_reason))}{escape(by)}[/]")
    if result.trace.read_as:   # beside the answer, never in it (a profile's text contract)
        err.print(f"[dim]read as: {escape(result.trace.read_as)}[/]")


def cmd_ask(args: argparse.Namespace) -> int:
    from ..answer import answer

    settings = settings_of(args)
    llm = llm_client(args.llm, args.model)
    coll = existing_collection(settings)
    try:
        result = answer(args.question, coll, llm=llm, audit_dir=settings.home / "logs",
                        scope=args.scope)
    finally:
        coll.close()
    if args.show_facts and not args.json:
        from ..answer.render import render_facts

        out.print(escape(render_facts(result.facts)), soft_wrap=True)
    if args.json:
        out.print_json(data=result.to_dict())
    else:
        print_answer(result, args.show_context)
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ask", parents=[common], help="a cited answer, or a refusal",
                       description="Answer from the collection's evidence: every sentence "
                       "cites the passage it comes from; when the evidence is weak or does "
                       "not determine the answer, the profile's refusal text and a reason. "
                       "A refusal exits 0.")
    p.add_argument("question")
    p.add_argument("--llm", metavar="URL|none",
                   help="an OpenAI-compatible endpoint (http://host:port/v1) for phases B and "
                        "C; default $RAGD_LLM_URL, else none: the offline extractive path")
    p.add_argument("--model", help="the model name to ask for (default $RAGD_LLM_MODEL)")
    p.add_argument("--scope", help="restrict the evidence to a scope of the profile "
                   "(pharma-qa: MIXED, FDA, EMA, ICH, SOPS; `ragd profiles show` lists them); "
                   "without it, a question naming a source the profile knows ([scope.named]: "
                   "'Under WHO GMP, ...') is searched within that source first; MIXED: all")
    p.add_argument("--json", action="store_true", help="print the answer JSON")
    p.add_argument("--show-facts", action="store_true",
                   help="print phase A's facts first (FACTS: - \"quote\" (pdf=..., page=..., "
                        "chunk_id=..., score=...))")
    p.add_argument("--show-context", action="store_true",
                   help="print the evidence passages the answer was built from")
    p.set_defaults(func=cmd_ask)
