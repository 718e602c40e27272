"""``verify``: hold an answer produced elsewhere to ragd's answer validators.

Input: ``{"question", "answer_sentences": [{"sentence", "citations": [...]}]}``. A
citation is a string (a rendered citation such as ``15 CFR 740.9(a)(1)``, a section id
or a chunk id) or an object naming ``chunk_id``, ``doc_id`` (and ``chunk_index``),
``section_id``/``citation``, or the scheme's fields (``pdf`` and ``page``). Citations are
resolved against the collection: among the passages retrieved for the sentence itself
and the chunks of any section a citation names. A sentence is ``supported`` when a
resolved passage supports it (the same check as ragd's own answers), ``unsupported``
when its citations resolve but none supports it, ``unknown_citation`` when none resolves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..collection import Collection
from ..errors import InvalidDocumentError
from ..retrieval.retrieve import retrieve
from ..types import Candidate
from .support import supported

SUPPORTED, UNSUPPORTED, UNKNOWN = "supported", "unsupported", "unknown_citation"


@dataclass(frozen=True)
class Verdict:
    sentence: str
    status: str
    reason: str | None
    resolved: tuple[str, ...]   # chunk ids the citations resolved to

    def to_dict(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "status": self.status, "reason": self.reason,
                "resolved": list(self.resolved)}


def parse(payload: Any, source: str = "input") -> tuple[str, list[tuple[str, list[Any]]]]:
    """(question, [(sentence, citations)]); InvalidDocumentError naming the field."""
    if not isinstance(payload, Mapping):
        raise InvalidDocumentError("must be a JSON object", source=source)
    question = payload.get("question", "")
    rows = payload.get("answer_sentences")
    if not isinstance(question, str):
        raise InvalidDocumentError("must be a string", source=source, field="question")
    if not isinstance(rows, list):
        raise InvalidDocumentError("must be a list of {sentence, citations}", source=source,
                                   field="answer_sentences")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or not isinstance(row.get("sentence"), str):
            raise InvalidDocumentError(f"item {i} needs a 'sentence' string", source=source,
                                       field="answer_sentences")
        cites = row.get("citations", [])
        if not isinstance(cites, list):
            cites = [cites]
        out.append((row["sentence"], cites))
    return question, out


def _family(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "(") or b.startswith(a + "(")


def _matches(c: Candidate, citation: Any, coll: Collection) -> bool:
    scheme = coll.profile.scheme
    fields = scheme.fields(c, c.title)
    if isinstance(citation, str):
        text = citation.strip()
        if text in (c.chunk_id, c.doc_id, scheme.cite(c, c.title)):
            return True
        refs = scheme.find_refs(text)
        return bool(c.section_id) and any(_family(c.section_id, r) for r in refs)
    if not isinstance(citation, Mapping):
        return False
    checks = []
    if "chunk_id" in citation:
        checks.append(citation["chunk_id"] == c.chunk_id)
    if "doc_id" in citation:
        checks.append(citation["doc_id"] == c.doc_id)
    if "chunk_index" in citation:
        checks.append(citation["chunk_index"] == c.chunk_index)
    for key in ("section_id", "citation"):
        if key in citation and isinstance(citation[key], str):
            checks.append(_matches(c, citation[key], coll))
    for key, value in citation.items():
        if key in fields and key not in ("section",):
            checks.append(fields[key] == value)
    return bool(checks) and all(checks)


def _pinned(citations: Sequence[Any], coll: Collection) -> list[Candidate]:
    """The chunks of any section the citations name (they may not be retrieved)."""
    texts = [c if isinstance(c, str) else c.get("section_id") or c.get("citation")
             for c in citations if isinstance(c, (str, Mapping))]
    refs = [r for t in texts if isinstance(t, str) for r in coll.profile.scheme.find_refs(t)]
    if not refs:
        return []
    keys = coll.store.find_sections(coll.name, refs, 50)
    stored = coll.store.get_chunks(coll.name, keys)
    return [Candidate(doc_id=s.chunk.doc_id, chunk_index=s.chunk.chunk_index,
                      text=s.chunk.text, score=0.0, chunk_id=s.chunk.chunk_id,
                      context=s.chunk.context, title=s.title, metadata=s.chunk.metadata,
                      section_id=s.chunk.section_id, page=s.chunk.page)
            for s in stored.values()]


def verify(payload: Any, coll: Collection, source: str = "input") -> list[Verdict]:
    """A verdict per sentence of ``payload`` (see the module doc)."""
    _, rows = parse(payload, source)
    threshold = float(coll.profile.data["answer"]["support_threshold"])
    plan = coll.profile.plan(k=max(50, int(coll.profile.retrieval["gather"])), scheme="")
    out = []
    for sentence, citations in rows:
        pool = {c.key: c for c in retrieve(sentence, plan, coll)} if sentence.strip() else {}
        for c in _pinned(citations, coll):
            pool.setdefault(c.key, c)
        resolved = [c for c in pool.values() if any(_matches(c, x, coll) for x in citations)]
        ids = tuple(sorted({c.chunk_id for c in resolved}))
        if not resolved:
            out.append(Verdict(sentence, UNKNOWN, "no citation resolves to a stored passage",
                               ids))
            continue
        reasons = [supported(sentence, [c.text], threshold) for c in resolved]
        if any(r is None for r in reasons):
            out.append(Verdict(sentence, SUPPORTED, None, ids))
        else:
            out.append(Verdict(sentence, UNSUPPORTED, reasons[0], ids))
    return out
