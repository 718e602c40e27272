"""The evidence stages as a profile configures them: validation, then context assembly.

:func:`validate` runs the profile's ``[evidence] validators`` over the retrieved
candidates; :func:`build_context` orders the accepted ones by ``[context] order``,
assembles them within the budget and renders the profile's ``format``. The answering
pipeline and the contract adapters (``ragd.contracts``) both call these, so a contract's
ValidationResult or ContextResult is what the answer was built from. Each stage can
append one JSON line to the log its profile names (``[evidence] log``, ``[context] log``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..profiles import Profile
from ..retrieval.gather import complete
from ..retrieval.threshold import relevance as relevance_of
from ..types import Candidate
from .base import Context, Outcome, run_validators
from .blocks import FORMATS
from .context import Assembled, assemble, order


def validate(question: str, candidates: Sequence[Candidate], pool: Sequence[Candidate],
             prof: Profile) -> Outcome:
    """The profile's validators over ``candidates`` (``pool``: everything retrieved)."""
    settings = prof.data["evidence"]
    kind = settings["relevance"]
    context = Context(settings, prof.scheme, lambda c: relevance_of(c, kind), tuple(pool))
    return run_validators(settings["validators"], question, candidates, context)


@dataclass(frozen=True)
class Built:
    """The assembled context: the chunks used (in order), their texts, what was dropped
    and why, the word count, a refusal reason, and the rendered text."""

    ordered: tuple[Candidate, ...]
    assembled: Assembled
    text: str


def build_context(question: str, accepted: Sequence[Candidate], prof: Profile,
                  keep: Callable[[Candidate], Any] | None = None, keep_limit: int = 0,
                  follow: Callable[[Candidate], Candidate | None] | None = None) -> Built:
    """Order, assemble and render ``accepted`` as the profile's ``[context]`` says.

    ``keep`` says what a passage supplies that the caller wants in the context wherever
    the order puts it (a set: which of the terms the question asks to define it plainly
    defines, which a reranker trained on answers scores low): up to ``keep_limit``
    passages from below the first ``max_chunks`` that supply what none of those does take
    the places of the last that supply nothing, as the retrieval's selection does
    (:func:`~ragd.retrieval.gather.complete`). ``follow`` names the passage that must
    stand right after one (the next chunk of a list a passage ends inside): the first of
    the first ``max_chunks`` passages to have one brings it there, from wherever the order
    put it, before ``keep`` chooses (a passage it keeps may take that one's place)."""
    cfg = prof.data["context"]
    ordered = order(question, accepted, cfg["order"], prof.scheme)
    if follow is not None:   # (before what ``keep`` wants, which may take its place)
        ordered = _followed(ordered, int(cfg["max_chunks"]), follow)
    if keep is not None and keep_limit > 0:
        n = int(cfg["max_chunks"])
        head = complete(ordered[:n], ordered[n:], keep, keep_limit)
        taken = {c.key for c in head}
        ordered = head + [c for c in ordered if c.key not in taken]
    fields = lambda c: prof.scheme.fields(c, c.title)  # noqa: E731
    assembled = assemble(ordered, max_tokens=int(cfg["max_tokens"]),
                         max_chunks=int(cfg["max_chunks"]),
                         required=tuple(cfg["required_fields"]), fields=fields,
                         min_chunks=int(cfg["min_chunks"]))
    text = ""
    if assembled.used:
        text = FORMATS.get(cfg["format"])(assembled.used, assembled.texts, fields,
                                          lambda c: prof.scheme.cite(c, c.title))
    return Built(tuple(ordered), assembled, text)


def _followed(ordered: Sequence[Candidate], n: int,
              follow: Callable[[Candidate], Candidate | None]) -> list[Candidate]:
    """``ordered`` with the passage ``follow`` names for the first of its first ``n`` that
    has one (not already among them) moved or brought right after it."""
    head = {c.key for c in ordered[:n]}
    below = {c.key: c for c in ordered[n:]}
    for i, c in enumerate(ordered[:n]):
        nxt = follow(c)
        if nxt is not None and nxt.key not in head:
            nxt = below.get(nxt.key, nxt)       # (accepted already: as the checks scored it)
            rest = [d for d in ordered[i + 1:] if d.key != nxt.key]
            return [*ordered[:i + 1], nxt, *rest]
    return list(ordered)


def validation_record(question: str, retrieved: int, outcome: Outcome,
                      names: Mapping[str, str]) -> dict[str, Any]:
    """One line of the validation log (the legal contract's fields)."""
    return {"query": question, "total_retrieved": retrieved,
            "accepted_count": len(outcome.accepted), "rejected_count": len(outcome.rejected),
            "status": "refuse" if outcome.refusal else "pass",
            "refusal_reason": names.get(outcome.refusal, outcome.refusal)}


def context_record(question: str, built: Built, names: Mapping[str, str]) -> dict[str, Any]:
    """One line of the context log (the legal contract's fields)."""
    a = built.assembled
    return {"query": question, "input_chunk_count": len(built.ordered),
            "used_chunk_count": len(a.used), "dropped_chunk_count": len(a.dropped),
            "token_count": a.tokens, "status": "refuse" if a.refusal else "assembled",
            "refusal_reason": names.get(a.refusal, a.refusal)}


def append_log(folder: Path | None, name: str, record: Mapping[str, Any]) -> None:
    """Append ``record``, stamped with the time, to ``folder/name`` (no log named, or no
    folder: nothing)."""
    if not name or folder is None:
        return
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamped = {"timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
               **record}
    with open(folder / name, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(stamped, ensure_ascii=False) + "\n")


__all__ = ["Built", "append_log", "build_context", "context_record", "validate",
           "validation_record"]
