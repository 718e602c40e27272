"""``ragd ingest DIR --prune``: the documents of a root whose files are gone.

A document loaded from a file records the file's resolved path. After a run over a
directory, the documents recorded under that directory whose file no longer exists are
stale (a withdrawn or renamed regulation must not be cited): they are listed and, unless it
is a dry run, deleted, the same way on every backend. Documents without a recorded file
(given through the API, or stored before ragd recorded sources) are never pruned; a JSONL
file that still exists keeps its documents, even those whose lines it no longer holds
(`ragd delete DOC_ID` removes one).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from ..collection import Collection
from ..stores import DocumentRecord


def stale_documents(paths: Sequence[str | Path], coll: Collection) -> list[DocumentRecord]:
    """The documents recorded under any directory of ``paths`` whose file is gone."""
    roots = [os.path.realpath(p) for p in paths if os.path.isdir(p)]
    if not roots:
        return []
    prefixes = tuple(r.rstrip(os.sep) + os.sep for r in roots)
    return [d for d in coll.store.list_documents(coll.name)
            if d.source_path and d.source_path.startswith(prefixes)
            and not os.path.lexists(d.source_path)]


def prune(paths: Sequence[str | Path], coll: Collection, *, dry_run: bool = False
          ) -> list[str]:
    """Delete (or, on a dry run, only list) :func:`stale_documents`; their doc_ids."""
    stale = stale_documents(paths, coll)
    if not dry_run:
        for record in stale:
            coll.store.delete_document(coll.name, record.doc_id)
    return [d.doc_id for d in stale]
