"""The ``heading`` scheme: documents cited by their heading path (Markdown, plain text).

A passage is cited as its ``citation`` metadata when it has one, else its
heading path ("Rules > Movement Phase"), title or doc_id. Queries name no
sections this scheme can find, so nothing is pinned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import Cited, fallback_citation, register_scheme


@dataclass(frozen=True)
class HeadingScheme:
    name: str = "heading"
    key_fields: tuple[str, ...] = ()
    section_field: str = "metadata.section"

    def find_refs(self, query: str) -> list[str]:
        return []

    def normalize(self, ref: str) -> str:
        return " > ".join(part.strip() for part in str(ref).split(">") if part.strip())

    def cite(self, passage: Cited, title: str = "") -> str:
        return fallback_citation(passage, title)

    def fields(self, passage: Cited, title: str = "") -> dict[str, Any]:
        section = passage.metadata.get("section")
        return {"section": section if isinstance(section, str) and section else None}


HEADING = register_scheme(HeadingScheme())
