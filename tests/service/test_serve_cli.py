"""``ragd serve`` as a user runs it: two worker processes over one SQLite store, the key
from a file and never in the output, searches going on while another client ingests."""

from __future__ import annotations

import subprocess
import threading
import time

import httpx

from service.svc import PYTHON, free_port, ragd_env

KEY = "serve-cli-key-" + "k" * 24


def test_no_key_refuses_a_public_address(service_home):
    run = subprocess.run([PYTHON, "-m", "ragd.cli", "serve", "--host", "0.0.0.0"],
                         env=ragd_env(service_home), cwd=service_home, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2
    assert "no API key configured: refusing to listen on 0.0.0.0" in run.stderr


def test_workers_serve_searches_while_one_client_ingests(service_home, engine):
    key_file = service_home / "api-key"
    key_file.write_text(KEY + "\n")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # The server's output goes to a file, never to a pipe nobody reads during the load:
    # a full pipe (64 KiB of access log, a few hundred requests on a fast machine) blocks
    # the worker writing to it, in its event loop, and the server stops answering.
    log_path = service_home / "serve-workers.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed in the finally below
    proc = subprocess.Popen(
        [PYTHON, "-m", "ragd.cli", "serve", "--port", str(port), "--workers", "2",
         "--api-key-file", str(key_file), "--collection", "policies", "--mcp"],
        env=ragd_env(service_home), cwd=service_home, stdout=log, stderr=subprocess.STDOUT)
    headers = {"Authorization": f"Bearer {KEY}"}
    errors: list[str] = []
    counts = {"search": 0, "ingest": 0}
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, "server did not start"
            time.sleep(0.3)
        stop = time.monotonic() + 3

        def searcher(n: int) -> None:
            with httpx.Client(base_url=url, headers=headers, timeout=60) as c:
                while time.monotonic() < stop:
                    r = c.post("/v1/search", json={"query": f"audit logs {n}", "k": 3})
                    if r.status_code != 200 or not r.json()["results"]:
                        errors.append(f"search {r.status_code} {r.text[:200]}")
                    counts["search"] += 1

        def ingester() -> None:
            with httpx.Client(base_url=url, headers=headers, timeout=120) as c:
                i = 0
                while time.monotonic() < stop:
                    docs = [{"doc_id": f"load-{i}-{j}", "text": f"Note {i}.{j}: the canteen "
                             f"serves soup number {i * 10 + j} on weekdays."} for j in range(5)]
                    r = c.post("/v1/ingest", json={"documents": docs,
                                                   "collection": "serve-load"})
                    if r.status_code != 200 or r.json()["new"] != 5:
                        errors.append(f"ingest {r.status_code} {r.text[:200]}")
                    counts["ingest"] += 1
                    i += 1

        threads = [threading.Thread(target=searcher, args=(n,)) for n in range(4)]
        threads.append(threading.Thread(target=ingester))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[:5]
        assert counts["search"] >= 4 and counts["ingest"] >= 1, counts
        # (the load's clients wait up to 60 s; so do these: a worker may still be finishing
        # the last ingest's work on a busy 2-core machine, and the default 5 s is no check)
        assert httpx.get(f"{url}/v1/stats", headers={"Authorization": "Bearer nope"},
                         timeout=60).status_code == 401
        stats = httpx.get(f"{url}/v1/stats", params={"collection": "serve-load"},
                          headers=headers, timeout=60).json()
        assert stats["collections"][0]["documents"] == 5 * counts["ingest"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=60)
        log.close()
    out = log_path.read_text()
    assert "API key required" in out and KEY not in out
    assert "Started parent process" in out or "Uvicorn running" in out
