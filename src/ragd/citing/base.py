"""The citation scheme protocol and its registry."""

from __future__ import annotations

from typing import Any, Mapping, Protocol, runtime_checkable

from ..registry import Registry


@runtime_checkable
class Cited(Protocol):
    """What a scheme reads of a passage (a Chunk or a Candidate)."""

    doc_id: str
    context: str
    section_id: str | None
    metadata: Mapping[str, Any]


@runtime_checkable
class CitationScheme(Protocol):
    """How the documents of a profile are referred to and cited."""

    name: str
    section_field: str
    """The stored field that identifies a section (``section_id``, ``metadata.section``)."""
    key_fields: tuple[str, ...]
    """Citation fields that, with the chunk id, key a fact for a model (``pdf``, ``page``)."""

    def find_refs(self, query: str) -> list[str]:
        """Section ids the query names, normalised, in the order named (none: ``[]``)."""
        ...

    def normalize(self, ref: str) -> str:
        """The canonical id of a reference written in any accepted form (else UsageError)."""
        ...

    def cite(self, passage: Cited, title: str = "") -> str:
        """The rendered citation of a passage (``15 CFR 736.2(b)``)."""
        ...

    def fields(self, passage: Cited, title: str = "") -> dict[str, Any]:
        """The scheme's own citation fields for answers and JSON output."""
        ...


SCHEMES: Registry[CitationScheme] = Registry("citation scheme")


def register_scheme(scheme: CitationScheme, *, replace: bool = False) -> CitationScheme:
    SCHEMES.register(scheme.name, scheme, replace=replace)
    return scheme


def get_scheme(name: str) -> CitationScheme:
    return SCHEMES.get(name)


def fallback_citation(passage: Cited, title: str = "") -> str:
    """A passage's ``citation`` metadata, else its heading path, title or doc_id."""
    cited = passage.metadata.get("citation")
    if isinstance(cited, str) and cited.strip():
        return cited
    return passage.context or title or passage.doc_id
