"""Reranking block (canonical spec §1.2.5).

Until a reranking model lands, ``rerank`` is a documented pass-through: the
order is kept and ranks are renumbered from 1, so pipelines can already call it.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import ConfigError
from ..types import Candidate


def rerank(query: str, candidates: Sequence[Candidate], model: object = None) -> list[Candidate]:
    """Re-score ``candidates`` for ``query``; with ``model=None`` the order is kept."""
    if model is not None:
        raise ConfigError(f"no reranking model {model!r} is available in this version of ragd")
    return [c.evolve(rank=i + 1) for i, c in enumerate(candidates)]
