"""Relevance thresholds: which retrieved chunks qualify, and whether the evidence is enough.

Pure functions over relevance scores sorted best first. A profile names the rule:

* ``mean-of-qualifying`` (the rag-pipeline contract): the chunks scoring at least the
  threshold qualify (at most ``limit``); ``avg`` is their mean, or the mean of the top
  ``limit`` when none qualifies; the evidence meets the threshold when ``avg >= threshold``,
  and otherwise nothing is returned.
* ``top``: the evidence meets the threshold when the best score does; the qualifying
  chunks are those at or above it.
* ``none``: everything up to ``limit`` qualifies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..errors import ConfigError
from ..types import Candidate

RULES = ("none", "mean-of-qualifying", "top")


@dataclass(frozen=True)
class Verdict:
    """How many of the ranked chunks are kept, their mean relevance, and the decision."""

    kept: int
    avg: float
    meets: bool


def judge(scores: Sequence[float], threshold: float, limit: int, rule: str) -> Verdict:
    """The verdict of ``rule`` over ``scores`` (best first)."""
    top = list(scores[:max(0, limit)])
    if rule == "none":
        return Verdict(len(top), sum(top) / len(top) if top else 0.0, True)
    qualifying = [s for s in top if s >= threshold]
    if rule == "mean-of-qualifying":
        pool = qualifying or top
        avg = sum(pool) / len(pool) if pool else 0.0
        meets = bool(pool) and avg >= threshold
        return Verdict(len(qualifying) if meets else 0, avg, meets)
    if rule == "top":
        meets = bool(top) and top[0] >= threshold
        avg = sum(qualifying) / len(qualifying) if qualifying else 0.0
        return Verdict(len(qualifying) if meets else 0, avg, meets)
    raise ConfigError(f"unknown threshold rule {rule!r}; choose one of {', '.join(RULES)}")


def relevance(c: Candidate, kind: str) -> float:
    """A candidate's relevance: its fused score, or its cosine clipped to [0, 1]."""
    if kind == "cosine":
        cosine = c.vector_score if c.vector_score is not None else 0.0
        return min(1.0, max(0.0, float(cosine)))
    return float(c.score)


def by_relevance(candidates: Sequence[Candidate], kind: str) -> list[tuple[Candidate, float]]:
    """Candidates with their relevance, best first; ties by (doc_id, chunk_index)."""
    scored = [(c, relevance(c, kind)) for c in candidates]
    return sorted(scored, key=lambda cs: (-cs[1], cs[0].doc_id, cs[0].chunk_index))
