"""The rerank block (canonical spec §1.2.5): re-score candidates with a model.

``rerank(query, candidates)`` keeps the order (a documented pass-through: ranks are
renumbered from 1). ``rerank(query, candidates, model="ms-marco-minilm")`` — or a model
object with ``score(query, passages)`` — re-scores every candidate with the bundled
cross-encoder and orders by that score (ties by doc_id, chunk_index); the score replaces
``score``. Rerankers are registered by name in :data:`RERANKERS`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..registry import Registry
from ..types import Candidate

RERANKERS: Registry[Callable[[], Any]] = Registry("reranker")


@RERANKERS.register("ms-marco-minilm")
def _ms_marco(max_tokens: int = 256) -> Any:
    from .cross_encoder import shared

    return shared(max_tokens)


def rerank(query: str, candidates: Sequence[Candidate], model: Any = None,
           max_tokens: int = 256) -> list[Candidate]:
    """Candidates re-scored by ``model`` (a registered name, reading at most ``max_tokens``
    of query and passage, or an object with ``score``), best first; with ``model=None``
    the order is kept."""
    if model is None:
        return [c.evolve(rank=i + 1) for i, c in enumerate(candidates)]
    scorer = RERANKERS.get(model)(max_tokens) if isinstance(model, str) else model
    scores = scorer.score(query, [c.text for c in candidates])
    order = sorted(range(len(candidates)),
                   key=lambda i: (-float(scores[i]), candidates[i].doc_id,
                                  candidates[i].chunk_index))
    return [candidates[i].evolve(score=float(scores[i]), rank=r + 1)
            for r, i in enumerate(order)]
