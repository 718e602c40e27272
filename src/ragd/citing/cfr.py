"""The ``cfr`` scheme: EAR sections cited as ``15 CFR 736.2(b)`` (retrieval-corpus.v1 ids).

A query that names a section in any common form (``§ 744.21``, ``15 CFR
740.9(a)(2)``, ``EAR-742.4``) names that section's canonical id; the id rules
are in :mod:`ragd.citing.cfr_ids`. A passage without a canonical EAR
``section_id`` falls back to its own citation metadata or heading path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import Cited, fallback_citation, register_scheme
from .cfr_ids import cfr_citation, find_section_refs, is_canonical, normalize_id


@dataclass(frozen=True)
class CfrScheme:
    name: str = "cfr"
    key_fields: tuple[str, ...] = ()
    section_field: str = "section_id"

    def find_refs(self, query: str) -> list[str]:
        return find_section_refs(query)

    def normalize(self, ref: str) -> str:
        return normalize_id(ref)

    def cite(self, passage: Cited, title: str = "") -> str:
        if passage.section_id and is_canonical(passage.section_id):
            return cfr_citation(passage.section_id)
        return fallback_citation(passage, title)

    def fields(self, passage: Cited, title: str = "") -> dict[str, Any]:
        section = passage.section_id if passage.section_id and is_canonical(
            passage.section_id) else None
        return {"section": cfr_citation(section) if section else None}


CFR = register_scheme(CfrScheme())
