"""Markdown front matter (a YAML mapping between ``---`` lines) and the title of a body.

Pure functions over text whose line breaks are already ``\\n``. Errors carry a
one-line reason naming the line of the problem where YAML reports one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from .normalize import UnsafeValue, clean_title, json_safe, kind_of

_CLOSERS = ("---", "...")
_ATX_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT_H1 = re.compile(r"^ {0,3}=+[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class FrontMatterError(ValueError):
    """Front matter that cannot be used; ``reason`` is one line, ``code`` a failure category."""

    def __init__(self, reason: str, code: str = "front_matter") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


@dataclass(frozen=True)
class FrontMatter:
    """The meaning of a front matter mapping: doc_id override, title, tags, other keys."""

    doc_id: str | None = None
    title: str | None = None
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """Split ``(yaml, body, closing_line)`` off text starting with a ``---`` line.

    The block ends at the first line ``---`` or ``...``; ``closing_line`` is its
    1-based line number. Text without front matter gives ``(None, text, 0)``;
    an opening line that is never closed raises :class:`FrontMatterError`.
    """
    first, newline, _ = text.partition("\n")
    if first.rstrip() != "---":
        return None, text, 0
    start = pos = len(first) + len(newline)
    lineno = 1
    while newline and pos <= len(text):
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        lineno += 1
        if text[pos:end].rstrip() in _CLOSERS:
            return text[start:pos], text[end + 1:], lineno
        pos = end + 1
    raise FrontMatterError("front matter opened by '---' on line 1 is never closed "
                           "(end it with a line '---')")


def parse_front_matter(source: str, closing_line: int) -> dict[str, Any]:
    """``yaml.safe_load`` the block into a mapping; line numbers in errors are the file's."""
    try:
        data = yaml.safe_load(source)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        raise FrontMatterError(f"invalid YAML in front matter{where}: {problem}") from None
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"invalid YAML in front matter: {' '.join(str(exc).split())}") \
            from None
    except RecursionError:
        raise FrontMatterError("front matter is nested too deeply") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise FrontMatterError(f"front matter (lines 1-{closing_line}) must be a mapping of "
                               f"keys to values, got {kind_of(data)}")
    return data


def _scalar_text(value: Any) -> str | None:
    """A string, or a number written as one; ``None`` for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _doc_id(data: dict[str, Any]) -> str | None:
    ids = {}
    for key in ("doc_id", "id"):
        if key in data:
            value = data[key]
            text = None if isinstance(value, float) else _scalar_text(value)
            if text is None or not text.strip():
                raise FrontMatterError(f"front matter {key!r} must be a non-empty string or "
                                       f"integer, got {kind_of(value)} {value!r}")
            ids[key] = text
    if len(set(ids.values())) > 1:
        raise FrontMatterError(f"front matter gives two different ids: doc_id {ids['doc_id']!r} "
                               f"and id {ids['id']!r}")
    return next(iter(ids.values()), None)


def _tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split(","))
    if isinstance(value, list):
        out = []
        for i, item in enumerate(value):
            text = _scalar_text(item)
            if text is None:
                raise FrontMatterError(f"front matter 'tags' item {i + 1} is {kind_of(item)}, "
                                       "not a string")
            out.append(text)
        return tuple(out)
    raise FrontMatterError("front matter 'tags' must be a list of strings or a comma-separated "
                           f"string, got {kind_of(value)}")


def interpret_front_matter(data: dict[str, Any]) -> FrontMatter:
    """Give ``title``, ``tags``, ``id``/``doc_id`` their meaning; other keys become metadata.

    Metadata must be JSON-ready: dates become ISO strings; anything else that
    JSON cannot hold raises :class:`FrontMatterError` naming the key.
    """
    for key in data:
        if not isinstance(key, str):
            raise FrontMatterError(f"front matter key {key!r} is {kind_of(key)}, not a string",
                                   "metadata")
    title = data.get("title")
    if title is not None and _scalar_text(title) is None:
        raise FrontMatterError(f"front matter 'title' must be a string, got {kind_of(title)}")
    rest = {k: v for k, v in data.items() if k not in ("title", "tags", "id", "doc_id")}
    try:
        metadata = json_safe(rest, "")
    except UnsafeValue as exc:
        raise FrontMatterError(f"front matter key {exc.where!r}: {exc.problem}", "metadata") \
            from None
    return FrontMatter(doc_id=_doc_id(data),
                       title=clean_title(_scalar_text(title) or "") or None,
                       tags=_tags(data.get("tags")), metadata=metadata)


def markdown_title(body: str) -> str | None:
    """The text of the first level-1 heading (``# Title`` or ``Title`` over ``===``),
    ignoring fenced code blocks; ``None`` when there is none."""
    fence = ""
    previous = ""
    for line in body.split("\n"):
        match = _FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = ""
            previous = ""
            continue
        if match:
            fence, previous = match.group(1), ""
            continue
        heading = _ATX_H1.match(line)
        if heading and heading.group(1).strip():
            return clean_title(heading.group(1))
        if previous.strip() and _SETEXT_H1.match(line):
            return clean_title(previous)
        previous = line
    return None
