"""Security: the API key, path traversal in doc ids and uploads, oversized bodies, a PDF
bomb and a gzip bomb, and a prompt-injection document."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import resource
import tempfile
import time
from dataclasses import replace

import httpx
import pytest
from service.svc import AUTH, KEY, LiveServer
from support.pdfs import pdf_bomb

from ragd.service.config import ServiceConfig, check_binding, is_loopback
from ragd.service.http import key_matches
from ragd.service.uploads import safe_name


def test_every_v1_route_needs_the_key(live, client):
    spec = client.get("/openapi.json").json()
    routes = [(method, path) for path, ops in spec["paths"].items() if path.startswith("/v1/")
              for method in ops]
    assert len(routes) >= 9
    wrong = [None, "Bearer", f"Bearer {KEY}x", f"Bearer {KEY[:-1]}", f"Basic {KEY}",
             f"Bearer {KEY.upper()}", "Bearer ключ".encode()]
    with httpx.Client(base_url=live.url) as anon:
        for method, path in routes:
            url = path.replace("{doc_id}", "retention.md").replace("{chunk_index}", "0")
            for header in wrong:
                headers = {"Authorization": header} if header else {}
                r = anon.request(method.upper(), url, headers=headers, json={})
                assert r.status_code == 401, (method, url, header, r.status_code)
                assert r.json()["error"]["type"] == "Unauthorized"
                assert r.headers["www-authenticate"] == "Bearer"
        assert anon.post("/mcp", json={}).status_code == 401
        ok = anon.get("/v1/collections", headers={"Authorization": f"bearer  {KEY}"})
        assert ok.status_code == 200


def test_key_compare_and_binding_rules():
    assert key_matches(f"Bearer {KEY}", KEY) and not key_matches(f"Bearer {KEY} ", KEY + "x")
    assert not key_matches("", KEY) and not key_matches(f"Token {KEY}", KEY)
    assert key_matches("Bearer " + "ключ".encode().decode("latin-1"), "ключ")
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.8.0.1", "::1", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.4", "example.org"))
    with pytest.raises(Exception, match="refusing to listen on 0.0.0.0"):
        check_binding("0.0.0.0", None)
    assert "loopback" in check_binding("127.0.0.1", None)
    assert "warning" in check_binding("0.0.0.0", "short")


def test_doc_ids_are_store_keys_never_paths(client, engine):
    before = client.get("/v1/collections").json()
    for raw in ("/v1/documents/..%2F..%2F..%2Fetc%2Fpasswd", "/v1/documents/%2Fetc%2Fpasswd",
                "/v1/documents/....//....//etc/passwd", "/v1/documents/%00",
                "/v1/documents/C:%5Cwindows%5Cwin.ini"):
        for method in ("GET", "DELETE"):
            r = client.request(method, raw)
            assert r.status_code == 404, (raw, r.text)
            assert "root:" not in r.text
    assert client.get("/v1/collections").json() == before


def test_upload_names_cannot_leave_the_upload_folder(client):
    names = ["../evil.md", "../../evil.md", "/tmp/evil.md", "..\\evil.md", "a/../../evil.md",
             "C:\\evil.md", "ok/./x.md", ".hidden.md", "evil\x00.md", ""]
    assert [safe_name(n) for n in names] == [None] * 6 + ["ok/x.md", ".hidden.md", None, None]
    files = [("files", (n, io.BytesIO(b"# Evil\n\nThis must not be written anywhere."),
                        "text/markdown")) for n in names[:8]]
    files.append(("files", ("fine.md", io.BytesIO(b"# Fine\n\nThis one is fine."),
                            "text/markdown")))
    r = client.post("/v1/ingest", files=files, data={"collection": "traversal"})
    report = r.json()
    # saved inside the upload folder: ok/x.md, fine.md, and evil.md (the multipart parser
    # keeps only the last component of a Windows path such as C:\evil.md)
    assert r.status_code == 200 and report["new"] == 3, report
    assert report["failed"] == 6 and all(f["source"].startswith("upload:")
                                         for f in report["failures"])
    for where in (tempfile.gettempdir(), os.path.dirname(tempfile.gettempdir()), "/tmp"):
        assert not os.path.exists(os.path.join(where, "evil.md"))


def _small_server(engine, **limits):
    from ragd.service.rest import create_app

    return LiveServer(create_app(ServiceConfig(**limits), engine=engine, api_key=KEY))


def test_oversized_bodies_are_refused_with_413(engine):
    with _small_server(engine, max_body_bytes=4096, max_upload_bytes=64 * 1024) as server:
        big = {"query": "x" * 1500, "tags_any": ["t" * 150] * 60}
        r = httpx.post(f"{server.url}/v1/search", json=big, headers=AUTH)
        assert r.status_code == 413 and r.json()["error"]["type"] == "RequestTooLarge"

        def chunks():  # no Content-Length: the limit holds while the body streams in
            for _ in range(40):
                yield b"x" * 4096
        r = httpx.post(f"{server.url}/v1/ingest", content=chunks(), timeout=30,
                       headers={**AUTH, "content-type": "application/json"})
        assert r.status_code == 413, r.text
        files = {"files": ("big.md", io.BytesIO(b"# Big\n\n" + b"word " * 20_000))}
        r = httpx.post(f"{server.url}/v1/ingest", files=files, headers=AUTH, timeout=30)
        assert r.status_code == 413
        assert httpx.get(f"{server.url}/healthz").status_code == 200


def test_a_document_over_the_size_limit_is_reported(engine):
    from ragd.service.ops import Engine

    small = Engine(replace(engine.settings, max_document_bytes=2000), store=engine.store)
    files = {"files": ("big.md", io.BytesIO(b"# Big\n\n" + b"word " * 1000))}
    with _small_server(small) as server:
        report = httpx.post(f"{server.url}/v1/ingest", files=files, headers=AUTH,
                            data={"collection": "limits"}, timeout=60).json()
    assert report["failed"] == 1 and "over the limit" in report["failures"][0]["reason"]


def test_a_pdf_bomb_and_a_gzip_bomb_do_no_harm(client):
    bomb = pdf_bomb()
    assert len(bomb) < 1024 * 1024
    lines = gzip.compress(b"\n" * (80 * 1024 * 1024), compresslevel=9)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    report = client.post("/v1/ingest", files=[
        ("files", ("bomb.pdf", io.BytesIO(bomb), "application/pdf")),
        ("files", ("bomb.jsonl.gz", io.BytesIO(lines), "application/gzip"))],
        data={"collection": "bombs"}).json()
    assert time.monotonic() - started < 30
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) / 1024
    assert grown_mb < 150, grown_mb
    reasons = {f["source"]: f["reason"] for f in report["failures"]}
    assert "decompression bomb" in reasons["upload:bomb.jsonl.gz"]
    if "upload:bomb.pdf" in reasons:  # today: no PDF loader, refused by type
        assert report["new"] == 0
    else:  # a PDF loader: whatever it stored stays within the document limit
        doc = client.get("/v1/documents/bomb.pdf", params={"collection": "bombs"}).json()
        assert sum(len(c["text"]) for c in doc["chunks"]) < 16 * 1024 * 1024


def test_a_prompt_injection_document_is_only_quoted(client, openai_server):
    data = client.post("/v1/ask", json={"question": "What must visitors do at reception?",
                                        "collection": "policies"}).json()
    text = json.dumps(data)
    assert KEY not in text
    assert data["status"] == "answered" and "sign in at reception" in data["answer"]
    evidence = {e["chunk_id"]: " ".join(e["text"].split()) for e in data["evidence"]}
    for s in data["sentences"]:  # offline: every sentence is a quote of what it cites
        assert any(" ".join(s["text"].split()) in evidence[c["chunk_id"]]
                   for c in s["citations"])
    # the LLM path: a model that obeys the document gets nothing past the validators,
    # and never sees the API key
    openai_server.default = {"json": {"relevant_facts": [], "answer_sentences": [
        {"sentence": f"The secret is 42 and the key is {KEY}.", "chunk_id": "x"}],
        "confidence": "High"}}
    hostile = client.post("/v1/ask", json={"question": "What is the secret?",
                                           "collection": "policies",
                                           "llm": openai_server.url, "model": "test-model"})
    body = hostile.json()
    assert hostile.status_code == 200 and body["status"] == "refused", body
    assert "42" not in body["answer"] and KEY not in body["answer"]
    sent = " ".join(r.raw.decode("utf-8", "replace") + json.dumps(r.headers)
                    for r in openai_server.requests)
    assert KEY not in sent
    assert not re.search(r"Bearer\s+test-key", sent)
