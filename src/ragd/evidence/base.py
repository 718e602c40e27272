"""Evidence validators: pure functions that accept or reject retrieved candidates, with a
machine-readable reason for each rejection, and may refuse the whole question.

A validator is registered by name in :data:`VALIDATORS`; a profile lists the ones it
runs, in order (``[evidence] validators``). Each gets the question, the candidates
still accepted, and a context (the profile's ``[evidence]`` settings, the citation
scheme, a relevance function) and returns a :class:`Step`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..citing import CitationScheme
from ..registry import Registry
from ..types import Candidate


@dataclass(frozen=True)
class Context:
    """What a validator may consult besides the question and the candidates."""

    settings: Mapping[str, Any]
    scheme: CitationScheme
    relevance: Callable[[Candidate], float]
    pool: tuple[Candidate, ...] = ()   # everything retrieved (the accepted ones included)


@dataclass(frozen=True)
class Step:
    """A validator's verdict: what it kept, what it set aside and why, and a refusal
    reason when the question must not be answered from this evidence."""

    accepted: tuple[Candidate, ...]
    rejected: tuple[tuple[Candidate, str], ...] = ()
    refusal: str | None = None


Validator = Callable[[str, Sequence[Candidate], Context], Step]
VALIDATORS: Registry[Validator] = Registry("evidence validator")


@dataclass(frozen=True)
class Outcome:
    """All validators run in order: the accepted candidates, every rejection (candidate,
    reason, validator) and the first refusal."""

    accepted: tuple[Candidate, ...]
    rejected: tuple[tuple[Candidate, str, str], ...] = ()
    refusal: str | None = None
    refused_by: str | None = None
    steps: tuple[str, ...] = field(default_factory=tuple)


def run_validators(names: Sequence[str], question: str, candidates: Sequence[Candidate],
                   context: Context) -> Outcome:
    """Run the named validators in order; stop at the first refusal."""
    accepted = tuple(candidates)
    rejected: list[tuple[Candidate, str, str]] = []
    for name in names:
        step = VALIDATORS.get(name)(question, accepted, context)
        rejected.extend((c, reason, name) for c, reason in step.rejected)
        accepted = step.accepted
        if step.refusal:
            return Outcome(accepted, tuple(rejected), step.refusal, name, tuple(names))
    if not accepted:
        return Outcome((), tuple(rejected), "no_valid_evidence", None, tuple(names))
    return Outcome(accepted, tuple(rejected), None, None, tuple(names))
