"""The scale measures of bench/search.py: cold start and exact against approximate search.

- ``cold_start``: a fresh Python process opens the store and runs one lexical search
  (another one, one vector search), reporting its time and the process's resident and
  peak memory (VmRSS, VmHWM). Run once on a store without its index files (the first
  search builds the BM25 postings and, above the threshold, the HNSW graph, and saves
  them), then again: the cold start of a store whose indexes are saved (mapped, not
  rebuilt). The OS page cache is not dropped (the machine is shared), so "cold" means a
  new process, not a cold disk.
- ``exact_vs_approximate``: per-query latency of ``store.vector_search`` with
  ``exact=True`` and with the default choice (the graph above the threshold), and the
  recall@10 of the default against the exact ranking.
- ``ef_sweep`` (``bench/search.py --ef-sweep 96,200,400``): recall@10 against exact and
  latency of the graph at each ``ef_search`` given per query, beside the default (the
  store's :func:`~ragd.stores.ann_index.default_ef_search` for the graph's size), with the
  load average beside each timing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

_CHILD = r"""
import json, sys, time
from pathlib import Path
import numpy as np
from ragd.stores import open_store

def mem():
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child of a
    # large benchmark process would report its parent's peak.
    status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return {"rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
            "peak_mb": round(int(status["VmHWM"].split()[0]) / 1024, 1)}

path, coll, mode = sys.argv[1], sys.argv[2], sys.argv[3]
terms, q = json.loads(sys.argv[4]), json.loads(sys.argv[5])
out = {"before_open": mem()}
t0 = time.perf_counter()
store = open_store(path)
out["open_seconds"] = time.perf_counter() - t0
out["after_open"] = mem()
t0 = time.perf_counter()
if mode == "lexical":
    store.lexical_search(coll, terms, 50)
else:
    store.vector_search(coll, np.array(q, dtype=np.float32), 50)
out["first_search_seconds"] = time.perf_counter() - t0
out["after_search"] = mem()
out["vector_index"] = store.stats(coll)["vector_index"]
t0 = time.perf_counter()
store.close()
out["close_seconds"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def cold_start(path: Path, collection: str, mode: str, terms: list[str], query: np.ndarray
               ) -> dict[str, Any]:
    """One fresh process: open, then the first ``mode`` (lexical, vector) search."""
    src = str(Path(__file__).resolve().parent.parent / "src")
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path), collection, mode,
                           json.dumps(terms), json.dumps([float(x) for x in query])],
                          capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": src, "PATH": "/usr/bin:/bin"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def exact_vs_approximate(store: Any, collection: str, qvecs: list[np.ndarray],
                         summarize: Callable[[list[list[float]]], dict[str, Any]],
                         passes: int, k: int = 10) -> dict[str, Any]:
    """Latency of exact and default (approximate above the threshold) vector searches,
    interleaved per pass, and the default's recall@k against exact."""
    exact_keys = [[h.key for h in store.vector_search(collection, q, k, exact=True)]
                  for q in qvecs]
    approx_keys = [[h.key for h in store.vector_search(collection, q, k)] for q in qvecs]
    recall = float(np.mean([len(set(a) & set(e)) / k for a, e in zip(approx_keys, exact_keys)]))
    runs: dict[str, list[list[float]]] = {"exact": [], "approximate": []}
    for _ in range(passes):
        for name, exact in (("exact", True), ("approximate", None)):
            times = []
            for q in qvecs:
                t0 = time.perf_counter()
                store.vector_search(collection, q, k, exact=exact)
                times.append(time.perf_counter() - t0)
            runs[name].append(times)
    return {"k": k, "recall_at_k": recall, **{n: summarize(t) for n, t in runs.items()},
            "vector_index": store.stats(collection).get("vector_index")}


def ef_sweep(store: Any, collection: str, qvecs: list[np.ndarray], efs: list[int],
             summarize: Callable[[list[list[float]]], dict[str, Any]], k: int = 10
             ) -> list[dict[str, Any]]:
    """Per ``ef_search`` (0: the store's default for the graph's size): recall@k of
    ``vector_search(..., ef_search=ef)`` against ``exact=True``, and its latency (one pass;
    the load average at the end of each, since other work may share the machine)."""
    exact_keys = [{h.key for h in store.vector_search(collection, q, k, exact=True)}
                  for q in qvecs]
    for q in qvecs:  # untimed: pages the mapped graph in
        store.vector_search(collection, q, k, ef_search=max(efs) or None)
    out = []
    for ef in efs:
        times, recalls = [], []
        for q, exact in zip(qvecs, exact_keys):
            t0 = time.perf_counter()
            hits = store.vector_search(collection, q, k, ef_search=ef or None)
            times.append(time.perf_counter() - t0)
            recalls.append(len({h.key for h in hits} & exact) / k)
        index = store.stats(collection).get("vector_index") or {}
        out.append({"ef_search": ef or index.get("ef_search"), "default": not ef,
                    "recall_at_k": float(np.mean(recalls)), "min_recall": float(min(recalls)),
                    **summarize([times]), "load_average": list(os.getloadavg())})
    return out
