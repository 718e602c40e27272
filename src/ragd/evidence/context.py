"""Context assembly: accepted evidence into a bounded, ordered, citable context.

Pure. Chunks are taken in the given order (retrieval rank; a profile may order
otherwise) up to ``max_chunks`` and a budget of ``max_tokens`` words; a chunk that
lacks a citation field the profile requires is dropped (``missing_citation``); one
that does not fit the remaining budget is dropped (``token_budget_exceeded``), except
the first, which is cut to the whole sentences that fit: never mid-sentence, and never
an empty context while one sentence fits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..chunking import split_sentences
from ..types import Candidate


@dataclass(frozen=True)
class Assembled:
    used: tuple[Candidate, ...]
    texts: tuple[str, ...]          # each used chunk's text as it enters the context
    dropped: tuple[tuple[Candidate, str], ...]
    tokens: int
    refusal: str | None = None


def _words(text: str) -> int:
    return len(text.split())


def _whole_sentences(text: str, budget: int) -> str:
    """The longest prefix of ``text`` made of whole sentences within ``budget`` words."""
    out_end = 0
    used = 0
    for start, end in split_sentences(text):
        n = _words(text[start:end])
        if used + n > budget:
            break
        used += n
        out_end = end
    return text[:out_end].strip()


def assemble(candidates: Sequence[Candidate], *, max_tokens: int, max_chunks: int,
             required: Sequence[str] = (),
             fields: Callable[[Candidate], Mapping[str, Any]] = lambda c: {}) -> Assembled:
    """The context for ``candidates`` (best first) under the budget; see the module doc."""
    if not candidates:
        return Assembled((), (), (), 0, "no_valid_evidence")
    used: list[Candidate] = []
    texts: list[str] = []
    dropped: list[tuple[Candidate, str]] = []
    tokens = 0
    missing = 0
    for c in candidates:
        values = fields(c)
        if any(values.get(name) in (None, "") for name in required):
            dropped.append((c, "missing_citation"))
            missing += 1
            continue
        if len(used) >= max_chunks:
            dropped.append((c, "max_chunks"))
            continue
        n = _words(c.text)
        if tokens + n <= max_tokens:
            used.append(c)
            texts.append(c.text)
            tokens += n
        elif not used:
            cut = _whole_sentences(c.text, max_tokens)
            if cut:
                used.append(c)
                texts.append(cut)
                tokens += _words(cut)
            else:
                dropped.append((c, "token_budget_exceeded"))
        else:
            dropped.append((c, "token_budget_exceeded"))
    if used:
        return Assembled(tuple(used), tuple(texts), tuple(dropped), tokens)
    reason = "missing_citation" if missing == len(candidates) else "token_budget_exceeded"
    return Assembled((), (), tuple(dropped), 0, reason)
