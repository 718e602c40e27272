"""A collection's chunk manifest (``ragd export --manifest``): lookup metadata, not retrieval.

``{"version": 1, "updated_at", "chunk_count", "chunks": {chunk_id: {"chunk_id", "doc_id",
<field>: value, ...}}}`` with the fields the profile names (``[output] manifest_fields``,
read from each chunk's metadata, or its ``section_id``); documents in doc_id order, chunks
in chunk_index order. The legal contract's ``index.json`` is this file under ``legal-in``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Sequence

from ..collection import Collection


def manifest(coll: Collection, fields: Sequence[str] | None = None,
             now: datetime | None = None) -> dict[str, Any]:
    names = tuple(coll.profile.data["output"]["manifest_fields"] if fields is None else fields)
    chunks: dict[str, dict[str, Any]] = {}
    for record in sorted(coll.store.list_documents(coll.name), key=lambda r: r.doc_id):
        for stored in coll.store.document_chunks(coll.name, record.doc_id):
            c = stored.chunk
            row: dict[str, Any] = {"chunk_id": c.chunk_id, "doc_id": c.doc_id}
            for name in names:
                row[name] = c.section_id if name == "section_id" else c.metadata.get(name)
            chunks[c.chunk_id] = row
    stamp = (now or datetime.now(timezone.utc)).replace(microsecond=0, tzinfo=None)
    return {"version": 1, "updated_at": stamp.isoformat(), "chunk_count": len(chunks),
            "chunks": chunks}


__all__ = ["manifest"]
