"""The rerank block (canonical spec §1.2.5): re-score candidates with a model.

``rerank(query, candidates)`` keeps the order (a documented pass-through: ranks are
renumbered from 1). ``rerank(query, candidates, model="ms-marco-minilm")`` — or a model
object with ``score(query, passages)`` — re-scores every candidate with the bundled
cross-encoder and orders by that score (ties by doc_id, chunk_index); the score replaces
``score``. Rerankers are registered by name in :data:`RERANKERS`.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Sequence

from ..registry import Registry
from ..types import Candidate, search_text

RERANKERS: Registry[Callable[[], Any]] = Registry("reranker")


@RERANKERS.register("ms-marco-minilm")
def _ms_marco(max_tokens: int = 256) -> Any:
    from .cross_encoder import shared

    return shared(max_tokens)


def rerank(query: str, candidates: Sequence[Candidate], model: Any = None,
           max_tokens: int = 256, with_context: bool = False) -> list[Candidate]:
    """Candidates re-scored by ``model`` (a registered name, reading at most ``max_tokens``
    of query and passage, or an object with ``score``), best first; with ``model=None``
    the order is kept. ``with_context``: the model reads each passage as it was embedded,
    its context line (title, heading path) before its text."""
    if model is None:
        return [c.evolve(rank=i + 1) for i, c in enumerate(candidates)]
    texts = [search_text(c.context, c.text) if with_context else c.text for c in candidates]
    if isinstance(model, str):
        scores = _memo_scores(model, max_tokens, query, texts)
    else:
        scores = model.score(query, texts)
    order = sorted(range(len(candidates)),
                   key=lambda i: (-float(scores[i]), candidates[i].doc_id,
                                  candidates[i].chunk_index))
    return [candidates[i].evolve(score=float(scores[i]), rank=r + 1)
            for r, i in enumerate(order)]


_MEMO: ContextVar[dict[tuple[str, int, str, str], float] | None] = ContextVar(
    "ragd_rerank_memo", default=None)


@contextmanager
def remembering() -> Iterator[None]:
    """Within it, a registered model's scores are remembered per (query, passage): an answer
    reranks its candidates and then validates them with the same model. Only within: the
    int8 cross-encoder scores a batch with one quantization scale, so a pair's score
    depends on the batch it was read in, and scores kept across answers would make an
    answer depend on what the process had scored before (the same question, asked after
    a re-ingest or another scope, reading other scores than in a fresh process)."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def _memo_scores(model: str, max_tokens: int, query: str, texts: Sequence[str]) -> list[float]:
    """A registered model's scores; within :func:`remembering`, remembered."""
    memo = _MEMO.get()
    scorer = RERANKERS.get(model)(max_tokens)
    if memo is None:
        return [float(v) for v in scorer.score(query, list(texts))]
    keys = [(model, max_tokens, query, t) for t in texts]
    missing = [i for i, k in enumerate(keys) if k not in memo]
    if missing:
        fresh = scorer.score(query, [texts[i] for i in missing])
        for i, value in zip(missing, fresh):
            memo[keys[i]] = float(value)
    return [memo[k] for k in keys]
