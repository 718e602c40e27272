"""Answering: cited sentences from validated evidence, or a refusal (DESIGN §5b)."""

from .pipeline import REASONS, answer
from .types import (ANSWERED, REFUSED, Answer, Dropped, Evidence, Fact, Rejection, Sentence,
                    Trace)

__all__ = ["ANSWERED", "REASONS", "REFUSED", "Answer", "Dropped", "Evidence", "Fact",
           "Rejection", "Sentence", "Trace", "answer"]
