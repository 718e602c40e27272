"""Measurement: BEIR datasets, IR metrics (pytrec_eval), gates, reports.

Modules: ``beir`` (reading a BEIR folder), ``cache`` (the cached evaluation store),
``modes`` (eval modes → ragd plans, extensible), ``metrics`` (pytrec_eval wrappers),
``runner`` (queries, latency, run files, JSON summary), ``gates`` (generic thresholds),
``report`` (self-contained HTML), ``jobs`` (what ``ragd eval`` runs, without printing).
"""

from .gates import Gate, GateResult, check_gates, parse_gate, parse_gates
from .modes import EvalMode, mode_names, register_mode

__all__ = ["EvalMode", "Gate", "GateResult", "check_gates", "mode_names", "parse_gate",
           "parse_gates", "register_mode"]
