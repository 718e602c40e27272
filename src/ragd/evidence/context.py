"""Context assembly: accepted evidence into a bounded, ordered, citable context.

Pure. Chunks are taken in the given order (retrieval rank, or the profile's ordering
keys: :func:`order`) up to ``max_chunks`` and a budget of ``max_tokens`` words; a chunk
that lacks a citation field the profile requires is dropped (``missing_citation``); the
lowest-ranked are dropped first when the budget overflows (``token_budget_exceeded``),
and a first chunk alone over it is cut to the whole sentences that fit: never
mid-sentence, and never an empty context while one sentence fits.
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


def _missing(values: Mapping[str, Any], required: Sequence[str]) -> bool:
    """Whether a required field is empty; ``a|b`` is satisfied by either."""
    return any(all(values.get(name) in (None, "") for name in alt.split("|"))
               for alt in required)


def assemble(candidates: Sequence[Candidate], *, max_tokens: int, max_chunks: int,
             required: Sequence[str] = (),
             fields: Callable[[Candidate], Mapping[str, Any]] = lambda c: {},
             min_chunks: int = 1) -> Assembled:
    """The context for ``candidates`` (best first) under the budget; see the module doc.

    Chunks lacking a required field are dropped first; of the rest, the longest run from
    the best that fits ``max_tokens`` words and ``max_chunks`` is kept (the lowest-ranked
    are dropped first); a first chunk alone over the budget is cut to whole sentences.
    Fewer than ``min_chunks`` kept is ``insufficient_context``.
    """
    if not candidates:
        return Assembled((), (), (), 0, "no_valid_evidence")
    dropped: list[tuple[Candidate, str]] = []
    cited = []
    for c in candidates:
        if _missing(fields(c), required):
            dropped.append((c, "missing_citation"))
        else:
            cited.append(c)
    if not cited:
        return Assembled((), (), tuple(dropped), 0, "missing_citation")
    used: list[Candidate] = []
    texts: list[str] = []
    tokens = 0
    for i, c in enumerate(cited):
        n = _words(c.text)
        if len(used) >= max_chunks:
            dropped.extend((x, "max_chunks") for x in cited[i:])
            break
        if tokens + n <= max_tokens:
            used.append(c)
            texts.append(c.text)
            tokens += n
            continue
        if not used:
            cut = _whole_sentences(c.text, max_tokens)
            if cut:
                used.append(c)
                texts.append(cut)
                tokens += _words(cut)
                dropped.extend((x, "token_budget_exceeded") for x in cited[i + 1:])
                break
        dropped.extend((x, "token_budget_exceeded") for x in cited[i:])
        break
    if not used:
        return Assembled((), (), tuple(dropped), 0, "token_budget_exceeded")
    if len(used) < min_chunks:
        return Assembled(tuple(used), tuple(texts), tuple(dropped), tokens,
                         "insufficient_context")
    return Assembled(tuple(used), tuple(texts), tuple(dropped), tokens)


ORDER_KEYS = ("named_section", "named_scope", "authority", "score", "rank")


def order(question: str, candidates: Sequence[Candidate], keys: Sequence[str],
          scheme: Any) -> list[Candidate]:
    """``candidates`` sorted by the profile's ordering keys, in turn: ``named_section``
    (a chunk of a section the question names first), ``named_scope`` (of the scope it
    names), ``authority`` (the scheme's rank: Supreme Court before High Courts),
    ``score`` (higher first), ``rank`` (as retrieved); ties by (doc_id, chunk_index)."""
    refs = scheme.find_refs(question) if "named_section" in keys else []
    find_scopes = getattr(scheme, "find_scopes", None)
    scopes = find_scopes(question) if find_scopes and "named_scope" in keys else []
    scope_of = getattr(scheme, "scope_of", lambda c: None)
    authority = getattr(scheme, "authority_rank", lambda c: 0)
    position = {c.key: i for i, c in enumerate(candidates)}

    def key(c: Candidate) -> tuple:
        parts: list[Any] = []
        for name in keys:
            if name == "named_section":
                parts.append(0 if c.section_id and c.section_id in refs else 1)
            elif name == "named_scope":
                parts.append(0 if scopes and scope_of(c) in scopes else 1)
            elif name == "authority":
                parts.append(authority(c))
            elif name == "score":
                parts.append(-float(c.score))
            elif name == "rank":
                parts.append(position[c.key])
        return (*parts, c.doc_id, c.chunk_index)

    return sorted(candidates, key=key)
