"""The loader of retrieval-corpus.v1 files (the ``ear`` profile's corpus contract).

A ``.jsonl`` file whose first record declares ``schema_version``
``retrieval-corpus.*`` is a corpus, not a list of documents to chunk: it is
validated whole first (a corpus that breaks its contract is refused, naming
its first errors), then every record becomes one document that is one chunk,
keeping doc_id, section_id, chunk_kind, parent_id and every other field, so
that :func:`ragd.corpus.export.export_corpus` can write the collection back as the same
corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from ..corpus import read_corpus, validate_corpus
from ..types import Document
from .base import FileRef, LoadFailure, LoadOptions

CORPUS_PREFIX = "retrieval-corpus."
# Fields that become first-class chunk columns; every other field rides in metadata.
_COLUMNS = ("doc_id", "section_id", "text", "chunk_kind", "parent_id", "title")


def declares_corpus(first_line: bytes) -> bool:
    """Whether a JSONL file's first record declares a retrieval-corpus schema version."""
    try:
        record = json.loads(first_line)
    except ValueError:
        return False
    version = record.get("schema_version") if isinstance(record, dict) else None
    return isinstance(version, str) and version.startswith(CORPUS_PREFIX)


def declares_corpus_file(path: str | Path) -> bool:
    """Whether a ``.jsonl``/``.jsonl.gz`` file's first record declares a retrieval-corpus
    schema version."""
    from .jsonl import first_line

    name = str(path).lower()
    return name.endswith((".jsonl", ".jsonl.gz")) and declares_corpus(first_line(str(path)))


def corpus_document(record: dict[str, Any], source: str) -> Document:
    """One valid retrieval-corpus.v1 record as a one-chunk document (a JSONL record of the
    plain loader is :func:`ragd.ingest.jsonl.record_to_document`)."""
    metadata = {k: v for k, v in record.items() if k not in _COLUMNS}
    return Document(doc_id=record["doc_id"], text=record["text"], title=record.get("title") or "",
                    source=source, format="prechunked", metadata=metadata,
                    section_id=record["section_id"], parent_id=record.get("parent_id"),
                    kind=record["chunk_kind"])


def load_corpus(ref: FileRef, options: LoadOptions) -> Iterator[Document | LoadFailure]:
    """The documents of a corpus file, or one failure if it breaks the contract."""
    report = validate_corpus(ref.source)
    if not report.valid:
        first = "; ".join(str(e) for e in report.errors[:3])
        yield LoadFailure(ref.source, f"not a valid retrieval corpus ({report.errors_total} "
                          f"errors, e.g. {first}); run `ragd corpus validate {ref.source}`",
                          "corpus")
        return
    for line_no, record in read_corpus(ref.source):
        yield corpus_document(record, f"{ref.source}:{line_no}")
