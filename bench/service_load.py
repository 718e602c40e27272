"""Load on the REST service: N clients of mixed /v1/search and /v1/ask for S seconds while one
more client ingests, against `ragd serve --workers W` over SQLite and over PostgreSQL.

    python bench/service_load.py [--backend sqlite,postgres] [--seconds 60] [--clients 8]
                                 [--workers 2] [--ask-share 0.25]

The store holds the bundled demo corpus (ear profile, the bundled model); the ingesting client
posts batches of 5 new documents to another collection of the same store for the whole run.
Only 127.0.0.1 is contacted. Prints a table (requests, errors, throughput, p50/p95 latency per
operation) and writes bench/results/service_load.json.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (load_average, machine_info, make_console, median, percentile, pgserver,  # noqa: E402
                     write_results)

KEY = "bench-key-" + "b" * 24
QUERIES = ["Is a license required to export items subject to the EAR?", "general prohibitions",
           "15 CFR 744.21", "military end users", "license exception", "punishment for cheating",
           "murder", "theft of property", "how long must audit logs be kept", "reexport",
           "activities of U.S. persons", "deemed export of technology"]
QUESTIONS = ["How long must audit logs be retained?", "What is the punishment for theft?",
             "What are the restrictions on military end users?",
             "How much does an export license cost?", "Who may read production audit logs?"]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(store: str) -> None:
    from ragd.collection import open_collection
    from ragd.demo import demo_corpus
    from ragd.ingest.loaders import LoadOptions
    from ragd.ingest.pipeline import ingest

    coll = open_collection(store, "bench", create=True, profile="ear")
    ingest([demo_corpus()], coll, options=LoadOptions(exclude=("SOURCE.txt",)))
    coll.close()


def run_load(url: str, seconds: float, clients: int, ask_share: float) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {KEY}"}
    lat: dict[str, list[float]] = {"search": [], "ask": [], "ingest": []}
    errors: dict[str, list[str]] = {"search": [], "ask": [], "ingest": []}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def record(op: str, started: float, response: httpx.Response | None, problem: str = ""
               ) -> None:
        with lock:
            lat[op].append((time.perf_counter() - started) * 1000)
            if response is None or response.status_code != 200:
                errors[op].append(problem or f"{response.status_code} {response.text[:160]}")

    def client(n: int) -> None:
        rng = random.Random(n)
        with httpx.Client(base_url=url, headers=headers, timeout=120) as c:
            while time.monotonic() < stop:
                op = "ask" if rng.random() < ask_share else "search"
                body = ({"question": rng.choice(QUESTIONS)} if op == "ask"
                        else {"query": rng.choice(QUERIES), "k": 10})
                started = time.perf_counter()
                try:
                    record(op, started, c.post(f"/v1/{op}", json=body))
                except httpx.HTTPError as exc:
                    record(op, started, None, repr(exc))

    def ingester() -> None:
        with httpx.Client(base_url=url, headers=headers, timeout=300) as c:
            i = 0
            while time.monotonic() < stop:
                docs = [{"doc_id": f"load-{i}-{j}", "text": f"Load note {i}.{j}: shipment "
                         f"{i * 5 + j} of controlled items was reviewed by the export team "
                         "and filed with its license determination."} for j in range(5)]
                started = time.perf_counter()
                try:
                    record("ingest", started, c.post("/v1/ingest", json={
                        "documents": docs, "collection": "bench-ingest"}))
                except httpx.HTTPError as exc:
                    record("ingest", started, None, repr(exc))
                i += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    threads.append(threading.Thread(target=ingester))
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    out = {}
    for op, values in lat.items():
        out[op] = {"requests": len(values), "errors": len(errors[op]),
                   "error_samples": errors[op][:5], "per_second": len(values) / wall,
                   "p50_ms": median(values) if values else None,
                   "p95_ms": percentile(values, 95) if values else None}
    out["wall_seconds"] = wall
    return out


def serve(store: str, home: Path, workers: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "RAGD_API_KEY": KEY, "RAGD_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "ragd.cli", "serve", "--store", store,
                             "--collection", "bench", "--port", str(port), "--workers",
                             str(workers), "--log-level", "warning"], env=env, cwd=home,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                # warm each worker's models (a few requests land on every worker)
                for q in QUESTIONS:
                    httpx.post(f"{url}/v1/ask", json={"question": q}, timeout=300,
                               headers={"Authorization": f"Bearer {KEY}"})
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("the server did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="sqlite,postgres")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--ask-share", type=float, default=0.25)
    parser.add_argument("--out", default="service_load", help="results name (bench/results/)")
    args = parser.parse_args()
    console = make_console()
    runs = []
    for backend in args.backend.split(","):
        with tempfile.TemporaryDirectory(prefix="ragd-load-") as tmp:
            home = Path(tmp)
            local = None
            if backend == "postgres":
                local = pgserver().start(fast_unsafe=True)
                store = local.dsn
            else:
                store = str(home / "store")
            try:
                prepare(store)
                proc, url = serve(store, home, args.workers)
                try:
                    load_before = load_average()
                    result = run_load(url, args.seconds, args.clients, args.ask_share)
                finally:
                    proc.terminate()
                    proc.wait(timeout=60)
            finally:
                if local is not None:
                    local.stop()
            runs.append({"backend": backend, "workers": args.workers, "clients": args.clients,
                         "seconds": args.seconds, "load_average_before": load_before,
                         **result})
    from rich.table import Table

    table = Table(title=f"ragd serve under load: {args.clients} clients "
                  f"({int(args.ask_share * 100)} % ask) + 1 ingesting, {args.seconds:g} s, "
                  f"{args.workers} workers")
    table.caption = "load average before each run: " + ", ".join(
        f"{r['backend']} {r['load_average_before'][0]:.1f}" for r in runs
        if r["load_average_before"])
    for col in ("backend", "operation", "requests", "errors", "req/s", "p50 ms", "p95 ms"):
        table.add_column(col, justify="left" if col in ("backend", "operation") else "right")
    for run in runs:
        for op in ("search", "ask", "ingest"):
            r = run[op]
            if not r["requests"]:
                continue
            table.add_row(run["backend"], op, str(r["requests"]), str(r["errors"]),
                          f"{r['per_second']:.1f}",
                          f"{r['p50_ms']:.0f}" if r["p50_ms"] is not None else "-",
                          f"{r['p95_ms']:.0f}" if r["p95_ms"] is not None else "-")
    console.print(table)
    path = write_results(args.out, {"machine": machine_info(), "runs": runs,
                                          "settings": vars(args)})
    console.print(f"wrote {path}")
    return 1 if any(run[op]["errors"] for run in runs for op in ("search", "ask", "ingest")) \
        else 0


if __name__ == "__main__":
    raise SystemExit(main())
