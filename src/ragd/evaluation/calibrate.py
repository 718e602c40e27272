"""Calibrate a profile's relevance threshold on labelled questions.

Thresholds are model-specific: a cosine of 0.6 means one thing under
text-embedding-3-small and another under all-MiniLM-L6-v2. Given questions
labelled answerable (optionally with the document that answers them) or not,
``sweep`` decides each question at every candidate threshold with the
profile's own rule and counts correct accepts (answerable, evidence meets the
threshold, and the expected document is among the kept chunks) and correct
rejects (unanswerable, evidence below it). The best threshold maximises
balanced accuracy; among equals, the middle of the widest run of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..collection import Collection
from ..errors import InvalidDocumentError
from ..strict_json import read_objects
from ..retrieval.retrieve import retrieve
from ..retrieval.threshold import by_relevance, judge


@dataclass(frozen=True)
class Labelled:
    id: str
    question: str
    answerable: bool
    expected_doc: str | None = None
    expected_docs: tuple[str, ...] = ()     # any of them (a QA golden set's expected_sections)

    def expects(self) -> tuple[str, ...]:
        return self.expected_docs or ((self.expected_doc,) if self.expected_doc else ())


@dataclass(frozen=True)
class Row:
    threshold: float
    correct_accept: int
    answerable: int
    correct_reject: int
    unanswerable: int

    @property
    def balanced(self) -> float:
        a = self.correct_accept / self.answerable if self.answerable else 1.0
        r = self.correct_reject / self.unanswerable if self.unanswerable else 1.0
        return (a + r) / 2

    def as_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "correct_accept": self.correct_accept,
                "answerable": self.answerable, "correct_reject": self.correct_reject,
                "unanswerable": self.unanswerable, "balanced_accuracy": round(self.balanced, 4)}


def _from_golden(row: dict) -> dict:
    """A QA golden line (``expected_not_found``, ``expected_sections``) as a labelled one."""
    if "answerable" in row or not isinstance(row.get("expected_not_found"), bool):
        return row
    docs = row.get("expected_sections") or []
    return {"id": row.get("id"), "question": row.get("question"),
            "answerable": not row["expected_not_found"],
            "expected_docs": [d for d in docs if isinstance(d, str)]}


def half_of(qid: str) -> str:
    """``dev`` when the id's last number is odd, ``test`` when even (the golden sets'
    calibration and held-out halves)."""
    import re

    numbers = re.findall(r"\d+", qid)
    return "dev" if numbers and int(numbers[-1]) % 2 else "test"


def load_labelled(path: str | Path) -> list[Labelled]:
    """``{"id", "question", "answerable", "expected_doc"?}`` per line, or QA golden lines
    (``expected_not_found``, ``expected_sections``); errors name the line."""
    out: list[Labelled] = []
    seen: set[str] = set()
    for number, row in read_objects(path):
        row = _from_golden(row)
        for key, kind in (("id", str), ("question", str), ("answerable", bool)):
            if not isinstance(row.get(key), kind):
                raise InvalidDocumentError(f"needs {key!r} ({kind.__name__})",
                                           source=str(path), line=number, field=key)
        expected = row.get("expected_doc")
        if expected is not None and not isinstance(expected, str):
            raise InvalidDocumentError("must be a string", source=str(path), line=number,
                                       field="expected_doc")
        if row["id"] in seen:
            raise InvalidDocumentError(f"duplicate id {row['id']!r}", source=str(path),
                                       line=number, field="id")
        seen.add(row["id"])
        out.append(Labelled(row["id"], row["question"], row["answerable"], expected,
                            tuple(row.get("expected_docs") or ())))
    if not out:
        raise InvalidDocumentError("no questions", source=str(path))
    return out


Scored = list[tuple[str, float]]  # (doc_id, relevance) best first


def score_questions(coll: Collection, questions: Sequence[Labelled]) -> list[Scored]:
    """Each question's retrieved chunks under the collection's profile, by relevance."""
    return [s for s, _ in score_with_gate(coll, questions)]


def score_with_gate(coll: Collection, questions: Sequence[Labelled]
                    ) -> list[tuple[Scored, bool]]:
    """Each question's chunks by relevance, and whether its best chunk passes the profile's
    fallback name gate (``[retrieval.fallback] match_field`` against the question's
    keywords and doc hints; true when the profile has no gate)."""
    from ..answer.terms import QUESTION_WORDS
    from ..retrieval.gather import name_matches

    kind = coll.profile.retrieval["relevance"]
    fb = coll.profile.retrieval["fallback"]
    plan = coll.plan
    out = []
    for q in questions:
        ranked = by_relevance(retrieve(q.question, plan, coll), kind)
        gate = True
        if fb["match_field"] and ranked:
            top = ranked[0][0]
            name = str(top.metadata.get(fb["match_field"], ""))
            gate = name_matches(q.question, name, fb["hints"], frozenset(QUESTION_WORDS))
        out.append(([(c.doc_id, s) for c, s in ranked], gate))
    return out


def _matches(doc_id: str, expected: str) -> bool:
    return doc_id == expected or doc_id.endswith("/" + expected)


def _found(q: Labelled, kept: Sequence[str]) -> bool:
    wanted = q.expects()
    return not wanted or any(_matches(d, e) for d in kept for e in wanted)


def sweep(questions: Sequence[Labelled], scored: Sequence[Scored], limit: int, rule: str,
          thresholds: Sequence[float]) -> list[Row]:
    """One row per threshold: how many questions each decision gets right."""
    answerable = sum(q.answerable for q in questions)
    rows = []
    for t in thresholds:
        accept = reject = 0
        for q, ranked in zip(questions, scored):
            verdict = judge([s for _, s in ranked], t, limit, rule)
            if q.answerable:
                kept = [d for d, _ in ranked[:verdict.kept]]
                if verdict.meets and _found(q, kept):
                    accept += 1
            elif not verdict.meets:
                reject += 1
        rows.append(Row(round(t, 4), accept, answerable, reject, len(questions) - answerable))
    return rows


def sweep_fallback(questions: Sequence[Labelled], scored: Sequence[Scored],
                   gates: Sequence[bool], minimum: float, limit: int,
                   thresholds: Sequence[float]) -> list[Row]:
    """The fallback threshold under a fixed ``minimum`` (rule ``top``): a question whose
    best chunk is under ``minimum`` is accepted when it reaches the fallback threshold and
    passes the name gate; one row per fallback threshold (at most ``minimum``)."""
    answerable = sum(q.answerable for q in questions)
    rows = []
    for t in thresholds:
        if t > minimum:
            continue
        accept = reject = 0
        for q, ranked, gate in zip(questions, scored, gates):
            top = ranked[0][1] if ranked else 0.0
            level = minimum if top >= minimum else (t if gate else 2.0)
            meets = top >= level
            kept = [d for d, s in ranked[:limit] if s >= level]
            if q.answerable:
                accept += bool(meets and _found(q, kept))
            else:
                reject += not meets
        rows.append(Row(round(t, 4), accept, answerable, reject, len(questions) - answerable))
    return rows


def best(rows: Sequence[Row]) -> Row:
    """The row of highest balanced accuracy; among equals, the middle of the longest run."""
    top = max(r.balanced for r in rows)
    runs: list[list[Row]] = []
    for r in rows:
        if r.balanced == top:
            if runs and runs[-1][-1] is rows[rows.index(r) - 1]:
                runs[-1].append(r)
            else:
                runs.append([r])
    widest = max(runs, key=len)
    return widest[(len(widest) - 1) // 2]


def thresholds(step: float = 0.01) -> list[float]:
    n = int(round(1 / step))
    return [round(i * step, 4) for i in range(n + 1)]
