"""The official SDK's own MCP client over stdio (``ragd mcp``) and streamable HTTP, with
synchronous helpers for the tests."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Sequence

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from service.svc import PYTHON, ragd_env


@asynccontextmanager
async def http_client(url: str, headers: dict[str, str] | None = None
                      ) -> AsyncIterator[Client]:
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            yield client


@asynccontextmanager
async def stdio_client(home: Path, *args: str) -> AsyncIterator[Client]:
    params = StdioServerParameters(command=PYTHON, args=["-m", "ragd.cli", "mcp", *args],
                                   env=ragd_env(home), cwd=str(home))
    async with Client(params) as client:
        yield client


def structured(result: Any) -> Any:
    """A tool result's structured content, checked against its text content."""
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def call_all(open_client, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each (tool, arguments) through one client session; the raw results."""
    async def run() -> list[Any]:
        async with open_client() as client:
            return [await client.call_tool(name, args) for name, args in calls]
    return anyio.run(run)
