"""Values shared by the loaders: what to load (:class:`LoadOptions`), what was skipped
(:class:`LoadFailure`) and which file a loader reads (:class:`FileRef`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike, fspath
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from ..config import DEFAULT_MAX_DOCUMENT_BYTES
from ..errors import DocumentTooLargeError, InvalidDocumentError, UsageError
from .normalize import UnsafeValue, json_safe, normalize_text


@dataclass(frozen=True)
class LoadFailure:
    """A file or JSONL line that was skipped, and why.

    ``source`` is the path (the root as given joined with the relative path),
    plus ``:LINE`` for a JSONL line; ``reason`` is one line saying what is wrong
    (naming the line of a YAML error and the field of a JSONL record);
    ``code`` a category for counting: ``too_large``, ``binary``, ``encoding``,
    ``empty``, ``front_matter``, ``metadata``, ``json``, ``field``,
    ``duplicate``, ``unsupported``, ``symlink``, ``unreadable``, ``name``,
    ``conflict`` (a doc_id stored from another file), ``same_file`` (a file reached twice
    in one run), ``embedding`` (``invalid`` when not given). :data:`SKIPPED_CODES` are
    files left out on purpose, not failures.
    """

    source: str
    reason: str
    code: str = "invalid"

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"

    def as_error(self) -> InvalidDocumentError:
        """The same failure as an exception, for callers that stop at the first one."""
        cls = DocumentTooLargeError if self.code == "too_large" else InvalidDocumentError
        return cls(self.reason, source=self.source)


SKIPPED_CODES = frozenset({"unsupported", "same_file"})
"""Codes of files not loaded by design (a type no loader reads, a file already loaded in
the run through another path): reported and counted, but not failures."""

REASONS = {"unsupported": "unsupported type", "same_file": "same file twice",
           "too_large": "too large", "binary": "binary", "encoding": "bad encoding",
           "empty": "empty", "front_matter": "bad front matter", "metadata": "metadata",
           "json": "bad JSON", "field": "bad field", "duplicate": "duplicate doc_id",
           "symlink": "symlink", "unreadable": "unreadable", "name": "bad file name",
           "conflict": "doc_id taken by another file", "embedding": "embedding failed",
           "corpus": "invalid corpus", "invalid": "invalid"}
"""Each failure code as a person reads it in a summary."""


def reason_name(code: str) -> str:
    return REASONS.get(code, code.replace("_", " "))


@dataclass(frozen=True)
class Origin:
    """Which file a document came from: ``path`` resolved (symlinks, ``..``), and whether
    its doc_id is the file's path under the root it was reached through (``path_id``: the
    loader's default, which another root would change) rather than an id of its own."""

    path: str
    path_id: bool = False


def too_large_reason(size: int, limit: int, what: str = "file") -> str:
    """The refusal text for input over ``max_document_bytes``: size, limit, and how to raise it."""
    return (f"{what} is {_bytes(size)}, over the limit of {_bytes(limit)}; raise it with the "
            "setting `max_document_bytes` or the CLI option `--max-document-mb`")


def _bytes(count: int) -> str:
    return f"{count:,} bytes" + (f" ({count / 2**20:.1f} MiB)" if count >= 2**20 else "")


def clean_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Tags normalised and stripped; empty ones dropped, duplicates dropped (first kept)."""
    out: dict[str, None] = {}
    for tag in tags:
        tag = " ".join(normalize_text(tag).split())
        if tag:
            out.setdefault(tag)
    return tuple(out)


def _patterns(value: str | Iterable[str], name: str) -> tuple[str, ...]:
    items = (value,) if isinstance(value, str) else tuple(value)
    out = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise UsageError(f"{name} patterns must be non-empty strings, got {item!r}")
        pattern = item.strip()
        while pattern.startswith("./"):
            pattern = pattern[2:]
        out.append(pattern.rstrip("/") or pattern)
    return tuple(out)


@dataclass(frozen=True)
class LoadOptions:
    """What to load and what to add to every document.

    ``include``/``exclude`` are glob patterns (``fnmatch``, case-sensitive, ``*``
    also crosses ``/``) tested on the posix path relative to the root and on the
    file name; a leading ``**/`` also matches at the top level. Exclude wins over
    include and also prunes directories. Empty ``include`` means every supported
    file. ``tags`` are appended to each document's own tags. ``metadata`` is
    merged into each document's metadata and wins over the document's own keys
    (front matter and JSONL fields give defaults; the caller decides).
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    id_prefix: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id_prefix, str) or "\x00" in self.id_prefix or (
                self.id_prefix != self.id_prefix.strip()):
            raise UsageError(f"id_prefix must be text without NUL or surrounding spaces, "
                             f"got {self.id_prefix!r}")
        object.__setattr__(self, "include", _patterns(self.include, "include"))
        object.__setattr__(self, "exclude", _patterns(self.exclude, "exclude"))
        limit = self.max_document_bytes
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise UsageError(f"max_document_bytes must be a positive integer, got {limit!r}")
        tags = (self.tags,) if isinstance(self.tags, str) else tuple(self.tags)
        if not all(isinstance(tag, str) for tag in tags):
            raise UsageError(f"tags must be strings, got {list(tags)!r}")
        object.__setattr__(self, "tags", clean_tags(tags))
        if not isinstance(self.metadata, Mapping):
            raise UsageError(f"metadata must be a mapping, got {type(self.metadata).__name__}")
        try:
            metadata = json_safe(self.metadata)
        except UnsafeValue as exc:
            raise UsageError(f"metadata cannot be stored as JSON: {exc}") from None
        object.__setattr__(self, "metadata", MappingProxyType(metadata))


@dataclass(frozen=True)
class FileRef:
    """One file to load: ``source`` is the path to open and report (root as given + ``rel``);
    ``rel`` the posix path relative to the root (the file name for a file given directly),
    which is the default doc_id."""

    source: str
    rel: str

    @property
    def name(self) -> str:
        return self.rel.rsplit("/", 1)[-1]


def fspath_str(path: str | PathLike[str]) -> str:
    """A path argument as the string the user gave."""
    value = fspath(path)
    if not isinstance(value, str):
        raise UsageError(f"paths must be text, got {value!r}")
    return value
