"""The REST API as a client uses it: every route, its JSON, its errors."""

from __future__ import annotations

import io
import json
import re

import httpx

from ragd.service import models as m


def test_health_docs_and_openapi_need_no_key(live):
    with httpx.Client(base_url=live.url) as anon:
        health = anon.get("/healthz").json()
        assert health == {"status": "ok", "version": health["version"], "auth": True, "mcp": True}
        spec = anon.get("/openapi.json").json()
        assert {"/v1/search", "/v1/ask", "/v1/ingest", "/v1/documents/{doc_id}",
                "/v1/collections", "/v1/stats", "/healthz"} <= set(spec["paths"])
        body = spec["paths"]["/v1/ingest"]["post"]["requestBody"]["content"]
        assert set(body) == {"application/json", "multipart/form-data"}
        assert "swagger" in anon.get("/docs").text.lower()


def test_search_is_the_cli_json_with_citations(client):
    data = client.post("/v1/search", json={"query": "general prohibitions on exports",
                                           "k": 3}).json()
    m.SearchResults.model_validate(data)
    assert data["plan"] == {"k": 3, "mode": "hybrid", "fusion": "rrf"}
    assert data["profile"] == "ear" and len(data["results"]) == 3
    top = data["results"][0]
    assert top["citation"].startswith("15 CFR 736.2") and top["doc_id"].startswith("EAR-")
    assert [r["rank"] for r in data["results"]] == [1, 2, 3]


def test_search_filters_modes_and_collections(client):
    body = {"query": "audit logs", "collection": "policies", "tags_any": ["security"],
            "mode": "lexical", "k": 10}
    data = client.post("/v1/search", json=body).json()
    assert data["profile"] == "default" and data["plan"]["mode"] == "lexical"
    assert data["results"] and all("security" in r["tags"] for r in data["results"])
    none = client.post("/v1/search", json={**body, "tags_all": ["security", "hr"]}).json()
    assert none["results"] == []


def test_ask_answers_with_citations_and_refuses(client):
    data = client.post("/v1/ask", json={"question": "How long must audit logs be retained?",
                                        "collection": "policies"}).json()
    m.AnswerResponse.model_validate(data)
    assert data["status"] == "answered" and "400 days" in data["answer"]
    ids = {e["chunk_id"] for e in data["evidence"]}
    assert all(c["chunk_id"] in ids for s in data["sentences"] for c in s["citations"])
    refused = client.post("/v1/ask", json={"question": "What does ITAR say about USML "
                                           "defense articles?", "collection": "policies"}).json()
    assert refused["status"] == "refused" and refused["sentences"] == []
    assert refused["answer"] == "I cannot answer that from the documents I have."


def test_ask_on_ear_carries_the_cfr_section(client):
    data = client.post("/v1/ask", json={"question": "Which countries are subject to "
                                        "comprehensive sanctions?"}).json()
    assert data["profile"] == "ear"
    assert data["evidence"] and all("section" in e for e in data["evidence"])
    assert data["status"] == "answered", data["refusal_reason"]
    cited = [c for s in data["sentences"] for c in s["citations"]]
    assert cited and all(c["citation"].startswith("15 CFR ") and "section" in c for c in cited)
    assert any(c["citation"].startswith("15 CFR 746.1") for c in cited)


def test_ingest_json_then_read_and_delete(client):
    docs = [{"doc_id": "notes/first.md", "text": "# First\n\nThe canteen opens at eight.",
             "format": "markdown", "team": "facilities"},
            {"doc_id": "bad", "text": ""},
            {"doc_id": "notes/first.md", "text": "again"}]
    report = client.post("/v1/ingest", json={"documents": docs, "collection": "scratch",
                                             "tags": ["t1"], "metadata": {"batch": 7}}).json()
    assert (report["new"], report["failed"]) == (1, 2), report
    assert {f["source"] for f in report["failures"]} == {"request:document 2",
                                                         "request:document 3"}
    again = client.post("/v1/ingest", json={"documents": docs[:1], "collection": "scratch",
                                            "tags": ["t1"], "metadata": {"batch": 7}}).json()
    assert again["unchanged"] == 1
    doc = client.get("/v1/documents/notes/first.md", params={"collection": "scratch"}).json()
    m.DocumentResponse.model_validate(doc)
    assert doc["metadata"] == {"team": "facilities", "batch": 7}
    assert doc["chunks"][0]["tags"] == ["t1"] and doc["chunks"][0]["citation"]
    chunk = client.get("/v1/documents/notes/first.md/chunks/0",
                       params={"collection": "scratch"}).json()
    assert chunk["text"] == doc["chunks"][0]["text"] and chunk["collection"] == "scratch"
    listed = client.get("/v1/documents", params={"collection": "scratch"}).json()
    assert [d["doc_id"] for d in listed["documents"]] == ["notes/first.md"]
    assert client.delete("/v1/documents/notes/first.md",
                         params={"collection": "scratch"}).json() == {
        "deleted": "notes/first.md", "collection": "scratch"}
    gone = client.get("/v1/documents/notes/first.md", params={"collection": "scratch"})
    assert gone.status_code == 404 and gone.json()["error"]["type"] == "NotFoundError"


