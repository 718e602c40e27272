"""Comparing expected and actual outputs, and showing how they differ.

Each output is rendered as lines (one ranked result per line; a chunk as a
header line and its text), and a failure shows a unified diff of the expected
lines against the actual ones. Ranked lists compare keys exactly and scores
within the suite's tolerance; a score inside the tolerance is shown as the
golden one, so the diff shows only what really differs.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

__all__ = ["CaseResult", "compare_output", "render"]


@dataclass(frozen=True)
class CaseResult:
    """The verdict on one case: ``ok``, a one-line ``message`` and the lines compared."""

    name: str
    ok: bool
    message: str = ""
    expected: tuple[str, ...] = ()
    actual: tuple[str, ...] = ()
    expected_label: str = "expected (golden)"
    actual_label: str = "actual"

    def diff(self) -> list[str]:
        """Unified diff of expected against actual (empty when they render alike)."""
        return list(difflib.unified_diff(list(self.expected), list(self.actual),
                                         self.expected_label, self.actual_label, lineterm=""))

    def as_dict(self) -> dict[str, Any]:
        return {"case": self.name, "ok": self.ok, "message": self.message, "diff": self.diff()}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _result_line(i: int, item: Mapping[str, Any]) -> str:
    line = f"{i}. {item['doc_id']}#{item['chunk_index']}"
    return line + (f"  score {item['score']:.9f}" if "score" in item else "")


def _chunk_lines(c: Mapping[str, Any]) -> list[str]:
    head = (f"#{c['chunk_index']} id={c['chunk_id']} tokens={c['tokens']} "
            f"span={c['start_offset']}:{c['end_offset']}")
    if "embedding_sha256" in c:
        head += f" embedding={str(c['embedding_sha256'])[:16]}"
    lines = [head]
    if c.get("context"):
        lines.append(f"    context: {c['context']}")
    extra = {k: c[k] for k in ("tags", "metadata", "section_id", "parent_id", "kind", "page")
             if k in c and c[k] not in (None, [], {}, "chunk")}
    if extra:
        lines.append(f"    {_json(extra)}")
    lines.extend(f"    | {line}" for line in str(c["text"]).split("\n"))
    return lines


def render(kind: str, output: Mapping[str, Any] | None) -> list[str]:
    """Lines that show an output of ``kind`` (chunking, fusion, retrieval, ingest)."""
    if output is None:
        return []
    if kind in ("fusion", "retrieval"):
        results = output.get("results", [])
        return [_result_line(i, r) for i, r in enumerate(results, start=1)] or ["(no results)"]
    lines: list[str] = []
    if kind == "ingest":
        lines.append(f"content_hash {output.get('content_hash')}  title {output.get('title')!r}")
    for c in output.get("chunks", []):
        lines.extend(_chunk_lines(c))
    return lines or ["(no chunks)"]


def _same_item(e: Mapping[str, Any], a: Mapping[str, Any], tolerance: float) -> bool:
    if (e.get("doc_id"), e.get("chunk_index")) != (a.get("doc_id"), a.get("chunk_index")):
        return False
    if "score" not in e:
        return True  # the golden pins no score here (lexical, weighted)
    return "score" in a and abs(float(e["score"]) - float(a["score"])) <= tolerance


def _ranked(name: str, kind: str, expected: Mapping[str, Any], actual: Mapping[str, Any],
            tolerance: float, label: str) -> CaseResult:
    exp, act = list(expected.get("results", [])), list(actual.get("results", []))
    same = [i < len(exp) and _same_item(exp[i], a, tolerance) for i, a in enumerate(act)]
    ok = len(exp) == len(act) and all(same)
    shown = [_result_line(i + 1, exp[i] if same[i] else a) for i, a in enumerate(act)]
    message = "" if ok else _ranked_message(exp, act, tolerance)
    return CaseResult(name, ok, message, tuple(render(kind, expected)),
                      tuple(shown or ["(no results)"]), actual_label=label)


def _ranked_message(exp: Sequence[Mapping[str, Any]], act: Sequence[Mapping[str, Any]],
                    tolerance: float) -> str:
    keys_e = [(e["doc_id"], e["chunk_index"]) for e in exp]
    keys_a = [(a["doc_id"], a["chunk_index"]) for a in act]
    if keys_e != keys_a:
        return "different results or order"
    return f"scores differ by more than {tolerance:g}"


def compare_output(name: str, kind: str, expected: Mapping[str, Any] | None,
                   actual: Mapping[str, Any], tolerance: float,
                   label: str = "actual") -> CaseResult:
    """Compare one case's actual output with its golden; a missing golden is a failure."""
    if expected is None:
        return CaseResult(name, False, "no golden for this case: write one on purpose with "
                          "`ragd conformance update`", (), tuple(render(kind, actual)),
                          actual_label=label)
    if kind in ("fusion", "retrieval"):
        return _ranked(name, kind, expected, actual, tolerance, label)
    ok = _json(expected) == _json(actual)
    exp_lines, act_lines = render(kind, expected), render(kind, actual)
    message = "" if ok else ("differs in a field the diff does not show"
                             if exp_lines == act_lines else "different chunks")
    return CaseResult(name, ok, message, tuple(exp_lines), tuple(act_lines), actual_label=label)
