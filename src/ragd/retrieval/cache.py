"""The query cache: the same (query, context, plan) within the profile's time to live
returns the stored result. It lives in the store (``cache_get``/``cache_put``), so it holds
across processes; any write to the collection invalidates it (the store compares its
data version)."""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping

from ..collection import Collection
from ..ids import canonical_json, sha256_hex

Clock = Callable[[], float]


def cache_key(parts: Mapping[str, Any]) -> str:
    """A stable key for everything a cached result depends on."""
    return sha256_hex(canonical_json(dict(parts)))


def cached(coll: Collection, key: str, ttl: float, compute: Callable[[], str],
           clock: Clock = time.time) -> tuple[str, bool]:
    """(value, hit): the cached value for ``key`` if younger than ``ttl`` seconds and no
    write happened since, else ``compute()`` stored under ``key``. ``ttl`` 0: no cache."""
    if ttl <= 0:
        return compute(), False
    now = clock()
    found = coll.store.cache_get(coll.name, key, ttl, now)
    if found is not None:
        return found, True
    value = compute()
    coll.store.cache_put(coll.name, key, value, clock())
    return value, False
