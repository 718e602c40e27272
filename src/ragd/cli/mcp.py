"""``ragd mcp``: the MCP server over stdio (for a desktop client that starts it)."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from .common import add_llm_defaults, settings_of


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        from ..service.mcp import run_stdio
        from ..service.ops import Engine
    except ImportError as exc:
        raise UsageError(f"ragd mcp needs the service extra (pip install 'ragd[service]'): "
                         f"{exc}") from None
    run_stdio(Engine(settings_of(args), llm_url=args.llm, llm_model=args.model,
                     llm_allowed=tuple(args.allow_llm or ())))
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("mcp", parents=[common], help="the MCP server over stdio",
                       description="Serve the MCP tools search, ask, get_chunk and "
                       "list_collections and the document resources over stdin/stdout.")
    add_llm_defaults(p, "the ask tool")
    p.set_defaults(func=cmd_mcp)
