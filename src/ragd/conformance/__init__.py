"""The conformance suite: golden cases that pin the canonical spec's behaviour (spec §5).

A versioned suite (``suites/v<spec>``, also reachable as ``conformance/`` at the
repository root) holds a fixed corpus, a fixed vocabulary for the toy embedder,
chunking, fusion and retrieval cases, and their goldens. ``run_suite`` checks
any backend against them and checks deterministic ingest; ``update_goldens``
rewrites the goldens, and only when asked to.
"""

from .compare import CaseResult
from .runner import GoldenChange, RunReport, run_suite, update_goldens
from .suite import SPEC_VERSION, Suite, default_suite_dir, load_suite, spec_compatible

__all__ = ["CaseResult", "GoldenChange", "RunReport", "SPEC_VERSION", "Suite",
           "default_suite_dir", "load_suite", "run_suite", "spec_compatible", "update_goldens"]
