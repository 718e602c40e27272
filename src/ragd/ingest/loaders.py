"""Load documents from files and directories: plain text, Markdown, JSONL corpora, PDFs.

:func:`iter_documents` is the entry point: it streams :class:`~ragd.types.Document`
values in a deterministic order (paths in the order given; inside a directory,
sorted by relative posix path in byte order) and reports every file or line it
skips to ``on_failure`` as a :class:`LoadFailure` without stopping. The
format loaders live in a registry keyed by file suffix (:func:`register_loader`).
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from os import PathLike
from typing import Callable, Iterable, Iterator, Sequence

from ..errors import UsageError
from ..registry import Registry
from ..types import Document
from .base import (DEFAULT_MAX_DOCUMENT_BYTES, FileRef, LoadFailure, LoadOptions, Origin,
                   clean_tags, fspath_str, too_large_reason)
from .frontmatter import (FrontMatter, FrontMatterError, interpret_front_matter, markdown_title,
                          parse_front_matter, split_front_matter)
from .corpus_v1 import declares_corpus, load_corpus
from .jsonl import first_line, load_jsonl
from .pdf import SIDECAR as PDF_SIDECAR, fingerprint as pdf_fingerprint, load_pdf, load_sidecar
from .normalize import DecodeProblem, clean_title, decode_utf8, normalize_text, unify_newlines
from .walk import is_regular_file, matches, walk

__all__ = ["DEFAULT_MAX_DOCUMENT_BYTES", "FileRef", "LoadFailure", "LoadOptions", "Loader",
           "Origin", "TITLE_MAX_CHARS", "count_files", "fingerprint", "iter_documents",
           "iter_sourced",
           "normalize_text",
           "register_loader", "supported_suffixes"]

log = logging.getLogger("ragd.ingest")

TITLE_MAX_CHARS = 120
"""A text file's first line becomes its title only up to this length."""

Loader = Callable[[FileRef, LoadOptions], Iterable[Document | LoadFailure]]
"""Reads one file: yields its documents (before the options' tags/metadata are
added) and failures; never raises for bad input."""

LOADERS: Registry[Loader] = Registry("loader")
"""Loaders by the file suffix they read (``.md``, ``.jsonl.gz``)."""
_FINGERPRINTS: dict[str, Callable[[str], str]] = {}   # suffix -> digest of what its loader reads


def register_loader(suffixes: str | Sequence[str], loader: Loader) -> None:
    """Make ``loader`` read files ending with these suffixes (case-insensitive, e.g. ``.pdf``)."""
    for suffix in (suffixes,) if isinstance(suffixes, str) else suffixes:
        if not suffix.startswith(".") or len(suffix) < 2:
            raise UsageError(f"a loader suffix starts with '.', got {suffix!r}")
        LOADERS.register(suffix.lower(), loader, replace=True)


def supported_suffixes() -> tuple[str, ...]:
    """The file suffixes some loader reads, sorted."""
    return LOADERS.names()


def _suffix(name: str) -> str | None:
    """The longest registered suffix the name ends with (``.jsonl.gz`` over ``.gz``)."""
    lower = name.lower()
    found = [s for s in LOADERS if lower.endswith(s) and len(lower) > len(s)]
    return max(found, key=len) if found else None


def _supported(rel: str) -> bool:
    return _suffix(rel.rsplit("/", 1)[-1]) is not None


def _stem(ref: FileRef) -> str:
    name = ref.name
    return name[:-len(_suffix(name) or "")] or name


def _read_text(ref: FileRef, limit: int) -> str | LoadFailure:
    """The file decoded as UTF-8, or why not; the size is checked (stat) before reading."""
    try:
        size = os.stat(ref.source).st_size
        if size <= limit:
            with open(ref.source, "rb") as handle:
                data = handle.read(limit + 1)
            size = max(size, len(data))
    except OSError as exc:
        return LoadFailure(ref.source, f"cannot read: {exc.strerror or exc}", "unreadable")
    if size > limit:
        return LoadFailure(ref.source, too_large_reason(size, limit), "too_large")
    try:
        return decode_utf8(data)
    except DecodeProblem as exc:
        return LoadFailure(ref.source, exc.reason, exc.code)


def _empty(ref: FileRef) -> LoadFailure:
    return LoadFailure(ref.source, "empty document (no text after normalisation)", "empty")


