"""The ``cfr`` scheme: EAR sections cited as ``15 CFR 736.2(b)`` (retrieval-corpus.v1 ids).

A query that names a section in any common form (``§ 744.21``, ``15 CFR
740.9(a)(2)``, ``EAR-742.4``) names that section's canonical id; the id rules
are in :mod:`ragd.citing.cfr_ids`. A passage without a canonical EAR
``section_id`` falls back to its own citation metadata or heading path.

Parts are the scheme's scopes: a query naming ``part 744`` (``15 CFR part 744``,
``supplement no. 4 to part 774``, or a section of it) is about that part, and a passage's
scope is the part of its section (``EAR-744.6(b)`` → ``744``); the ``named_scope``
validator then keeps only passages of the parts named, and refuses when the collection
holds none (a question about part 750 asked of parts 736-746).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .base import Cited, fallback_citation, register_scheme
from .cfr_ids import cfr_citation, find_section_refs, is_canonical, normalize_id


_PART = re.compile(r"\bparts?\s+(\d{3}(?:\s*(?:,|and|or|&)\s*(?:part\s+)?\d{3})*)\b(?!\.\d)",
                   re.IGNORECASE)
_SECTION_PART = re.compile(r"^EAR-(\d{3})\.")


def _part(section_id: str) -> str | None:
    m = _SECTION_PART.match(section_id)
    return m.group(1) if m else None


@dataclass(frozen=True)
class CfrScheme:
    name: str = "cfr"
    key_fields: tuple[str, ...] = ()
    section_field: str = "section_id"

    def find_refs(self, query: str) -> list[str]:
        return find_section_refs(query)

    def normalize(self, ref: str) -> str:
        return normalize_id(ref)

    def find_scopes(self, query: str) -> list[str]:
        """The parts a query names, by number or through a section it names."""
        named = [n for m in _PART.finditer(query) for n in re.findall(r"\d{3}", m.group(1))]
        named += [p for p in (_part(r) for r in find_section_refs(query)) if p]
        return list(dict.fromkeys(named))

    def scope_of(self, passage: Cited) -> str | None:
        return _part(passage.section_id) if passage.section_id else None

    def cite(self, passage: Cited, title: str = "") -> str:
        if passage.section_id and is_canonical(passage.section_id):
            return cfr_citation(passage.section_id)
        return fallback_citation(passage, title)

    def fields(self, passage: Cited, title: str = "") -> dict[str, Any]:
        section = passage.section_id if passage.section_id and is_canonical(
            passage.section_id) else None
        return {"section": cfr_citation(section) if section else None}


CFR = register_scheme(CfrScheme())
