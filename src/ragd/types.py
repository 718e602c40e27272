"""Core value types: frozen dataclasses shared by every block.

``Chunk`` and ``Candidate`` follow the canonical spec (§2.1): a chunk is the
retrieval unit, a candidate is a chunk returned by retrieval with its scores.
Both keep ``text`` as the field and expose the spec's ``content`` as an alias.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Mapping

from .errors import UsageError
from .ids import chunk_id as _chunk_id

Mode = Literal["vector", "lexical", "hybrid"]

MODES: tuple[str, ...] = ("vector", "lexical", "hybrid")


def _frozen_mapping(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(value or {}))


@dataclass(frozen=True)
class Segment:
    """A timed piece of text (a transcript line): chunking input with times in seconds."""

    text: str
    t_start: float
    t_end: float


def search_text(context: str, text: str) -> str:
    """A chunk's embedded text from its context line and text."""
    return f"{context}\n\n{text}" if context else text


CONTEXT_WEIGHT = 2
"""How many times the lexical index counts a chunk's context line (its title, heading path)."""


def index_text(context: str, text: str) -> str:
    """A chunk's lexically indexed text: the context line ``CONTEXT_WEIGHT`` times, then the
    text. With one k1 and b this is BM25F over two fields, the context line weighted 2:
    a term's frequency is 2 × tf(context) + tf(text), and the length likewise. Measured on
    SciFact (test and train alike) before it became the default (docs/benchmarks.md)."""
    return "\n\n".join([context] * CONTEXT_WEIGHT + [text]) if context else text


COUNTERS: tuple[str, ...] = ("words", "model")


