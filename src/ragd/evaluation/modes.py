"""Evaluation modes: a name, the ragd ``Plan`` it runs and the search function that runs it.

Every mode starts from the configured defaults (``ragd.toml``/environment, i.e. what
``ragd search`` does with no flags) and changes only what its name says. A later mode (a
reranker, MMR) plugs in with :func:`register_mode`; nothing else changes.

Depth: ragd returns chunks, BEIR judges documents. To fill ``depth`` (100) documents after
keeping each document's best chunk, the named modes ask for ``pool`` chunks (default 200)
from every candidate list and keep them all (``k = pool``). The ``default`` mode keeps the
default plan's own pool (50), so its ranking is exactly what ``ragd search`` ranks (its head
is identical; only ``k`` is raised so that more than 12 results come back); its Recall@100
is therefore bounded by the ``pool`` chunks it can return.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence

from ..collection import Collection
from ..retrieval import retrieve
from ..types import Candidate, Plan

SearchFn = Callable[[str, Plan, Collection], Sequence[Candidate]]
PlanFn = Callable[[Plan, int], Plan]


@dataclass(frozen=True)
class EvalMode:
    """``plan(base, pool)`` builds the mode's plan from the default plan and the eval pool;
    ``search(query, plan, collection)`` returns ranked chunk candidates (default: retrieve)."""

    name: str
    description: str
    plan: PlanFn
    search: SearchFn = retrieve


def _deep(**changes: object) -> PlanFn:
    def build(base: Plan, pool: int) -> Plan:
        return replace(base, k=pool, pool=pool, **changes)  # type: ignore[arg-type]
    return build


def _as_configured(base: Plan, pool: int) -> Plan:
    return replace(base, k=base.pool)


_REGISTRY: dict[str, EvalMode] = {}


def register_mode(mode: EvalMode) -> None:
    """Add (or replace) a mode by name."""
    _REGISTRY[mode.name] = mode


def get_mode(name: str) -> EvalMode:
    from ..errors import UsageError

    if name not in _REGISTRY:
        raise UsageError(f"unknown eval mode {name!r}; choose from {', '.join(_REGISTRY)}")
    return _REGISTRY[name]


def mode_names() -> list[str]:
    return list(_REGISTRY)


register_mode(EvalMode("lexical", "lexical only (BM25 on SQLite, ts_rank_cd on PostgreSQL)",
                       _deep(mode="lexical")))
register_mode(EvalMode("vector", "embedding cosine only", _deep(mode="vector")))
register_mode(EvalMode("hybrid-rrf", "lexical + vector, reciprocal rank fusion",
                       _deep(mode="hybrid", fusion="rrf")))
register_mode(EvalMode("hybrid-weighted", "lexical + vector, min-max weighted fusion",
                       _deep(mode="hybrid", fusion="weighted")))
register_mode(EvalMode("default", "ragd search with no flags (the configured plan, its own pool)",
                       _as_configured))

DEFAULT_MODES: tuple[str, ...] = ("lexical", "vector", "hybrid-rrf", "hybrid-weighted", "default")
