"""The chunker plug-in: what a chunker is, and the registry profiles name chunkers from.

A chunker is a pure function ``(document, policy, count_tokens) -> chunks``
registered by name with the document formats it reads and the options it
takes (``ChunkPolicy.options``). It may also say what is ambiguous about a
document's structure (``warnings``) without failing it. Its ``version`` goes up when the
same document and policy give other chunks: a store re-chunks what it chunked before. A new chunker is a new
module that calls :func:`register_chunker`; a profile names it in TOML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..errors import ConfigError
from ..registry import Registry
from ..types import Chunk, ChunkPolicy, Document
from .packing import TokenCounter

__all__ = ["CHUNKERS", "ChunkFn", "ChunkerSpec", "WarnFn", "check_options", "register_chunker"]

ChunkFn = Callable[[Document, ChunkPolicy, TokenCounter], list[Chunk]]
WarnFn = Callable[[Document, ChunkPolicy, TokenCounter], list[str]]


@dataclass(frozen=True)
class ChunkerSpec:
    """A registered chunker: its function, the formats it reads and its option types."""

    name: str
    chunk: ChunkFn
    formats: frozenset[str]
    options: Mapping[str, type] = field(default_factory=dict)
    warnings: WarnFn | None = None
    description: str = ""
    version: int = 1


CHUNKERS: Registry[ChunkerSpec] = Registry("chunker")


def register_chunker(name: str, chunk: ChunkFn, *, formats: tuple[str, ...],
                     options: Mapping[str, type] | None = None, warnings: WarnFn | None = None,
                     description: str = "", replace: bool = False,
                     version: int = 1) -> ChunkerSpec:
    """Register ``chunk`` as the chunker ``name`` (reading documents of ``formats``);
    ``version``: raise it when the chunks it makes change (stores then re-chunk)."""
    spec = ChunkerSpec(name, chunk, frozenset(formats), dict(options or {}), warnings,
                       description, version)
    CHUNKERS.register(name, spec, replace=replace)
    return spec


def check_options(spec: ChunkerSpec, options: Mapping[str, Any], where: str = "") -> None:
    """ConfigError unless every option is one ``spec`` takes, of its type."""
    prefix = f"{where}: " if where else ""
    for key, value in options.items():
        if key not in spec.options:
            known = ", ".join(sorted(spec.options)) or "none"
            raise ConfigError(f"{prefix}chunker {spec.name!r} takes no option {key!r} "
                              f"(its options: {known})")
        kind = spec.options[key]
        if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
            raise ConfigError(f"{prefix}option {key!r} of chunker {spec.name!r} must be a "
                              f"{kind.__name__}, got {value!r}")
