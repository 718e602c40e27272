"""Export of a collection as a retrieval-corpus.v1 file: the inverse of the corpus loader
(``ingest/corpus_v1.py``), for a collection whose every document is one corpus record."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from ..errors import UsageError
from .io import write_corpus

if TYPE_CHECKING:
    from ..collection import Collection

_NUMBER = re.compile(r"(\d+)")


def natural_key(doc_id: str) -> tuple:
    """Sort key that orders ``EAR-736.2`` before ``EAR-736.10``."""
    return tuple(int(p) if p.isdigit() else p for p in _NUMBER.split(doc_id))


def collection_records(coll: Collection) -> Iterator[dict[str, Any]]:
    """The collection's documents as corpus records, in natural doc_id order."""
    titles = {d.doc_id: d.title for d in coll.store.list_documents(coll.name)}
    chunks = sorted(coll.store.iter_chunks(coll.name), key=lambda cv: natural_key(cv[0].doc_id))
    for chunk, _ in chunks:
        if chunk.chunk_index != 0 or chunk.section_id is None or chunk.kind == "chunk":
            raise UsageError(f"collection {coll.name!r} does not hold a retrieval corpus: "
                             f"document {chunk.doc_id!r} chunk {chunk.chunk_index} was chunked "
                             "from a plain document")
        record: dict[str, Any] = {"doc_id": chunk.doc_id, "section_id": chunk.section_id,
                                  "text": chunk.text, "chunk_kind": chunk.kind}
        if titles.get(chunk.doc_id):
            record["title"] = titles[chunk.doc_id]
        if chunk.parent_id is not None:
            record["parent_id"] = chunk.parent_id
        record.update(chunk.metadata)
        yield record


def export_corpus(coll: Collection, out: str | Path) -> int:
    """Write the collection as a retrieval-corpus.v1 file; returns the number of records."""
    return write_corpus(collection_records(coll), Path(out))
