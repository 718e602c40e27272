"""Gates: parsing (usage errors before any work) and checking over {mode: {metric: value}}."""

from __future__ import annotations

import pytest

from ragd.errors import UsageError
from ragd.evaluation.gates import Gate, check_gates, failed, parse_gate, parse_gates

MODES = ("lexical", "hybrid-rrf")
METRICS = ("ndcg@10", "recall@100", "mrr@10", "p50_ms", "p95_ms")


@pytest.mark.parametrize("text, expected", [
    ("hybrid-rrf:ndcg@10>=0.70", Gate("hybrid-rrf", "ndcg@10", ">=", 0.70)),
    (" lexical : recall@100 > .9 ", Gate("lexical", "recall@100", ">", 0.9)),
    ("hybrid-rrf:p95_ms<=250", Gate("hybrid-rrf", "p95_ms", "<=", 250.0)),
    ("lexical:MRR@10<1e0", Gate("lexical", "mrr@10", "<", 1.0)),
])
def test_parse(text, expected):
    assert parse_gate(text, MODES, METRICS) == expected


@pytest.mark.parametrize("text, needle", [
    ("hybrid-rrf ndcg@10>=0.7", "malformed"),
    ("hybrid-rrf:ndcg@10=0.7", "malformed"),
    ("hybrid-rrf:ndcg@10>=", "malformed"),
    ("hybrid-rrf:ndcg@10>=abc", "malformed"),
    (":ndcg@10>=0.7", "malformed"),
    ("vector:ndcg@10>=0.7", "mode 'vector'"),
    ("lexical:ndcg@5>=0.7", "unknown metric 'ndcg@5'"),
])
def test_parse_errors_are_usage_errors(text, needle):
    with pytest.raises(UsageError, match=needle) as info:
        parse_gate(text, MODES, METRICS)
    assert info.value.exit_code == 2


def test_check_every_operator_and_missing_values():
    measured = {"lexical": {"ndcg@10": 0.65, "p95_ms": 12.0}, "hybrid-rrf": {"ndcg@10": 0.72}}
    gates = parse_gates(["hybrid-rrf:ndcg@10>=0.72", "lexical:ndcg@10>0.65",
                         "lexical:p95_ms<12.5", "lexical:p95_ms<=11", "lexical:recall@100>0"])
    results = check_gates(gates, measured)
    assert [r.passed for r in results] == [True, False, True, False, False]
    assert results[0].describe() == "PASS hybrid-rrf:ndcg@10>=0.72 (measured 0.7200)"
    assert results[4].value is None and "not measured" in results[4].describe()
    assert [str(r.gate) for r in failed(results)] == [
        "lexical:ndcg@10>0.65", "lexical:p95_ms<=11", "lexical:recall@100>0"]


def test_generic_over_any_names():
    """Nothing is specific to retrieval: QA golden sets will gate their own metrics."""
    gate = parse_gate("golden-ear:refusal_accuracy>=0.95")
    assert check_gates([gate], {"golden-ear": {"refusal_accuracy": 0.97}})[0].passed
