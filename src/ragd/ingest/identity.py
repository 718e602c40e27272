"""Which stored document a loaded file is: document identity comes from files.

A document loaded from a file records the file's resolved path (``source_path``). Before a
document is written, its doc_id is checked against the collection:

- the same file reached through another root (``ragd ingest a/`` then ``ragd ingest
  a/sub/``) keeps the doc_id it is stored under, when that doc_id came from its path;
- a different file under a doc_id already stored (``a/NOTES.md`` then ``b/NOTES.md``) is
  refused, naming both files and the ways out: ``--id-prefix PREFIX`` (every doc_id of the
  run prefixed) or ``--replace`` (the stored document is replaced by this file);
- the same file twice in one run (overlapping roots, a symlink beside its target) is
  loaded once; the second is skipped.

Documents given through the API (no file) and documents stored before ragd recorded
sources (no ``source_path``) are not checked.
"""

from __future__ import annotations

import os
from dataclasses import replace

from ..collection import Collection
from ..stores import DocumentRecord
from ..types import Document
from .base import LoadFailure, Origin


class Identities:
    """Resolves each loaded document's doc_id against one collection, for one run."""

    def __init__(self, coll: Collection, *, replace_others: bool = False) -> None:
        self.coll = coll
        self.replace_others = replace_others
        self._files: dict[str, tuple[str, str]] = {}  # resolved path -> first (source, doc_id)
        self._ids: dict[str, str] = {}  # doc_id settled in this run -> source

    def claim(self, source: str, path: str, doc_id: str) -> bool:
        """Record a file left unread as stored under ``doc_id`` (as :meth:`resolve` would
        have); False when the file or the doc_id was already taken in this run."""
        if path in self._files or self._ids.get(doc_id, source) != source:
            return False
        self._files[path] = (source, doc_id)
        self._ids[doc_id] = source
        return True

    def resolve(self, doc: Document, origin: Origin | None
                ) -> tuple[Document, DocumentRecord | None] | LoadFailure:
        """The document as it will be stored (its doc_id settled) and the stored record of
        that doc_id; or why it is not stored (a conflict, the same file twice)."""
        store, name = self.coll.store, self.coll.name
        if origin is None:
            return doc, store.get_document(name, doc.doc_id)
        if origin.path_id:
            first = self._files.setdefault(origin.path, (doc.source, doc.doc_id))
            if first != (doc.source, doc.doc_id):
                return LoadFailure(doc.source, f"the same file as {first[0]}, already loaded "
                                   f"in this run as {first[1]!r} ({origin.path})", "same_file")
            stored = [d.doc_id for d in store.documents_from(name, origin.path)]
            if len(stored) == 1 and stored[0] != doc.doc_id:
                doc = replace(doc, doc_id=stored[0])  # reached through another root
        taken = self._ids.setdefault(doc.doc_id, doc.source)
        if taken != doc.source:  # another file of this run already has this doc_id
            return LoadFailure(doc.source, f"duplicate doc_id {doc.doc_id!r} (already loaded "
                               f"in this run from {taken})", "duplicate")
        old = store.get_document(name, doc.doc_id)
        if (old is not None and old.source_path and old.source_path != origin.path
                and not self.replace_others):
            return LoadFailure(
                doc.source,
                f"doc_id {doc.doc_id!r} is already stored from another file, "
                f"{old.source_path}{'' if os.path.exists(old.source_path) else ' (now missing)'}; "
                f"this is {origin.path}. Ingest it under other ids with --id-prefix PREFIX, "
                f"or replace the stored document with --replace", "conflict")
        return doc, old

