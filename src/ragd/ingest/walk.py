"""Walk a directory tree: which files to load, in a deterministic order, safely.

Depth-first and lazy (one directory listing in memory per level). Entries are
ordered so that files come out sorted by relative posix path in byte order.
Hidden names (``.x``) are skipped. Symlinks are followed only when their target
lies inside the root; a symlinked directory only when its target is not walked
under its own path anyway (it sits in a hidden or excluded directory), and each
real directory is entered once, so loops end.
"""

from __future__ import annotations

import os
import stat
from fnmatch import fnmatchcase
from typing import Callable, Iterator, Sequence

from .base import FileRef, LoadFailure


def matches(rel: str, patterns: Sequence[str]) -> bool:
    """Whether a relative posix path, or its last name, matches one of the glob patterns.

    ``fnmatchcase`` (case-sensitive everywhere); ``*`` also crosses ``/``; a
    leading ``**/`` may match nothing, so ``**/*.md`` matches ``a.md`` too.
    """
    name = rel.rsplit("/", 1)[-1]
    for pattern in patterns:
        candidates = (pattern, pattern[3:]) if pattern.startswith("**/") else (pattern,)
        for pat in candidates:
            if fnmatchcase(rel, pat) or fnmatchcase(name, pat):
                return True
    return False


def _inside(path: str, root: str) -> bool:
    return path == root or os.path.commonpath([path, root]) == root


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:                     # a symlink loop (ELOOP) and the like
        return False


def _walked_anyway(real: str, root_real: str, exclude: Sequence[str]) -> bool:
    """Whether a directory inside the root is walked under its own path (nothing on
    the way hidden or excluded), so a symlink to it would only repeat it."""
    rel = os.path.relpath(real, root_real).replace(os.sep, "/")
    if rel == ".":
        return True
    parts = rel.split("/")
    return not any(part.startswith(".") or matches("/".join(parts[:i + 1]), exclude)
                   for i, part in enumerate(parts))


def _is_file(entry: os.DirEntry[str]) -> bool:
    """A regular file (symlinks followed): FIFOs, sockets and devices are never read."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _sorted_entries(directory: str) -> list[tuple[os.DirEntry[str], bool]]:
    """Visible entries with their is-directory flag (symlinks followed), in walk order:
    by file-system bytes of the name, a directory's name taken with a trailing ``/``."""
    with os.scandir(directory) as scan:
        entries = [(entry, _is_dir(entry)) for entry in scan if not entry.name.startswith(".")]
    entries.sort(key=lambda item: os.fsencode(item[0].name) + (b"/" if item[1] else b""))
    return entries


def walk(root: str, include: Sequence[str], exclude: Sequence[str],
         supported: Callable[[str], bool]) -> Iterator[FileRef | LoadFailure]:
    """Files under ``root`` to load, and failures for what cannot be (bad symlinks,
    unreadable directories, files of a type no loader reads: code ``unsupported``).

    Hidden names, everything ``exclude`` matches and, when ``include`` is given, what it
    does not match are left out silently: the caller asked for that.
    """
    root_real = os.path.realpath(root)
    visited: set[tuple[int, int]] = set()
    stack: list[tuple[str, Iterator[tuple[os.DirEntry[str], bool]]]] = []
    failure = _open_dir(root, "", stack, visited)
    if failure:
        yield failure
    while stack:
        prefix, entries = stack[-1]
        item = next(entries, None)
        if item is None:
            stack.pop()
            continue
        entry, is_dir = item
        rel = prefix + entry.name
        source = os.path.join(root, *rel.split("/"))
        if matches(rel, exclude):
            continue
        link = entry.is_symlink()
        if link:
            real = os.path.realpath(entry.path)
            if not (is_dir or os.path.exists(real)):
                if supported(rel) and (not include or matches(rel, include)):
                    yield LoadFailure(source, "broken symlink (target missing, or a loop: "
                                      f"{real})", "symlink")
                continue
            if not _inside(real, root_real):
                if is_dir or (supported(rel) and (not include or matches(rel, include))):
                    yield LoadFailure(source, f"symlink leaves the root (points to {real}); "
                                      "not followed", "symlink")
                continue
            if is_dir and _walked_anyway(real, root_real, exclude):
                yield LoadFailure(source, "symlink to a directory walked under its own path "
                                  f"({real}); not followed", "symlink")
                continue
        if is_dir:
            failure = _open_dir(entry.path, rel + "/", stack, visited)
            if failure:
                yield LoadFailure(source, failure.reason, failure.code)
        elif _is_file(entry):
            ref = _select(source, rel, include, supported)
            if ref is not None:
                yield ref


def _open_dir(directory: str, prefix: str,
              stack: list[tuple[str, Iterator[tuple[os.DirEntry[str], bool]]]],
              visited: set[tuple[int, int]]) -> LoadFailure | None:
    """Push the directory's sorted entries, unless its real directory was entered before."""
    try:
        info = os.stat(directory)
        key = (info.st_dev, info.st_ino)
        if key in visited:
            return LoadFailure(directory, "directory already walked through another symlink "
                               "(a loop or a duplicate); not followed", "symlink")
        stack.append((prefix, iter(_sorted_entries(directory))))
        visited.add(key)
    except OSError as exc:
        return LoadFailure(directory, f"cannot read directory: {exc.strerror or exc}",
                           "unreadable")
    return None


def _select(source: str, rel: str, include: Sequence[str],
            supported: Callable[[str], bool]) -> FileRef | LoadFailure | None:
    """A walked file (already past ``exclude``): load it, report it, or skip it."""
    if include and not matches(rel, include):
        return None
    if not supported(rel):
        return LoadFailure(source, "unsupported file type", "unsupported")
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return LoadFailure(source, "file name is not valid UTF-8; rename it", "name")
    return FileRef(source, rel)


def is_regular_file(path: str) -> bool:
    """A regular file (after symlinks), not a FIFO, socket or device that would block a read."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False
