"""QA golden sets: run every question through ``answer`` and score the outcomes.

A golden line: ``{"id", "question", "expected_not_found", "must_include"?,
"must_not_include"?, "min_citations"?, "expected_sections"?}``. A question passes
when it is refused if and only if it should be, and an answer holds every
``must_include`` term, none of ``must_not_include``, at least ``min_citations``
citations and, when ``expected_sections`` is given, cites one of them (a section, a
sub-paragraph or container of it, or a citation field such as a PDF's name).

Hallucination is checked independently of the pipeline: an answer to a question that
should be refused, or any sentence its cited evidence does not support.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..answer import Answer, answer
from ..answer.support import supported
from ..citing import CitationScheme
from ..collection import Collection
from ..errors import InvalidDocumentError, UsageError
from ..strict_json import read_objects

METRICS = ("pass", "answered", "correct_refusal", "incorrect_refusal", "hallucination",
           "citation_precision", "expected_section", "phase_a_fallback_used_count",
           "phase_a_fallback_used_rate", "fallback_used_rate_answerable", "p50_ms", "p95_ms")


@dataclass(frozen=True)
class Golden:
    id: str
    question: str
    expected_not_found: bool
    must_include: tuple[str, ...] = ()
    must_not_include: tuple[str, ...] = ()
    min_citations: int = 0
    expected_sections: tuple[str, ...] = ()


def load_golden(path: str | Path) -> list[Golden]:
    """The golden set; a bad line is an InvalidDocumentError naming file, line and field."""
    out: list[Golden] = []
    seen: set[str] = set()
    source = str(path)
    for number, row in read_objects(path):
        for key, kind in (("id", str), ("question", str), ("expected_not_found", bool)):
            if not isinstance(row.get(key), kind):
                raise InvalidDocumentError(f"needs {key!r} ({kind.__name__})", source=source,
                                           line=number, field=key)
        lists = {}
        for key in ("must_include", "must_not_include", "expected_sections"):
            value = row.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InvalidDocumentError("must be a list of strings", source=source,
                                           line=number, field=key)
            lists[key] = tuple(value)
        min_citations = row.get("min_citations", 0)
        if isinstance(min_citations, bool) or not isinstance(min_citations, int):
            raise InvalidDocumentError("must be an integer", source=source, line=number,
                                       field="min_citations")
        if row["id"] in seen:
            raise InvalidDocumentError(f"duplicate id {row['id']!r}", source=source,
                                       line=number, field="id")
        seen.add(row["id"])
        out.append(Golden(row["id"], row["question"], row["expected_not_found"],
                          min_citations=min_citations, **lists))
    if not out:
        raise UsageError(f"{source}: no questions")
    return out


def _family(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "(") or b.startswith(a + "(") or \
        a.startswith(b + "#") or b.startswith(a + "#")


def cites_expected(citation: Mapping[str, Any], expected: str, scheme: CitationScheme) -> bool:
    """Whether a citation (an answer JSON citation) is of the expected section or source."""
    try:
        ref = scheme.normalize(expected)
    except Exception:  # noqa: BLE001 - not a reference this scheme reads
        ref = expected
    section = citation.get("section_id") or ""
    if section and _family(section, ref):
        return True
    values = {str(v) for k, v in citation.items() if v is not None and k != "chunk_id"}
    return expected in values or ref in values


@dataclass
class QuestionResult:
    golden: Golden
    answer: dict[str, Any]
    seconds: float
    passed: bool
    why: list[str] = field(default_factory=list)
    hallucinated: bool = False
    citations: int = 0
    citations_supported: int = 0
    expected_cited: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.golden.id, "question": self.golden.question,
                "expected_not_found": self.golden.expected_not_found,
                "status": self.answer["status"], "refusal_reason": self.answer["refusal_reason"],
                "passed": self.passed, "why": self.why, "hallucinated": self.hallucinated,
                "expected_cited": self.expected_cited, "ms": round(self.seconds * 1000, 1),
                "signals": self.answer["trace"].get("signals", {}),
                "answer": self.answer["answer"]}


def judge(g: Golden, a: Answer, seconds: float, scheme: CitationScheme,
          threshold: float) -> QuestionResult:
    """Score one answer against its golden line (pure)."""
    data = a.to_dict()
    r = QuestionResult(g, data, seconds, True)
    evidence = {e["chunk_id"]: e["text"] for e in data["evidence"]}
    for s in data["sentences"]:
        for c in s["citations"]:
            r.citations += 1
            text = evidence.get(c["chunk_id"])
            if text is not None and supported(s["text"], [text], threshold) is None:
                r.citations_supported += 1
            else:
                r.hallucinated = True
    if g.expected_not_found:
        if a.answered:
            r.passed, r.hallucinated = False, True
            r.why.append("answered a question that must be refused")
        return r
    if not a.answered:
        r.passed = False
        r.why.append(f"refused ({a.refusal_reason})")
        return r
    body = " ".join(a.answer.lower().split())
    for term in g.must_include:
        if " ".join(term.lower().split()) not in body:
            r.passed = False
            r.why.append(f"missing {term!r}")
    for term in g.must_not_include:
        if " ".join(term.lower().split()) in body:
            r.passed = False
            r.why.append(f"contains {term!r}")
    if r.citations < g.min_citations:
        r.passed = False
        r.why.append(f"{r.citations} citations < {g.min_citations}")
    if g.expected_sections:
        cited = [c for s in data["sentences"] for c in s["citations"]]
        r.expected_cited = any(cites_expected(c, e, scheme) for c in cited
                               for e in g.expected_sections)
        if not r.expected_cited:
            r.passed = False
            r.why.append("no expected section cited")
    if r.hallucinated:
        r.passed = False
        r.why.append("a sentence its citation does not support")
    return r


def run_golden(golden: Sequence[Golden], coll: Collection, *, llm: Any = None,
               on_progress: Callable[[int], None] | None = None) -> list[QuestionResult]:
    scheme = coll.profile.scheme
    threshold = float(coll.profile.data["answer"]["support_threshold"])
    out = []
    for i, g in enumerate(golden, start=1):
        started = time.perf_counter()
        a = answer(g.question, coll, llm=llm)
        out.append(judge(g, a, time.perf_counter() - started, scheme, threshold))
        if on_progress:
            on_progress(i)
    return out


def metrics(results: Sequence[QuestionResult]) -> dict[str, float]:
    """Rates over the results (NaN-free: a rate over nothing is 1.0 for good, 0.0 for bad)."""
    n = len(results)
    answerable = [r for r in results if not r.golden.expected_not_found]
    unanswerable = [r for r in results if r.golden.expected_not_found]
    answered = [r for r in answerable if r.answer["status"] == "answered"]
    refused_ok = [r for r in unanswerable if r.answer["status"] == "refused"]
    with_expected = [r for r in answered if r.expected_cited is not None]
    citations = sum(r.citations for r in results)
    ms = np.array([r.seconds * 1000 for r in results] or [0.0])
    fallback_all = [r for r in results if r.answer["trace"].get("fallback_used")]
    fallback = [r for r in answerable if r.answer["trace"].get("fallback_used")]

    def rate(part: Sequence[Any], whole: Sequence[Any], empty: float) -> float:
        return len(part) / len(whole) if whole else empty

    return {
        "questions": float(n), "answerable": float(len(answerable)),
        "unanswerable": float(len(unanswerable)),
        "pass": rate([r for r in results if r.passed], results, 1.0),
        "answered": rate(answered, answerable, 1.0),
        "correct_refusal": rate(refused_ok, unanswerable, 1.0),
        "incorrect_refusal": 1.0 - rate(answered, answerable, 1.0),
        "hallucination": rate([r for r in results if r.hallucinated], results, 0.0),
        "citation_precision": (sum(r.citations_supported for r in results) / citations
                               if citations else 1.0),
        "expected_section": rate([r for r in with_expected if r.expected_cited],
                                 with_expected, 1.0),
        "phase_a_fallback_used_count": float(len(fallback_all)),
        "phase_a_fallback_used_rate": rate(fallback_all, results, 0.0),
        "fallback_used_rate_answerable": rate(fallback, answerable, 0.0),
        "p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
    }
