"""Deterministic bag-of-words embedder over a fixed vocabulary (conformance cases, tests).

Each dimension counts one vocabulary word in the lower-cased text; vectors are
L2-normalised, so cosine similarity is exact rational arithmetic on counts.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError
from ..ids import sha256_hex
from .base import l2_normalize, register_embedder

_WORD = re.compile(r"\w+", re.UNICODE)


class ToyEmbedder:
    """Bag of words over ``vocabulary``; words outside it are ignored."""

    def __init__(self, vocabulary: Sequence[str]) -> None:
        words = [str(w).lower() for w in vocabulary]
        if not words:
            raise ConfigError("toy embedder needs a non-empty vocabulary")
        if len(set(words)) != len(words):
            raise ConfigError("toy embedder vocabulary has duplicate words")
        self.vocabulary = tuple(words)
        self._index = {w: i for i, w in enumerate(words)}
        self.dims = len(words)
        self.max_input_tokens = 1_000_000  # bag of words: no input limit
        self.name = f"toy-bow-{sha256_hex(chr(31).join(words))[:12]}"

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dims, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            i = self._index.get(word)
            if i is not None:
                vec[i] += 1.0
        return vec

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return l2_normalize(np.stack([self._vector(t) for t in texts]))

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalize(self._vector(text)[None, :])[0]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(_WORD.findall(t)) for t in texts]

    def spec(self) -> dict[str, Any]:
        return {"kind": "toy", "vocabulary": list(self.vocabulary)}


register_embedder("toy", ToyEmbedder)
