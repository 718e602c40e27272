"""The QA report renders a run's summary: counts that add up, every question escaped, the
same bytes for the same run."""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from ragd.evaluation.qa import METRICS
from ragd.evaluation.qa_report import latency_bins, render_qa_html


def summary(results):
    return {"golden": "/x/set.jsonl", "profile": "p", "path": "extractive",
            "metrics": {"pass": 0.5, "hallucination": 0.0, "p95_ms": 12.0},
            "gates": [{"gate": "qa:pass>=0.95", "value": 0.5, "passed": False}],
            "results": results}


def row(i, expected_not_found, status, passed, question="q?", reason=None):
    return {"id": f"q{i}", "question": question, "expected_not_found": expected_not_found,
            "status": status, "refusal_reason": reason, "passed": passed,
            "why": [] if passed else ["refused (undetermined)"], "ms": 10.0 * i,
            "answer": "1. An answer. [a.md]"}


RESULTS = [row(1, False, "answered", True), row(2, False, "refused", False, reason="undetermined"),
           row(3, True, "refused", True, reason="low_relevance"),
           row(4, True, "refused", True, reason="low_relevance"),
           row(5, True, "answered", False, question="<script>alert(1)</script>")]


def test_outcome_matrix_reasons_gates_and_escaping():
    page = render_qa_html(summary(RESULTS), METRICS)
    matrix = re.search(r"should answer</td><td>(\d+)</td><td>(\d+)</td>.*?should refuse</td>"
                       r"<td>(\d+)</td><td>(\d+)</td>", page, re.S)
    assert matrix.groups() == ("1", "1", "1", "2")
    assert "low_relevance</td><td>2</td>" in page and "undetermined</td><td>1</td>" in page
    assert "<td class='fail'>FAIL</td>" in page
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<tr class='failed'>") == 2
    assert "2 of 5 questions failed" in page


def test_compare_adds_before_and_change():
    old = summary(RESULTS)
    old["metrics"] = {"pass": 0.25, "hallucination": 0.0, "p95_ms": 20.0}
    page = render_qa_html(summary(RESULTS), METRICS, old)
    assert "<td class='l'>pass</td><td>0.500</td><td>0.250</td><td>+0.250</td>" in page
    assert "<td class='l'>p95_ms</td><td>12.0</td><td>20.0</td><td>-8.0</td>" in page


def test_same_run_same_bytes():
    assert render_qa_html(summary(RESULTS), METRICS) == render_qa_html(summary(RESULTS), METRICS)


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), max_size=200),
       st.integers(min_value=1, max_value=30))
def test_latency_bins_count_every_answer_once(ms, bins):
    out = latency_bins(ms, bins)
    assert sum(n for _, n in out) == len(ms)
    assert len(out) == (bins if ms else 0)