def load_text(ref: FileRef, options: LoadOptions) -> Iterator[Document | LoadFailure]:
    """A plain text file: doc_id is the relative path; title its first line if short."""
    text = _read_text(ref, options.max_document_bytes)
    if isinstance(text, LoadFailure):
        yield text
        return
    text = normalize_text(text)
    if not text:
        yield _empty(ref)
        return
    first = clean_title(text.partition("\n")[0])
    title = first if len(first) <= TITLE_MAX_CHARS else _stem(ref)
    yield Document(doc_id=ref.rel, text=text, title=title, source=ref.source, format="text")


def load_markdown(ref: FileRef, options: LoadOptions) -> Iterator[Document | LoadFailure]:
    """A Markdown file: optional YAML front matter, then the body as the text.

    Front matter ``id``/``doc_id`` overrides the doc_id, ``title`` the title
    (else the first level-1 heading, else the file stem), ``tags`` adds tags;
    other keys become metadata.
    """
    text = _read_text(ref, options.max_document_bytes)
    if isinstance(text, LoadFailure):
        yield text
        return
    try:
        block, body, closing = split_front_matter(unify_newlines(text))
        front = (FrontMatter() if block is None
                 else interpret_front_matter(parse_front_matter(block, closing)))
    except FrontMatterError as exc:
        yield LoadFailure(ref.source, exc.reason, exc.code)
        return
    body = normalize_text(body)
    if not body:
        yield _empty(ref)
        return
    yield Document(doc_id=front.doc_id or ref.rel, text=body,
                   title=front.title or markdown_title(body) or _stem(ref), source=ref.source,
                   format="markdown", tags=clean_tags(front.tags), metadata=front.metadata)


def _load_jsonl(ref: FileRef, options: LoadOptions) -> Iterable[Document | LoadFailure]:
    """A retrieval corpus (first record declares its schema_version) or a document list."""
    if declares_corpus(first_line(ref.source)):
        return load_corpus(ref, options)
    return load_jsonl(ref, options.max_document_bytes)


register_loader((".txt", ".text"), load_text)
register_loader((".md", ".markdown"), load_markdown)
register_loader((".jsonl", ".jsonl.gz"), _load_jsonl)
register_loader(".pdf", load_pdf)
_FINGERPRINTS[".pdf"] = pdf_fingerprint
register_loader(".pdf" + PDF_SIDECAR, load_sidecar)  # metadata of NAME.pdf, not a document


def _load_json(ref: FileRef, options: LoadOptions) -> Iterable[Document | LoadFailure]:
    from .statute_json import load_json  # a bare act's sections, or an array of documents

    return load_json(ref, options)


register_loader(".json", _load_json)


def iter_documents(paths: Sequence[str | PathLike[str]] | str | PathLike[str],
                   options: LoadOptions | None = None,
                   on_failure: Callable[[LoadFailure], None] | None = None
                   ) -> Iterator[Document]:
    """Stream the documents under ``paths`` (files or directories), in a fixed order.

    Every path is checked first: one that does not exist (or is not a regular
    file or a directory) raises :class:`~ragd.errors.UsageError` before any
    work. After that nothing stops the stream: each skipped file or JSONL line
    goes to ``on_failure`` (logged as a warning when it is ``None``). A doc_id
    already loaded in this call is a ``duplicate`` failure (the first one wins).
    ``options.tags`` are appended and ``options.metadata`` merged over each
    document's own; ``options.id_prefix`` goes before every doc_id.
    """
    sourced = iter_sourced(paths, options, on_failure)
    return (doc for doc, _ in sourced)


def iter_sourced(paths: Sequence[str | PathLike[str]] | str | PathLike[str],
                 options: LoadOptions | None = None,
                 on_failure: Callable[[LoadFailure], None] | None = None,
                 skip: Callable[[FileRef, str], bool] | None = None
                 ) -> Iterator[tuple[Document, Origin]]:
    """:func:`iter_documents` with each document's :class:`Origin` (the file it came from).
    ``skip(ref, resolved_path)``, asked before a file is read, may leave it unread (the
    ingest pipeline's check that a stored file is unchanged)."""
    options = LoadOptions() if options is None else options
    roots = _check_paths(paths)
    return _stream(roots, options, on_failure or _log_failure, skip)


def fingerprint(ref: FileRef) -> str | None:
    """A digest of everything a whole-file loader reads for ``ref`` (the file's bytes and
    its sidecar's), for the loaders that make one document of a file and register one
    (PDFs); None for the others."""
    suffix = _suffix(ref.name)
    digest = _FINGERPRINTS.get(suffix or "")
    return digest(ref.source) if digest else None


