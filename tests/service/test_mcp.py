"""The MCP server through the official SDK's own client: over stdio (``ragd mcp``, a
subprocess) and over streamable HTTP (``/mcp`` of the live server, behind the key)."""

from __future__ import annotations

import json
import anyio
import pytest

from service.mcp_clients import http_client, stdio_client, structured
from service.svc import AUTH

TOOLS = {"search", "ask", "get_chunk", "list_collections"}


def test_stdio_tools_resources_and_results(service_home, engine, client):
    async def run():
        async with stdio_client(service_home, "--collection", "demo") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            search = await c.call_tool("search", {"query": "military end users", "k": 3})
            chunk = await c.call_tool("get_chunk", {"doc_id": "records-policy.md",
                                                    "chunk_index": 0})
            colls = await c.call_tool("list_collections", {})
            bad = await c.call_tool("search", {"query": "x", "collection": "nope"})
            invalid = await c.call_tool("search", {"query": ""})
            templates = (await c.list_resource_templates()).resource_templates
            listed = (await c.list_resources()).resources
            doc = await c.read_resource("ragd://demo/EAR-736.2(b)")
            return tools, search, chunk, colls, bad, invalid, templates, listed, doc
    tools, search, chunk, colls, bad, invalid, templates, listed, doc = anyio.run(run)
    assert set(tools) == TOOLS
    for t in tools.values():
        assert t.output_schema and t.output_schema["type"] == "object", t.name
        assert t.description
    assert tools["search"].input_schema["properties"]["query"]["maxLength"] == 2000
    assert tools["search"].input_schema["required"] == ["query"]
    assert structured(search) == client.post("/v1/search", json={
        "query": "military end users", "k": 3}).json()
    assert structured(chunk) == client.get("/v1/documents/records-policy.md/chunks/0").json()
    assert structured(colls) == client.get("/v1/collections").json()
    assert bad.is_error and json.loads(bad.content[0].text)["error"]["type"] == \
        "UnknownCollectionError"
    assert invalid.is_error  # the input schema refuses an empty query
    assert [t.uri_template for t in templates] == ["ragd://{collection}/{+doc_id}"]
    uris = {r.uri for r in listed}
    assert "ragd://demo/EAR-736.2(b)" in uris and "ragd://policies/retention.md" in uris
    assert json.loads(doc.contents[0].text) == client.get("/v1/documents/EAR-736.2(b)").json()


def test_http_needs_the_key(live):
    async def run(headers):
        async with http_client(live.url, headers) as c:
            return await c.list_tools()
    with pytest.raises(BaseException):
        anyio.run(run, None)
    with pytest.raises(BaseException):
        anyio.run(run, {"Authorization": "Bearer wrong-key-wrong-key"})
    assert {t.name for t in anyio.run(run, AUTH).tools} == TOOLS


def test_http_resources_and_traversal(live, client):
    async def run():
        async with http_client(live.url, AUTH) as c:
            doc = await c.read_resource("ragd://policies/retention.md")
            errors = []
            for uri in ("ragd://policies/nothing", "ragd://policies/../../etc/passwd",
                        "ragd://nope/retention.md"):
                try:
                    await c.read_resource(uri)
                    errors.append(None)
                except Exception as exc:  # noqa: BLE001 - an MCP error for the client
                    errors.append(str(exc))
            return doc, errors
    doc, errors = anyio.run(run)
    assert json.loads(doc.contents[0].text) == client.get(
        "/v1/documents/retention.md", params={"collection": "policies"}).json()
    assert all(errors), errors
    assert "NotFoundError" in errors[0] and "root:" not in "".join(errors)
    assert "UnknownCollectionError" in errors[2]
