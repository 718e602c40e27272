"""Streaming read and write of retrieval-corpus.v1 JSONL files (``.jsonl`` or ``.jsonl.gz``).

Reading holds one line at a time. A line is parsed strictly (:mod:`ragd.strict_json`, as the
JSONL loader does: UTF-8, one JSON object, no NaN/Infinity, no key twice);
a UTF-8 byte order mark before the first line and blank lines are tolerated
and skipped. Writing is deterministic (see :mod:`ragd.corpus.record`) and
atomic for files: a temporary file in the same directory, then a rename.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping, TextIO, Union

from ..errors import InvalidDocumentError
from ..strict_json import LineError, parse_line
from .record import SCHEMA_VERSION, SCHEMA_VERSION_PREFIX, CorpusRecord, dump_lines

Source = Union[str, "os.PathLike[str]", Iterable[Union[str, bytes]]]
"""A corpus: a path, or lines already in memory (``str`` or ``bytes``, newline optional)."""


class UnsupportedSchemaVersionError(InvalidDocumentError):
    """A record declares a ``schema_version`` other than ``retrieval-corpus.v1``."""


def is_path(source: object) -> bool:
    """Whether a source names a file (rather than holding lines)."""
    return isinstance(source, (str, os.PathLike))


def _open_binary(path: str | os.PathLike[str]) -> IO[bytes]:
    if os.fspath(path).lower().endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def iter_lines(source: Source) -> Iterator[tuple[int, str | bytes]]:
    """``(line_no, line)`` for each non-blank line of a file or of lines in memory (1-based;
    blank lines count but are not yielded). The first line loses a UTF-8 byte order mark."""
    if is_path(source):
        with _open_binary(source) as stream:  # type: ignore[arg-type]
            yield from _numbered(stream)
    else:
        yield from _numbered(source)  # type: ignore[arg-type]


def _numbered(lines: Iterable[str | bytes]) -> Iterator[tuple[int, str | bytes]]:
    line_no = 0
    for line_no, line in enumerate(lines, 1):
        if line_no == 1:
            if isinstance(line, bytes) and line.startswith(codecs.BOM_UTF8):
                line = line[len(codecs.BOM_UTF8):]
            elif isinstance(line, str) and line.startswith("\ufeff"):
                line = line[1:]
        if line and not line.isspace():
            yield line_no, line


def read_corpus(source: Source) -> Iterator[tuple[int, CorpusRecord]]:
    """``(line_no, record)`` for every document of a v1 corpus, streamed, fields as written.

    Raises :class:`~ragd.errors.InvalidDocumentError` (file, line) at the first line that is
    not a JSON object and :class:`UnsupportedSchemaVersionError` at the first record whose
    ``schema_version`` is missing or not ``retrieval-corpus.v1``. It does not check the
    other rules: run :func:`ragd.corpus.validate_corpus` for that.
    """
    name = os.fspath(source) if is_path(source) else "<lines>"  # type: ignore[arg-type]
    for line_no, raw in iter_lines(source):
        try:
            record = CorpusRecord(parse_line(raw))
        except LineError as exc:
            raise InvalidDocumentError(exc.reason, source=name, line=line_no) from None
        version = record.get("schema_version")
        if version != SCHEMA_VERSION:
            if isinstance(version, str) and version.startswith(SCHEMA_VERSION_PREFIX):
                reason = (f"unsupported schema_version {version!r}: this ragd reads "
                          f"{SCHEMA_VERSION!r} only")
            elif version is None:
                reason = f"missing schema_version (expected {SCHEMA_VERSION!r})"
            else:
                reason = f"schema_version {version!r} is not {SCHEMA_VERSION!r}"
            raise UnsupportedSchemaVersionError(reason, source=name, line=line_no,
                                                field="schema_version")
        yield line_no, record


@contextmanager
def _atomic_text(path: Path) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` only if the block succeeds."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # not mkstemp: its 0600 mode would survive the rename; "x" mode makes it exclusive too
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(tmp, "xb") as raw:
            if path.name.lower().endswith(".gz"):
                # mtime 0 and no file name: the same records give the same bytes
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                    with io.TextIOWrapper(gz, encoding="utf-8", newline="\n") as text:
                        yield text
            else:
                with io.TextIOWrapper(raw, encoding="utf-8", newline="\n",
                                      write_through=False) as text:
                    yield text
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_corpus(records: Iterable[Mapping[str, Any]], target: str | os.PathLike[str] | TextIO
                 ) -> int:
    """Write records as JSONL (one canonical line each, ``\\n`` endings), streamed; returns
    how many. A path is replaced atomically (``.gz`` is gzip with a fixed header); a text
    stream is written as is. Records are written as given: validate them separately."""
    count = 0
    if is_path(target):
        with _atomic_text(Path(target)) as stream:  # type: ignore[arg-type]
            for line in dump_lines(records):
                stream.write(line)
                count += 1
        return count
    for line in dump_lines(records):
        target.write(line)  # type: ignore[union-attr]
        count += 1
    return count