def count_files(paths: Sequence[str | PathLike[str]] | str | PathLike[str],
                options: LoadOptions | None = None) -> tuple[int, int]:
    """(files, bytes) that :func:`iter_documents` would read: a walk without reading, for
    a progress display's total."""
    options = LoadOptions() if options is None else options
    files = size = 0
    for root, is_dir in _check_paths(paths):
        refs = (walk(root, options.include, options.exclude, _supported) if is_dir
                else _direct(root, options))
        for ref in refs:
            if isinstance(ref, FileRef):
                files += 1
                try:
                    size += os.stat(ref.source).st_size
                except OSError:
                    pass
    return files, size


def _log_failure(failure: LoadFailure) -> None:
    log.warning("skipped %s", failure)


def _check_paths(paths: Sequence[str | PathLike[str]] | str | PathLike[str]
                 ) -> list[tuple[str, bool]]:
    """``(path, is_directory)`` per path, or :class:`UsageError` naming the bad one."""
    if isinstance(paths, (str, PathLike)):
        paths = [paths]
    roots = []
    for path in paths:
        text = fspath_str(path)
        if os.path.isdir(text):
            roots.append((text, True))
        elif is_regular_file(text):
            roots.append((text, False))
        elif os.path.lexists(text):
            raise UsageError(f"not a regular file or a directory: {text}")
        else:
            raise UsageError(f"path does not exist: {text}")
    if not roots:
        raise UsageError("no paths given to load")
    return roots


def _direct(path: str, options: LoadOptions) -> Iterator[FileRef | LoadFailure]:
    """A file named directly: the filters apply to its name; an unsupported type is a failure."""
    name = os.path.basename(path.rstrip(os.sep)) or path
    if matches(name, options.exclude) or (options.include and not matches(name, options.include)):
        return
    if not _supported(name):
        yield LoadFailure(path, _unsupported(name), "unsupported")
        return
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        yield LoadFailure(path, "file name is not valid UTF-8; rename it", "name")
        return
    yield FileRef(path, name)


def _unsupported(name: str) -> str:
    """Why a file is not loaded: its type, and the types ragd reads."""
    dot = name.rfind(".")
    kind = f"'{name[dot:].lower()}' " if 0 < dot < len(name) - 1 else ""
    return (f"unsupported file type {kind}(ragd reads {', '.join(supported_suffixes())}; "
            "leave such files out with --exclude)")


def _stream(roots: list[tuple[str, bool]], options: LoadOptions,
            report: Callable[[LoadFailure], None],
            skip: Callable[[FileRef, str], bool] | None = None
            ) -> Iterator[tuple[Document, Origin]]:
    seen: dict[str, int] = {}      # doc_id -> index of the file it came from
    files: list[str] = []
    for root, is_dir in roots:
        refs = (walk(root, options.include, options.exclude, _supported) if is_dir
                else _direct(root, options))
        for ref in refs:
            if isinstance(ref, LoadFailure):
                if ref.code == "unsupported":
                    ref = LoadFailure(ref.source, _unsupported(os.path.basename(ref.source)),
                                      ref.code)
                report(ref)
                continue
            number = len(files)
            files.append(ref.source)
            suffix = _suffix(ref.name)
            assert suffix is not None
            real = os.path.realpath(ref.source)
            if skip is not None and skip(ref, real):
                seen.setdefault(options.id_prefix + ref.rel, number)
                continue
            for item in LOADERS.get(suffix)(ref, options):
                if isinstance(item, LoadFailure):
                    report(item)
                    continue
                # A JSONL line's source is "file:LINE": its ids are its own, never a path.
                origin = Origin(real, item.doc_id == ref.rel and item.source == ref.source)
                if options.id_prefix:
                    item = replace(item, doc_id=options.id_prefix + item.doc_id)
                first = seen.setdefault(item.doc_id, number)
                if first != number:
                    report(LoadFailure(item.source, f"duplicate doc_id {item.doc_id!r} "
                                       f"(already loaded from {files[first]})", "duplicate"))
                    continue
                yield _with_options(item, options), origin


def _with_options(doc: Document, options: LoadOptions) -> Document:
    """The caller's tags appended (no repeats) and metadata merged over the document's."""
    if not options.tags and not options.metadata:
        return doc
    return replace(doc, tags=tuple(dict.fromkeys(doc.tags + options.tags)),
                   metadata={**doc.metadata, **options.metadata})
