"""Stable identifiers and content hashes (never Python's ``hash()``)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def sha256_hex(data: str | bytes) -> str:
    """Hex sha256 of text (UTF-8) or bytes."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the same value gives the same text everywhere."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def chunk_id(doc_id: str, chunk_index: int, text: str) -> str:
    """Id of a chunk, derived from its document, position and content."""
    return sha256_hex(f"{doc_id}\x1f{chunk_index}\x1f{text}")[:32]
