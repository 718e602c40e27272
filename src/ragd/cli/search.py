"""``ragd search``: ranked passages, or (profile output ``rag-context``) the contract's
RAGContext."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from rich.markup import escape

from ..citing import CitationScheme
from ..retrieval import compress
from ..service.ops import run_search
from ..types import MODES, Candidate
from .common import err, existing_collection, out, parse_meta, positive_int, settings_of


def print_results(query: str, results: Sequence[Candidate], scheme: CitationScheme) -> None:
    """Ranked passages with doc id, chunk index, scores, citation and a snippet."""
    if not results:
        out.print("no results")
        return
    snippets = {(s["doc_id"], s["chunk_index"]): s["text"]
                for s in compress(query, results, {"window": 0, "max_chars": 320})}
    for c in results:
        parts = [f"score {c.score:.4f}"]
        if c.vector_rank is not None:
            parts.append(f"vector {c.vector_score:.3f} #{c.vector_rank}")
        if c.lexical_rank is not None:
            parts.append(f"lexical {c.lexical_score:.3f} #{c.lexical_rank}")
        if c.pinned:
            parts.append("named section")
        out.print(f"[bold]{c.rank}.[/] [cyan]{escape(c.doc_id)}[/] #{c.chunk_index}  "
                  f"[dim]{escape(', '.join(parts))}[/]")
        cite = scheme.cite(c, c.title)
        where = " · ".join(dict.fromkeys(w for w in (cite, c.context or c.title) if w))
        if where:
            out.print(f"   [green]{escape(where)}[/]")
        out.print(f"   {escape(' '.join(snippets.get(c.key, c.text[:320]).split()))}")


def _print_context(context: Any) -> None:
    if not context.meets_threshold:
        err.print(f"{context.outcome}: no chunk meets the relevance threshold "
                  f"(average {context.avg_relevance:.3f})")
        return
    for i, c in enumerate(context.document_chunks, start=1):
        meta = c.metadata
        out.print(f"[bold]{i}.[/] [cyan]{escape(str(meta.get('source', '')))}[/] · "
                  f"{escape(str(meta.get('section', '')))}  [dim]relevance "
                  f"{c.relevance_score:.3f}, position {c.position_in_doc}[/]")
        out.print(f"   {escape(' '.join(c.text.split())[:320])}")
    out.print(f"[dim]average relevance {context.avg_relevance:.3f}[/]")


def cmd_search(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    coll = existing_collection(settings)
    try:
        outcome = run_search(coll, args.query, k=args.k or settings.k,
                             mode=args.mode or settings.mode,
                             fusion=args.fusion or settings.fusion,
                             tags_any=tuple(args.tag or ()),
                             tags_all=tuple(args.all_tags or ()),
                             metadata=parse_meta(args.meta), context_key=args.context_key)
    finally:
        coll.close()
    if args.json:
        out.print_json(data=outcome.to_dict())
    elif outcome.context is not None:
        _print_context(outcome.context)
    else:
        print_results(args.query, outcome.results, coll.profile.scheme)
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    from ..retrieval.fusion import FUSION

    p = sub.add_parser("search", parents=[common], help="ranked passages for a query")
    p.add_argument("query")
    p.add_argument("-k", type=positive_int, help="number of results (default: the profile's)")
    p.add_argument("--mode", choices=MODES, help="vector, lexical or hybrid")
    p.add_argument("--fusion", choices=FUSION.names(), help="hybrid fusion method")
    p.add_argument("--tag", action="append", help="keep chunks with any of these tags")
    p.add_argument("--all-tags", action="append", metavar="TAG",
                   help="keep chunks with all of these tags")
    p.add_argument("--meta", action="append", metavar="K=V", help="metadata equality filter")
    p.add_argument("--context-key", metavar="K",
                   help="conversation key of the rules contract (cache key part)")
    p.add_argument("--json", action="store_true", help="print results as JSON")
    p.set_defaults(func=cmd_search)
