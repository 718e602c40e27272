"""Evidence: validators that accept or reject retrieved chunks (with reasons), and the
assembly of the accepted ones into a bounded, ordered, citable context."""

from . import validators as _validators  # noqa: F401  (registers the generic validators)
from .base import VALIDATORS, Context, Outcome, Step, run_validators
from .context import Assembled, assemble

__all__ = ["VALIDATORS", "Assembled", "Context", "Outcome", "Step", "assemble",
           "run_validators"]
