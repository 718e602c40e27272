"""``.json`` files: a bare act as an array of sections, or an array of documents.

A statute array is a list of objects with a section number (``section`` or
``Section``), a title (``section_title`` or ``title``) and the text
(``section_desc`` or ``description``), optionally a ``chapter``: the Indian acts of
../shared/data/india. It becomes ONE document, the act, whose text is its sections in
order, each opened by a ``Section N. Title.`` line (the form of a plain-text bare act),
with the act's abbreviation, title and year as metadata (the act from the file's name or
an ``act`` key: ``ipc.json`` → IPC). Its doc_id is the act's legal document id (16 hex of
a sha256 of ``bare_act|IPC``). An array of objects with ``text`` (and ``id``/``doc_id``,
``title``, ``metadata``) is a list of documents, as in JSONL. Anything else is refused
naming the file.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from ..citing.statute import ACTS, act_of, section_number
from ..errors import UsageError
from ..types import Document
from .base import FileRef, LoadFailure, LoadOptions, too_large_reason
from .legal import legal_doc_id
from .normalize import normalize_text

_NUMBER_KEYS = ("section", "Section", "section_no", "number")
_TITLE_KEYS = ("section_title", "title")
_TEXT_KEYS = ("section_desc", "description", "text")


def _first(row: dict, keys: tuple[str, ...]) -> Any:
    return next((row[k] for k in keys if k in row), None)


def _is_statute(rows: list) -> bool:
    return bool(rows) and all(isinstance(r, dict) and _first(r, _NUMBER_KEYS) is not None
                              for r in rows[:20])


def load_json(ref: FileRef, options: LoadOptions) -> Iterator[Document | LoadFailure]:
    try:
        with open(ref.source, "rb") as handle:
            data = handle.read(options.max_document_bytes + 1)
    except OSError as exc:
        yield LoadFailure(ref.source, f"cannot read: {exc.strerror or exc}", "unreadable")
        return
    if len(data) > options.max_document_bytes:
        yield LoadFailure(ref.source, too_large_reason(len(data), options.max_document_bytes),
                          "too_large")
        return
    try:
        rows = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        yield LoadFailure(ref.source, f"not valid JSON: {exc}", "json")
        return
    if not isinstance(rows, list):
        yield LoadFailure(ref.source, "a .json file must hold an array (of sections or of "
                          "documents); use .jsonl for one document per line", "json")
        return
    if _is_statute(rows):
        yield from _act(ref, rows)
    elif rows and all(isinstance(r, dict) and isinstance(r.get("text"), str) for r in rows):
        yield from _documents(ref, rows)
    else:
        yield LoadFailure(ref.source, "unrecognised JSON array: expected sections (section, "
                          "section_title, section_desc) or documents (id, text)", "json")


def _act(ref: FileRef, rows: list[dict]) -> Iterator[Document | LoadFailure]:
    stem = ref.name.rsplit(".", 1)[0]
    act = act_of(str(rows[0].get("act", ""))) or act_of(stem)
    if act is None:
        yield LoadFailure(ref.source, f"cannot tell which act {ref.name} holds: name the file "
                          f"after it (ipc.json, crpc.json, ...) or give each row an 'act' "
                          f"(known: {', '.join(ACTS)})", "field")
        return
    parts: list[str] = []
    seen: set[str] = set()
    for i, row in enumerate(rows):
        try:
            number = section_number(_first(row, _NUMBER_KEYS))
        except UsageError as exc:
            yield LoadFailure(f"{ref.source}:{i + 1}", f"rule 7 (section numbers): {exc}",
                              "field")
            return
        if number in seen:
            continue  # a repeated section keeps its first text
        seen.add(number)
        title = " ".join(str(_first(row, _TITLE_KEYS) or "").split()).rstrip(".")
        body = normalize_text(str(_first(row, _TEXT_KEYS) or "")).strip()
        parts.append(f"Section {number}. {title}.\n{body}".rstrip())
    full, year = ACTS[act]
    yield Document(doc_id=legal_doc_id("bare_act", act), text="\n\n".join(parts) + "\n",
                   title=f"{full}, {year}", source=ref.source, format="text",
                   metadata={"act": act, "year": year, "doc_type": "bare_act",
                             "citation": f"{full}, {year}"})


def _documents(ref: FileRef, rows: list[dict]) -> Iterator[Document | LoadFailure]:
    for i, row in enumerate(rows):
        doc_id = row.get("doc_id") or row.get("id") or f"{ref.rel}#{i + 1}"
        meta = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
        text = normalize_text(row["text"])
        if not text.strip():
            yield LoadFailure(f"{ref.source}:{i + 1}", "empty text", "empty")
            continue
        yield Document(doc_id=str(doc_id), text=text, title=str(row.get("title") or ""),
                       source=f"{ref.source}:{i + 1}", format="text", metadata=meta)
