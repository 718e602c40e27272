"""BM25 accumulation of one query as one compiled loop (numba), bit-identical to numpy's.

The embedded store's exhaustive BM25 (``LexicalView._top_all``) weighs every posting of the
query's terms. In numpy that is some twenty array operations per query, each a pass over
the postings and a call costing microseconds whatever its size: on a 10k-chunk collection
the calls, not the arithmetic, are most of a query's time, and at 1M chunks the passes are.
Here the same sum is one loop per segment, compiled once by numba (``cache=True``: the
machine code is kept on disk, so a new process loads it instead of compiling again) and
run without the GIL, so the hybrid search's vector half really runs beside it.

Bit-identical to the numpy path by construction: the term weights (idf, in numpy, whose
``log`` may differ from LLVM's in the last place) are computed by the caller; each
posting's contribution is the same expression, ``(w * tf) / (tf + norm[row])``, in float64;
and each row's postings are added in the same order (a row lives in one segment, and a
segment's terms are visited in the query's order). No ``fastmath``: nothing is reordered.

When it is used (``RAGD_LEXICAL_KERNEL``):

- ``auto`` (the default): once it pays. Loading numba and the cached machine code costs
  about 0.3 s of CPU in a new process (and compiling, the first time on a machine, a few
  seconds); the kernel saves some 50 microseconds a query on a 10k-chunk collection and
  milliseconds at 1M chunks. So a process loads it, on a background thread, at its first
  search of a collection holding ``AUTO_POSTINGS`` postings or more, or at its
  ``AUTO_SEARCHES``-th search (a service, an evaluation); until it is ready, and in a
  one-off command on a small store, numpy serves. The results are the same either way.
- ``numba``: loaded at the first search, in the foreground (benchmarks, tests).
- ``numpy``: never.

Where numba cannot be imported (a platform without its wheels), numpy serves, silently.
"""

from __future__ import annotations

import itertools
import os
import threading
from typing import Any, Callable

import numpy as np

ENV = "RAGD_LEXICAL_KERNEL"
MODES = ("auto", "numba", "numpy")
AUTO_POSTINGS = 5_000_000
"""A collection this big (about 60,000 chunks of prose) loads the kernel at its first search."""
AUTO_SEARCHES = 1_000
"""A process that has searched this often loads it whatever the collection's size."""

Kernel = dict[str, Callable[..., Any]]
_lock = threading.Lock()
_state: dict[str, Any] = {}  # "kernel": the loaded functions or None; "loading": a thread
_searches = itertools.count(1)


def mode() -> str:
    """The mode ``RAGD_LEXICAL_KERNEL`` asks for (``auto`` when unset or unknown)."""
    asked = os.environ.get(ENV, "auto").strip().lower()
    return asked if asked in MODES else "auto"


def _load() -> Kernel | None:
    """Import the compiled functions and make sure both postings layouts (rows int32 and
    counts uint16, read-only, as mapped from a saved file; int64 and float64 as built in
    memory) are compiled, so no search waits for a compilation."""
    try:
        from . import _lexical_jit as jit

        for mapped in (True, False):
            rows = np.zeros(1, np.int32 if mapped else np.int64)
            tf = np.ones(1, np.uint16 if mapped else np.float64)
            terms, indptr = np.zeros(1, np.int64), np.array([0, 1], np.int64)
            if mapped:
                _read_only(rows, tf, terms, indptr)
            span = np.zeros(1, np.int64), np.ones(1, np.int64)
            jit.top(rows, tf, *span, *_EMPTY, np.ones(1), np.ones(1), _NO_MASK, False,
                    _NO_MASK, False, np.zeros(1), 1)
            jit.spans(terms, indptr, rows, np.zeros(1, np.int64), np.ones(1, np.bool_), True,
                      np.zeros(1, np.int64))
    except Exception:  # noqa: BLE001 - whatever fails to import or compile: numpy serves
        return None
    return {"top": jit.top, "spans": jit.spans}


def _read_only(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Arrays as a mapped file gives them (numba compiles read-only arrays apart)."""
    for a in arrays:
        a.setflags(write=False)
    return arrays


def _load_in_background() -> None:
    def run() -> None:
        found = _load()
        with _lock:
            _state["kernel"] = found

    with _lock:
        if "kernel" in _state or "loading" in _state:
            return
        _state["loading"] = threading.Thread(target=run, name="ragd-lexical-kernel",
                                             daemon=True)
        _state["loading"].start()


def kernel(postings: int = 0) -> Kernel | None:
    """The compiled functions for one search over a collection of ``postings`` postings,
    or None: numpy serves (numba unavailable, turned off, or in ``auto`` mode not loaded
    yet; this call may start loading it)."""
    asked = mode()
    if asked == "numpy":
        return None
    found = _state.get("kernel")
    if found is not None or "kernel" in _state:
        return found
    if asked == "numba":
        return load()
    if postings >= AUTO_POSTINGS or next(_searches) >= AUTO_SEARCHES:
        _load_in_background()
    return None


def load() -> Kernel | None:
    """The compiled functions, loaded now if they are not yet (None: numba unavailable)."""
    with _lock:
        if "kernel" not in _state:
            _state["kernel"] = _load()
        return _state["kernel"]


def wait_loaded(timeout: float | None = None) -> Kernel | None:
    """Wait for a background load started by ``auto`` mode (tests, benchmarks)."""
    thread = _state.get("loading")
    if thread is not None:
        thread.join(timeout)
    return _state.get("kernel")


Segment = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""A segment's postings (rows, tf) and the query terms' spans in it (lo, hi)."""


def query_spans(k: Kernel, segments: list[tuple[np.ndarray, np.ndarray, np.ndarray,
                                                np.ndarray]],
                hashes: np.ndarray, alive: np.ndarray | None
                ) -> tuple[list[Segment], np.ndarray]:
    """Each segment's postings (rows, tf) with the query terms' spans in it, and each
    term's document frequency over all segments (live rows only when ``alive``): one
    compiled binary search per segment instead of some ten numpy calls."""
    df = np.zeros(len(hashes), dtype=np.int64)
    out = []
    for terms, indptr, rows, tf in segments:
        lo, hi = k["spans"](terms, indptr, rows, hashes, _NO_MASK if alive is None else alive,
                            alive is not None, df)
        out.append((rows, tf, lo, hi))
    return out, df


def top_candidates(k: Kernel, segments: list[Segment], weight: np.ndarray, norm: np.ndarray,
                   n_rows: int, alive: np.ndarray | None, mask: np.ndarray | None,
                   limit: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, scores) of one query over one or two segments: the rows reaching the
    ``limit``-th score, and the scores the numpy path's bincount gives them, to the bit."""
    (ra, fa, la, ha), (rb, fb, lb, hb) = (segments + [_EMPTY])[:2]
    return k["top"](ra, fa, la, ha, rb, fb, lb, hb, weight, norm,
                    _NO_MASK if alive is None else alive, alive is not None,
                    _NO_MASK if mask is None else mask, mask is not None,
                    _scratch(n_rows), min(limit, n_rows))


def _scratch(n_rows: int) -> np.ndarray:
    """This thread's zeroed score array for ``n_rows`` rows (the kernel leaves it zeroed):
    a fresh one per query would cost a page fault per 4 KiB touched, 8 MB at 1M rows."""
    found = getattr(_local, "scores", None)
    if found is None or len(found) != n_rows:
        found = _local.scores = np.zeros(n_rows, dtype=np.float64)
    return found


_local = threading.local()
_NO_MASK = np.zeros(1, dtype=np.bool_)
_EMPTY: Segment = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64),
                   np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
