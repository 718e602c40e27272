"""A deadline for a retrieval: the caller gets RetrievalTimeoutError, not a hang.

The work runs on a worker thread; when it is not done in time the caller is
told so at once. The worker finishes on its own (stores are thread-safe) and
its result is dropped: Python cannot stop a thread, but no caller waits for it.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from typing import Callable, TypeVar

from ..errors import RetrievalTimeoutError

T = TypeVar("T")
_POOL: ThreadPoolExecutor | None = None
_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="ragd-deadline")
        return _POOL


def within(seconds: float, work: Callable[[], T], what: str = "retrieval") -> T:
    """``work()``, or RetrievalTimeoutError after ``seconds`` (0 or less: no deadline)."""
    if seconds <= 0:
        return work()
    future = _pool().submit(work)
    try:
        return future.result(timeout=seconds)
    except FutureTimeout:
        future.cancel()
        raise RetrievalTimeoutError(f"{what} took longer than {seconds:g} s "
                                    "(the profile's timeout_seconds)") from None