def _positive_int(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise UsageError(f"{name} must be >= {minimum}, got {value}")


@dataclass(frozen=True)
class ChunkPolicy:
    """How a document is cut into chunks.

    Sizes count whitespace-delimited words (``len(text.split())``), the same
    under any embedding model. ``target_tokens`` is the size a chunk aims for
    (for Markdown, the limit under which a document or section stays whole);
    ``overlap_tokens`` how many trailing words of a chunk the next one repeats
    (canonical policy only); ``max_unit_tokens`` the longest paragraph kept as
    one unit (a longer one is cut into sentences; canonical policy only);
    ``max_chars`` a hard ceiling no chunk ever exceeds (``None``: no ceiling).
    ``chunker`` picks the policy: ``auto`` uses ``markdown`` for Markdown
    documents, else ``canonical``. ``counter = "model"`` makes the Markdown
    chunker count with the embedding model's tokenizer instead of words, where a
    model's input limit is what matters; the canonical policy always counts words.
    ``options`` holds settings of the named chunker (checked by the chunker).
    """

    target_tokens: int = 200
    overlap_tokens: int = 32
    max_chars: int | None = 2000
    chunker: str = "auto"
    max_unit_tokens: int = 240
    counter: str = "words"
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", _frozen_mapping(self.options))
        _positive_int("target_tokens", self.target_tokens, 1)
        _positive_int("overlap_tokens", self.overlap_tokens, 0)
        if self.overlap_tokens >= self.target_tokens:
            raise UsageError(f"overlap_tokens must be < target_tokens ({self.target_tokens}), "
                             f"got {self.overlap_tokens}")
        if self.max_chars is not None:
            _positive_int("max_chars", self.max_chars, 1)
        _positive_int("max_unit_tokens", self.max_unit_tokens, 1)
        if not isinstance(self.chunker, str) or not self.chunker:
            raise UsageError(f"chunker must be a name, got {self.chunker!r}")
        if self.counter not in COUNTERS:
            raise UsageError(f"unknown counter {self.counter!r}; choose one of {', '.join(COUNTERS)}")
        if self.counter == "model" and self.chunker == "canonical":
            raise UsageError("the canonical policy counts words; counter 'model' applies to the "
                             "markdown chunker only")

    @property
    def char_limit(self) -> int:
        """``max_chars`` as a number (no ceiling: ``sys.maxsize``)."""
        return sys.maxsize if self.max_chars is None else self.max_chars

    def as_dict(self) -> dict[str, Any]:
        return {"target_tokens": self.target_tokens, "overlap_tokens": self.overlap_tokens,
                "max_chars": self.max_chars, "chunker": self.chunker,
                "max_unit_tokens": self.max_unit_tokens, "counter": self.counter,
                **({"options": dict(self.options)} if self.options else {})}


@dataclass(frozen=True)
class Document:
    """A loaded document, before chunking.

    ``text`` is the normalised body; ``segments`` replaces it for timed input.
    ``format`` tells the chunker what it is (``text``, ``markdown``, ``segments``,
    or ``prechunked``: the document is one chunk already, as in a retrieval corpus).
    ``source`` says where it came from (a path, a JSONL line) for error messages.
    ``section_id``/``parent_id``/``kind`` carry a corpus document's citation
    structure through to its chunk.
    """

    doc_id: str
    text: str = ""
    title: str = ""
    source: str = ""
    format: str = "text"
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    segments: tuple[Segment, ...] | None = None
    section_id: str | None = None
    parent_id: str | None = None
    kind: str = "chunk"

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", _frozen_mapping(self.metadata))
        object.__setattr__(self, "tags", tuple(self.tags))


@dataclass(frozen=True)
class Chunk:
    """The retrieval unit: a span of one document with a stable index and id.

    ``context`` (a heading path such as "Title > Section > Sub", or the document
    title) is indexed and embedded together with ``text`` but is not part of it.
    """

    doc_id: str
    chunk_index: int
    text: str
    chunk_id: str = ""
    context: str = ""
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    tokens: int = 0
    start_offset: int | None = None
    end_offset: int | None = None
    section_id: str | None = None
    parent_id: str | None = None
    kind: str = "chunk"
    page: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", _frozen_mapping(self.metadata))
        object.__setattr__(self, "tags", tuple(self.tags))
        if not self.chunk_id:
            object.__setattr__(self, "chunk_id", _chunk_id(self.doc_id, self.chunk_index, self.text))

    @property
    def content(self) -> str:
        """The spec's name for ``text``."""
        return self.text

    @property
    def search_text(self) -> str:
        """What is embedded: the context line, then the text."""
        return search_text(self.context, self.text)

    @property
    def index_text(self) -> str:
        """What the lexical index reads (:func:`index_text`)."""
        return index_text(self.context, self.text)

    @property
    def key(self) -> tuple[str, int]:
        return (self.doc_id, self.chunk_index)


@dataclass(frozen=True)
class Candidate:
    """A chunk returned by retrieval, with the scores and ranks that put it there.

    ``score``/``rank`` are the final ones (fused in hybrid mode, 1-based rank);
    ``vector_*`` and ``lexical_*`` are those of each candidate list it was in
    (``None`` when absent from that list). ``pinned`` marks a chunk of a section
    the query named (such chunks rank first, whatever their score).
    """

    doc_id: str
    chunk_index: int
    text: str
    score: float
    rank: int = 0
    chunk_id: str = ""
    context: str = ""
    title: str = ""
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    section_id: str | None = None
    parent_id: str | None = None
    kind: str = "chunk"
    page: int | None = None
    vector_score: float | None = None
    vector_rank: int | None = None
    lexical_score: float | None = None
    lexical_rank: int | None = None
    pinned: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "metadata", _frozen_mapping(self.metadata))
        object.__setattr__(self, "tags", tuple(self.tags))

    @property
    def content(self) -> str:
        """The spec's name for ``text``."""
        return self.text

    @property
    def key(self) -> tuple[str, int]:
        return (self.doc_id, self.chunk_index)

    def evolve(self, **changes: Any) -> "Candidate":
        """A copy with some of its scores, ranks or ``pinned`` changed.

        Retrieval re-ranks every candidate of a pool several times per query;
        ``dataclasses.replace`` would re-run ``__post_init__`` (copying tags and
        metadata that are already frozen) each time, which dominated hybrid search.
        """
        unknown = set(changes) - _EVOLVABLE
        if unknown:
            raise TypeError(f"Candidate.evolve cannot change {', '.join(sorted(unknown))}")
        new = object.__new__(Candidate)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def scored_as(self, other: "Candidate") -> "Candidate":
        """This candidate's content with ``other``'s scores, ranks and pin (retrieval ranks
        keys first and reads content only for the ones it returns)."""
        return self.evolve(**{name: getattr(other, name) for name in _EVOLVABLE})

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (the CLI's ``--json`` and the service adapters)."""
        return {
            "rank": self.rank, "doc_id": self.doc_id, "chunk_index": self.chunk_index,
            "chunk_id": self.chunk_id, "score": self.score,
            "vector_score": self.vector_score, "vector_rank": self.vector_rank,
            "lexical_score": self.lexical_score, "lexical_rank": self.lexical_rank,
            "pinned": self.pinned, "title": self.title, "context": self.context, "section_id": self.section_id,
            "parent_id": self.parent_id, "kind": self.kind, "page": self.page,
            "tags": list(self.tags), "metadata": dict(self.metadata), "text": self.text,
        }


_EVOLVABLE = frozenset({"score", "rank", "vector_score", "vector_rank", "lexical_score",
                        "lexical_rank", "pinned"})


@dataclass(frozen=True)
class Filters:
    """Candidate filters of the canonical spec (§4.4).

    ``tags_any``: the chunk has at least one of these tags; ``tags_all``: it has
    every one; ``metadata``: each top-level key equals the given JSON value.
    """

    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tags_any", tuple(self.tags_any))
        object.__setattr__(self, "tags_all", tuple(self.tags_all))
        object.__setattr__(self, "metadata", _frozen_mapping(self.metadata))

    def __bool__(self) -> bool:
        return bool(self.tags_any or self.tags_all or self.metadata)


@dataclass(frozen=True)
class Plan:
    """What to retrieve: how many, from which candidate lists, fused how, filtered how.

    Defaults are the canonical spec's (§4): k 12, pool 50, hybrid, RRF k=60.
    ``fusion`` names a registered fusion method; ``weights`` apply to
    ``weighted`` fusion (min-max normalised scores). ``scheme`` names the
    citation scheme whose section references in the query (``15 CFR 736.2(b)``)
    pin that section's chunks first; empty: nothing is pinned. ``spell_parts``: abbreviated
    references to a document's parts in the query ("Ch.3", "Art. 5") are spelled out before
    searching (:func:`ragd.retrieval.query.spell_out_parts`).
    """

    k: int = 12
    pool: int = 50
    mode: str = "hybrid"
    fusion: str = "rrf"
    rrf_k: int = 60
    weights: Mapping[str, float] = field(
        default_factory=lambda: {"vector": 0.5, "lexical": 0.5})
    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    scheme: str = ""
    spell_parts: bool = True

    def __post_init__(self) -> None:
        _positive_int("k", self.k, 1)
        _positive_int("pool", self.pool, 1)
        if self.mode not in MODES:
            raise UsageError(f"unknown mode {self.mode!r}; choose one of {', '.join(MODES)}")
        if not isinstance(self.fusion, str) or not self.fusion:
            raise UsageError(f"fusion must be a name, got {self.fusion!r}")
        if not isinstance(self.scheme, str):
            raise UsageError(f"scheme must be a name, got {self.scheme!r}")
        if self.rrf_k < 0:
            raise UsageError(f"rrf_k must be >= 0, got {self.rrf_k}")
        object.__setattr__(self, "pool", max(self.pool, self.k))
        object.__setattr__(self, "weights", _frozen_mapping(self.weights))
        object.__setattr__(self, "tags_any", tuple(self.tags_any))
        object.__setattr__(self, "tags_all", tuple(self.tags_all))
        object.__setattr__(self, "metadata", _frozen_mapping(self.metadata))

    @property
    def filters(self) -> Filters:
        return Filters(self.tags_any, self.tags_all, self.metadata)
