"""Uploaded files, saved safely into a private temporary folder for the ingest pipeline.

A file's name is a relative path (``policy.md``, ``rules/faq.md``): its doc_id under the
loaders' rules. Names that could leave the folder (``..``, absolute, backslashes, drive
letters, NUL or control characters) are refused by name, and every target is checked to
stay inside the folder. A gzip file whose content inflates past the upload limit (a
decompression bomb) is refused before any loader reads it.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from ..ingest.base import LoadFailure
from ..ingest.loaders import supported_suffixes

_BAD_CHARS = re.compile(r"[\x00-\x1f\x7f\\:]")
MAX_NAME_CHARS = 255
UPLOAD_PREFIX = "upload:"


def safe_name(name: str | None) -> str | None:
    """The upload's relative path if it is safe to write under a folder, else None."""
    if not name or len(name) > 4 * MAX_NAME_CHARS or _BAD_CHARS.search(name):
        return None
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts:
        return None
    if any(part in ("", ".", "..") or len(part) > MAX_NAME_CHARS for part in path.parts):
        return None
    return path.as_posix()


def inflated_size(path: Path, limit: int) -> int:
    """How many bytes a gzip file inflates to, counting no further than ``limit + 1``."""
    total = 0
    with gzip.open(path, "rb") as stream:
        while total <= limit:
            block = stream.read(1 << 20)
            if not block:
                break
            total += len(block)
    return total


def save_upload(root: Path, name: str | None, data: BinaryIO, inflate_limit: int
                ) -> LoadFailure | None:
    """Write one upload under ``root``; a LoadFailure (named ``upload:NAME``) when it is
    refused, None when saved."""
    rel = safe_name(name)
    shown = f"{UPLOAD_PREFIX}{name!r}" if rel is None else f"{UPLOAD_PREFIX}{rel}"
    if rel is None:
        return LoadFailure(shown, "unsafe file name (a relative path without '..', "
                           "backslashes or control characters is required)", "name")
    if any(part.startswith(".") for part in PurePosixPath(rel).parts):
        return LoadFailure(shown, "hidden file names are not loaded", "name")
    suffixes = supported_suffixes()
    if not any(rel.lower().endswith(x) and len(rel) > len(x) for x in suffixes):
        return LoadFailure(shown, f"unsupported file type (supported: {', '.join(suffixes)})",
                           "unsupported")
    target = (root / rel).resolve()
    if not target.is_relative_to(root.resolve()):
        return LoadFailure(shown, "unsafe file name (outside the upload folder)", "name")
    if target.exists():
        return LoadFailure(shown, "the same file name appears twice in one upload",
                           "duplicate")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as out:
        shutil.copyfileobj(data, out, 1 << 20)
    if rel.lower().endswith(".gz"):
        try:
            size = inflated_size(target, inflate_limit)
        except (OSError, EOFError, zlib.error) as exc:
            target.unlink()
            return LoadFailure(shown, f"not a valid gzip file: {exc}", "binary")
        if size > inflate_limit:
            target.unlink()
            return LoadFailure(shown, f"inflates to more than {inflate_limit:,} bytes (the "
                               "upload limit): refused as a decompression bomb", "too_large")
    return None


def upload_source(root: Path):
    """Map a path under ``root`` (and ``path:LINE``) back to ``upload:NAME``."""
    prefix = str(root) + os.sep

    def rename(source: str) -> str:
        return UPLOAD_PREFIX + source[len(prefix):] if source.startswith(prefix) else source
    return rename
