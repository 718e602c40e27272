"""The MCP server (official ``mcp`` SDK): tools over :class:`ragd.service.ops.Engine`.

Tools ``search``, ``ask``, ``get_chunk`` and ``list_collections`` take typed inputs and
return structured content that is exactly the REST JSON (the same Engine call builds
it; the output schemas are the REST response models), with the same JSON as text for
clients that read only text. A failed call is a tool error whose text is the REST error
JSON ``{"error": {"type", "message"}}``. Documents are resources
``ragd://{collection}/{doc_id}`` (the JSON of ``GET /v1/documents/{doc_id}``).

``ragd mcp`` serves it over stdio; ``ragd serve --mcp`` at ``/mcp`` (streamable HTTP,
stateless, JSON responses, so any worker can answer any request) behind the API key.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Callable, Literal
from urllib.parse import quote

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.types import CallToolResult, Resource, TextContent, ToolAnnotations
from pydantic import Field

from .. import __version__
from ..retrieval.query import MAX_QUERY_CHARS
from ..types import MODES
from . import models as m
from .errors import describe
from .ops import Engine

URI_TEMPLATE = "ragd://{collection}/{+doc_id}"
LISTED_DOCUMENTS = 500
"""Documents listed as resources per collection (all stay readable by URI)."""
_URI_SAFE = "/()-._~!$&'*+,;=:@"

Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS,
                             description="the query (1 to 2,000 characters)")]
OptName = Annotated[str | None, Field(min_length=1, max_length=200)]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)


def document_uri(collection: str, doc_id: str) -> str:
    return f"ragd://{quote(collection, safe='')}/{quote(doc_id, safe=_URI_SAFE)}"


def _result(data: Any) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=json.dumps(data, ensure_ascii=False))],
                          structured_content=data)


async def _call(fn: Callable[[], Any]) -> CallToolResult:
    try:
        data = await anyio.to_thread.run_sync(fn)
    except Exception as exc:  # noqa: BLE001 - a tool error the client can read
        _, body = describe(exc)
        return CallToolResult(content=[TextContent(text=json.dumps(body, ensure_ascii=False))],
                              is_error=True)
    return _result(data)


class RagdMCP(MCPServer):
    """MCPServer whose resource list also names the stored documents."""

    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.engine = engine

    async def list_resources(self) -> list[Resource]:  # type: ignore[override]
        listed = await super().list_resources()

        def documents() -> list[Resource]:
            out = []
            store = self.engine.store
            for info in store.list_collections():
                records = sorted(store.list_documents(info.name), key=lambda r: r.doc_id)
                for r in records[:LISTED_DOCUMENTS]:
                    out.append(Resource(uri=document_uri(info.name, r.doc_id),
                                        name=f"{info.name}/{r.doc_id}", title=r.title or None,
                                        mime_type="application/json"))
            return out
        return listed + await anyio.to_thread.run_sync(documents)


def build_mcp(engine: Engine) -> RagdMCP:
    """The MCP server over ``engine``: its tools and the document resources."""
    server = RagdMCP(engine, name="ragd", version=__version__, log_level="WARNING",
                     instructions="Cited retrieval over the user's documents. `search` returns "
                     "ranked passages with citations; `ask` a cited answer or a refusal; "
                     "`get_chunk` one passage by (doc_id, chunk_index); `list_collections` "
                     "what is stored. Cite passages by their `citation`.")

    @server.tool(title="Search passages", annotations=READ_ONLY)
    async def search(
        query: Query,
        k: Annotated[int | None, Field(ge=1, le=m.MAX_K,
                                       description="results (default: the profile's)")] = None,
        mode: Annotated[Literal[MODES] | None,  # type: ignore[valid-type]
                        Field(description="vector, lexical or hybrid")] = None,
        fusion: Annotated[str | None, Field(max_length=64,
                                            description="rrf or weighted")] = None,
        tags_any: Annotated[list[str] | None, Field(max_length=m.MAX_FILTER_ITEMS,
                                                    description="any of these tags")] = None,
        tags_all: Annotated[list[str] | None, Field(max_length=m.MAX_FILTER_ITEMS,
                                                    description="all of these tags")] = None,
        metadata: Annotated[dict[str, Any] | None,
                            Field(description="metadata equality filter")] = None,
        collection: OptName = None,
        profile: OptName = None,
        context_key: Annotated[str | None, Field(max_length=500)] = None,
    ) -> Annotated[CallToolResult, m.SearchResponse]:
        """Ranked passages for a query, each with its citation and scores (the JSON of
        `ragd search --json` and POST /v1/search)."""
        return await _call(lambda: engine.search(
            query, collection=collection, profile=profile, k=k, mode=mode, fusion=fusion,
            tags_any=tags_any or (), tags_all=tags_all or (), metadata=metadata,
            context_key=context_key))

    @server.tool(title="Answer with citations",
                 annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    async def ask(question: Query, collection: OptName = None, profile: OptName = None,
                  llm: Annotated[str | None, Field(max_length=2000,
                                                   description="OpenAI-compatible endpoint "
                                                   "URL, or none (offline)")] = None,
                  model: Annotated[str | None, Field(max_length=200)] = None,
                  ) -> Annotated[CallToolResult, m.AnswerResponse]:
        """A cited answer from the documents, or the profile's refusal (the JSON of
        `ragd ask --json` and POST /v1/ask): every sentence cites the evidence it quotes."""
        return await _call(lambda: engine.ask(question, collection=collection, profile=profile,
                                              llm_url=llm, llm_model=model))

    @server.tool(title="Get a passage", annotations=READ_ONLY)
    async def get_chunk(doc_id: Annotated[str, Field(min_length=1, max_length=1000)],
                        chunk_index: Annotated[int, Field(ge=0, le=m.MAX_INDEX)],
                        collection: OptName = None) -> Annotated[CallToolResult, m.ChunkResponse]:
        """One stored passage by its key, with its citation (GET
        /v1/documents/{doc_id}/chunks/{chunk_index})."""
        return await _call(lambda: engine.chunk(doc_id, chunk_index, collection))

    @server.tool(title="List collections", annotations=READ_ONLY)
    async def list_collections() -> Annotated[CallToolResult, m.CollectionsResponse]:
        """The collections with their profile, embedding model and counts (GET
        /v1/collections)."""
        return await _call(engine.collections)

    @server.resource(URI_TEMPLATE, name="document", mime_type="application/json",
                     description="A stored document with its chunks and citations")
    async def document(collection: str, doc_id: str) -> str:
        try:
            data = await anyio.to_thread.run_sync(lambda: engine.document(doc_id, collection))
        except Exception as exc:  # noqa: BLE001 - the REST error JSON, as the message
            status, body = describe(exc)
            error = ResourceNotFoundError if status == 404 else ResourceError
            raise error(json.dumps(body, ensure_ascii=False)) from None
        return json.dumps(data, ensure_ascii=False)

    return server


def mcp_endpoint(server: RagdMCP, config: Any, key: str | None) -> Any:
    """The ASGI endpoint for ``/mcp`` (streamable HTTP, stateless), behind the API key."""
    from .http import RequireKey

    app = server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True,
                                     json_response=True, host=config.host)
    return RequireKey(app.routes[0].endpoint, key)


def run_stdio(engine: Engine) -> None:
    """Serve MCP over stdin/stdout until the client closes it."""
    try:
        build_mcp(engine).run("stdio")
    finally:
        engine.close()