def test_ingest_multipart_files(client):
    files = [("files", ("guide.md", io.BytesIO(b"# Guide\n\nBikes are parked in the yard."),
                        "text/markdown")),
             ("files", ("sub/notes.txt", io.BytesIO(b"Plants are watered on Mondays."),
                        "text/plain")),
             ("files", ("scan.exe", io.BytesIO(b"MZ\x00\x01"), "application/octet-stream"))]
    report = client.post("/v1/ingest", files=files,
                         data={"collection": "uploads", "tag": ["a", "b"],
                               "metadata": json.dumps({"origin": "test"})}).json()
    assert (report["new"], report["failed"]) == (2, 1), report
    assert report["failures"][0]["source"] == "upload:scan.exe"
    assert "unsupported file type" in report["failures"][0]["reason"]
    doc = client.get("/v1/documents/sub/notes.txt", params={"collection": "uploads"}).json()
    assert doc["source"] == "upload:sub/notes.txt" and doc["metadata"] == {"origin": "test"}
    hits = client.post("/v1/search", json={"query": "bikes yard", "collection": "uploads",
                                           "tags_all": ["a", "b"]}).json()
    assert hits["results"][0]["doc_id"] == "guide.md"


def test_collections_stats_profiles(client, engine):
    colls = client.get("/v1/collections").json()
    m.CollectionsResponse.model_validate(colls)
    by_name = {c["name"]: c for c in colls["collections"]}
    assert colls["default"] == "demo" and by_name["demo"]["profile"] == "ear"
    assert by_name["policies"]["documents"] == 7
    stats = client.get("/v1/stats", params={"collection": "policies"}).json()
    assert stats == engine.stats("policies")
    assert [p["name"] for p in client.get("/v1/profiles").json()] == [
        "default", "ear", "legal-in", "pharma-qa", "rules"]


def test_errors_are_json_with_a_type_and_never_a_500(client):
    cases = [
        (client.post("/v1/search", json={"query": ""}), 422, "ValidationError"),
        (client.post("/v1/search", json={"query": "x" * 2001}), 422, "ValidationError"),
        (client.post("/v1/search", json={"query": "   "}), 422, "ValidationError"),
        (client.post("/v1/search", json={"query": "x", "bogus": 1}), 422, "ValidationError"),
        (client.post("/v1/search", json={"query": "x", "collection": "nope"}), 404,
         "UnknownCollectionError"),
        (client.post("/v1/search", json={"query": "x", "profile": "rules"}), 409,
         "ProfileMismatchError"),
        (client.post("/v1/search", json={"query": "x", "profile": "/etc/passwd"}), 400,
         "UsageError"),
        (client.post("/v1/search", json={"query": "x", "fusion": "borda"}), 400, None),
        (client.post("/v1/search", content=b"{nope", headers={"content-type":
                                                              "application/json"}), 422,
         "ValidationError"),
        (client.get("/v1/documents/nothing-here"), 404, "NotFoundError"),
        (client.get("/v1/documents/EAR-736.2(b)/chunks/999"), 404, "NotFoundError"),
        (client.get("/v1/nowhere"), 404, "NotFound"),
        (client.put("/v1/search", json={}), 405, "MethodNotAllowed"),
        (client.post("/v1/ingest", content=b"x", headers={"content-type": "text/plain"}), 415,
         "UnsupportedMediaType"),
        (client.post("/v1/ingest", json={"documents": []}), 422, "ValidationError"),
    ]
    for response, status, kind in cases:
        body = response.json()
        assert response.status_code == status, (response.request.url, body)
        assert set(body) == {"error"} and body["error"]["message"], body
        if kind:
            assert body["error"]["type"] == kind, body


def test_a_slow_request_times_out_cleanly(engine):
    from ragd.service.config import ServiceConfig
    from ragd.service.rest import create_app
    from service.svc import LiveServer

    class Slow:
        def __getattr__(self, name):
            return getattr(engine, name)

        def search(self, *a, **k):
            import time
            time.sleep(3)
            return {}

    app = create_app(ServiceConfig(request_timeout=0.5), engine=Slow(), api_key=None)
    with LiveServer(app) as server:
        r = httpx.post(f"{server.url}/v1/search", json={"query": "x"}, timeout=10)
        assert r.status_code == 504 and r.json()["error"]["type"] == "RequestTimeout"
        assert httpx.get(f"{server.url}/healthz").status_code == 200


def test_no_key_means_open_on_loopback(engine):
    from ragd.service.config import ServiceConfig
    from ragd.service.rest import create_app
    from service.svc import LiveServer

    with LiveServer(create_app(ServiceConfig(), engine=engine, api_key=None)) as server:
        assert httpx.get(f"{server.url}/healthz").json()["auth"] is False
        r = httpx.get(f"{server.url}/v1/collections")
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"


def test_the_page_is_self_contained_under_a_strict_csp(live):
    r = httpx.get(f"{live.url}/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "'unsafe-inline'" not in csp
    assert "connect-src 'self'" in csp and r.headers["x-frame-options"] == "DENY"
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", r.text)
    assert "<script>" in r.text and "<style>" in r.text
