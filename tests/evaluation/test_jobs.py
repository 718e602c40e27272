"""The evaluation logic behind ``ragd eval qa``: gates from arguments and the profile's
named set, alerts of failed gates, the failed-gates line."""

from __future__ import annotations

import pytest

from ragd.errors import UsageError
from ragd.evaluation.gates import check_gates, failed
from ragd.evaluation.jobs import alerts, failed_gates_line, qa_gates

EVALUATION = {"gates": {"baseline": ["hallucination==0", "pass>=0.9"], "empty": []},
              "alerts": {"hallucination": "an answer said what no source says"}}


def test_qa_gates_add_the_named_set_to_the_arguments():
    gates = qa_gates(["answered>=0.5"], EVALUATION, "baseline", "p")
    assert [str(g) for g in gates] == ["qa:answered>=0.5", "qa:hallucination==0", "qa:pass>=0.9"]
    assert [str(g) for g in qa_gates(["pass>=1"], EVALUATION, None, "p")] == ["qa:pass>=1"]


def test_an_unknown_gate_set_names_the_sets_the_profile_has():
    with pytest.raises(UsageError, match=r"profile 'p' has no gate set 'nope'; "
                                         r"it has: baseline, empty$"):
        qa_gates([], EVALUATION, "nope", "p")
    with pytest.raises(UsageError, match=r"it has: none$"):
        qa_gates([], {"gates": {}}, "nope", "p")


def test_alerts_and_the_failed_line_name_only_failed_gates():
    gates = qa_gates(["answered>=0.5"], EVALUATION, "baseline", "p")
    results = check_gates(gates, {"qa": {"answered": 0.25, "hallucination": 0.1, "pass": 0.95}})
    bad = failed(results)
    assert [str(g.gate) for g in bad] == ["qa:answered>=0.5", "qa:hallucination==0"]
    assert alerts(EVALUATION, bad) == ["an answer said what no source says"]
    assert failed_gates_line(bad) == ("2 gates failed: qa:answered>=0.5 (measured 0.2500); "
                                      "qa:hallucination==0 (measured 0.1000)")
    assert failed_gates_line(bad[:1]) == "1 gate failed: qa:answered>=0.5 (measured 0.2500)"
