"""Evidence: validators that accept or reject retrieved chunks (with reasons), and the
assembly of the accepted ones into a bounded, ordered, citable context."""

from . import validators as _validators  # noqa: F401  (registers the generic validators)
from .base import VALIDATORS, Context, Outcome, Step, run_validators
from .blocks import FORMATS
from .context import ORDER_KEYS, Assembled, assemble, order

__all__ = ["FORMATS", "ORDER_KEYS", "VALIDATORS", "Assembled", "Context", "Outcome", "Step",
           "assemble", "order", "run_validators"]
