"""Citation by section: a query that names a section ranks that section's chunks first.

A user who names a section ("Section 420", "§ 12.3") wants that section, whatever
the embedding thinks. The plan's citation scheme (a registered name) parses the
section references from the query, the store is asked for chunks whose
``section_id`` is exactly one of them, and those come first, in the order the
query named them: the section's own document, then by fused rank, then by key.
A plan without a scheme, or a scheme that finds no reference, pins nothing.
"""

from __future__ import annotations

from typing import Sequence

from ..citing import get_scheme
from ..stores.base import Snapshot
from ..types import Candidate, Plan


def pin_sections(query: str, ranked: Sequence[Candidate], plan: Plan, snap: Snapshot,
                 make_candidates) -> list[Candidate]:
    """``ranked`` with the chunks of every section named in ``query`` moved to the front
    (looked up in ``snap``, the snapshot the ranking was read from).

    ``make_candidates(keys)`` reads the pinned chunks (with content and section); those
    that were among the fused ones keep their scores, the others score 0 with no list ranks.
    """
    refs = get_scheme(plan.scheme).find_refs(query) if plan.scheme else []
    if not refs:
        return list(ranked)
    keys = snap.find_sections(refs, plan.k, plan.filters)
    if not keys:
        return list(ranked)
    position = {c.key: i for i, c in enumerate(ranked)}
    # Ordering needs each pinned chunk's section, which a ranked candidate may not carry
    # yet: all pinned chunks are read, keeping the scores of those that were ranked.
    by_key = {}
    for cand in make_candidates(keys):
        if cand.key in position:
            cand = cand.scored_as(ranked[position[cand.key]])
        by_key[cand.key] = cand
    ref_order = {ref: i for i, ref in enumerate(refs)}

    def order(key: tuple[str, int]) -> tuple:
        cand = by_key[key]
        section = cand.section_id or ""
        return (ref_order.get(section, len(refs)), cand.doc_id != section,
                position.get(key, len(ranked)), key)

    pinned = [by_key[k].evolve(pinned=True) for k in sorted(
        (k for k in keys if k in by_key), key=order)]
    pinned_keys = {c.key for c in pinned}
    rest = [c for c in ranked if c.key not in pinned_keys]
    return [c.evolve(rank=i + 1) for i, c in enumerate(pinned + rest)]
