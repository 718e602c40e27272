"""Quality gates: ``MODE:METRIC OP THRESHOLD`` checked over ``{mode: {metric: value}}``.

Generic on purpose: the BEIR evaluation, the CI regression gate and (later) the
QA golden sets all hand a nested dict of measured values to :func:`check_gates`.
A malformed gate, or one naming a mode or metric the caller does not know, is a
:class:`~ragd.errors.UsageError` raised by :func:`parse_gate` before any work.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import Callable, Collection, Iterable, Mapping

from ..errors import UsageError

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, "==": operator.eq, ">": operator.gt, "<": operator.lt}

_GATE = re.compile(r"^\s*(?:(?P<mode>[^:\s]+)\s*:\s*)?(?P<metric>[A-Za-z0-9_@.\-]+?)\s*"
                   r"(?P<op>>=|<=|==|>|<)\s*(?P<value>[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)\s*$")


@dataclass(frozen=True)
class Gate:
    mode: str
    metric: str
    op: str
    threshold: float

    def __str__(self) -> str:
        return f"{self.mode}:{self.metric}{self.op}{self.threshold:g}"


@dataclass(frozen=True)
class GateResult:
    gate: Gate
    value: float | None      # None: the mode or metric was not measured
    passed: bool

    def describe(self) -> str:
        measured = "not measured" if self.value is None else f"measured {self.value:.4f}"
        return f"{'PASS' if self.passed else 'FAIL'} {self.gate} ({measured})"


def parse_gate(text: str, modes: Collection[str] | None = None,
               metrics: Collection[str] | None = None, default_mode: str | None = None
               ) -> Gate:
    """``"hybrid-rrf:ndcg@10>=0.70"`` → Gate; UsageError naming what is wrong.

    ``modes``/``metrics``, when given, are the names the caller will measure; with
    ``default_mode`` the ``MODE:`` part may be left out (``"hallucination==0"``).
    """
    match = _GATE.match(text or "")
    if not match:
        raise UsageError(f"malformed gate {text!r}: expected MODE:METRIC OP NUMBER with OP one "
                         f"of {', '.join(OPERATORS)}, e.g. 'hybrid-rrf:ndcg@10>=0.70'")
    mode, metric = match["mode"] or default_mode, match["metric"].lower()
    if mode is None:
        raise UsageError(f"malformed gate {text!r}: expected MODE:METRIC OP NUMBER, e.g. "
                         "'hybrid-rrf:ndcg@10>=0.70'")
    if modes is not None and mode not in modes:
        raise UsageError(f"gate {text!r} names mode {mode!r}, which is not measured; "
                         f"measured modes: {', '.join(modes)}")
    if metrics is not None and metric not in metrics:
        raise UsageError(f"gate {text!r} names unknown metric {metric!r}; "
                         f"choose one of {', '.join(metrics)}")
    threshold = float(match["value"])
    if not math.isfinite(threshold):
        raise UsageError(f"gate {text!r}: the threshold must be a finite number")
    return Gate(mode, metric, match["op"], threshold)


def parse_gates(texts: Iterable[str], modes: Collection[str] | None = None,
                metrics: Collection[str] | None = None, default_mode: str | None = None
                ) -> list[Gate]:
    return [parse_gate(t, modes, metrics, default_mode) for t in texts]


def check_gates(gates: Iterable[Gate],
                measured: Mapping[str, Mapping[str, float]]) -> list[GateResult]:
    """Each gate's verdict; a gate whose value was not measured fails."""
    results = []
    for gate in gates:
        value = measured.get(gate.mode, {}).get(gate.metric)
        ok = value is not None and math.isfinite(value) and OPERATORS[gate.op](value,
                                                                                 gate.threshold)
        results.append(GateResult(gate, None if value is None else float(value), bool(ok)))
    return results


def failed(results: Iterable[GateResult]) -> list[GateResult]:
    return [r for r in results if not r.passed]
