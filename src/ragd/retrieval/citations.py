"""How a result is cited: ``15 CFR 736.2(b)`` for EAR sections, else the document's own citation."""

from __future__ import annotations

from ..corpus.ids import cfr_citation, is_canonical
from ..types import Candidate


def citation(c: Candidate) -> str:
    """The citation of a candidate: its CFR section when it has a canonical EAR section_id,
    else its ``citation`` metadata, else its heading path, title or doc_id."""
    if c.section_id and is_canonical(c.section_id):
        return cfr_citation(c.section_id)
    cited = c.metadata.get("citation")
    if isinstance(cited, str) and cited.strip():
        return cited
    return c.context or c.title or c.doc_id
