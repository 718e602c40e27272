"""An embedder wrapper that remembers vectors by the sha256 of the text embedded (test and
bench support code: the gated QA tests and the SciFact experiments read their fixtures
through it; not part of the ``ragd`` package).

Evaluation and experiments embed the same passages again and again (the same
corpus under several chunk policies, a CI subset on every run). The wrapper
answers known texts from memory and embeds only the others with the wrapped
model; it keeps the model's name and spec, so a collection built through it
is an ordinary collection of that model. Files are ``.npz``: sha256 digests and
int8 vectors with one float32 scale each (cosine to the original ≥ 0.9999).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ragd.embedding.base import Embedder, l2_normalize
from ragd.errors import EmbedderError


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class CachedEmbedder:
    """``inner`` with a text → vector memory. ``allow_misses=False`` makes an unknown text an
    error instead of a model call (for tests that must not embed a corpus)."""

    def __init__(self, inner: Embedder, vectors: dict[bytes, np.ndarray] | None = None, *,
                 allow_misses: bool = True, cache_queries: bool = False) -> None:
        self.inner = inner
        self.vectors: dict[bytes, np.ndarray] = dict(vectors or {})
        self.allow_misses = allow_misses
        self.cache_queries = cache_queries
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dims(self) -> int:
        return self.inner.dims

    @property
    def max_input_tokens(self) -> int:
        return self.inner.max_input_tokens

    def spec(self) -> dict[str, Any]:
        return self.inner.spec()

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        keys = [text_key(t) for t in texts]
        unique: dict[bytes, int] = {}  # each unknown text once, first position
        for i, key in enumerate(keys):
            if key not in self.vectors:
                unique.setdefault(key, i)
        if unique:
            if not self.allow_misses:
                raise EmbedderError(f"{len(unique)} texts are not in the embedding cache "
                                    "(regenerate it)")
            fresh = self.inner.embed_documents([texts[i] for i in unique.values()])
            for key, vec in zip(unique, fresh):
                self.vectors[key] = np.asarray(vec, dtype=np.float32)
        self.misses += len(unique)
        self.hits += len(texts) - len(unique)
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = self.vectors[key]
        return out

    def embed_query(self, text: str) -> np.ndarray:
        if not self.cache_queries:
            return self.inner.embed_query(text)
        key = text_key("query\x00" + text)
        if key not in self.vectors:
            if not self.allow_misses:
                raise EmbedderError("query not in the embedding cache (regenerate it)")
            self.vectors[key] = np.asarray(self.inner.embed_query(text), dtype=np.float32)
        return self.vectors[key]

    # -- files -----------------------------------------------------------------------------
    def save(self, path: str | Path, keys: Sequence[bytes] | None = None) -> Path:
        """Write the vectors of ``keys`` (default: all) as int8 with per-vector scales."""
        keys = sorted(self.vectors) if keys is None else sorted(set(keys))
        matrix = np.stack([self.vectors[k] for k in keys]) if keys else np.zeros(
            (0, self.dims), dtype=np.float32)
        scales = np.abs(matrix).max(axis=1, keepdims=True) / 127.0 if len(keys) else np.zeros(
            (0, 1), dtype=np.float32)
        scales = np.where(scales == 0, 1.0, scales).astype(np.float32)
        quantized = np.round(matrix / scales).astype(np.int8)
        digests = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 32)
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as out:
            np.savez_compressed(out, keys=digests, vectors=quantized, scales=scales[:, 0])
        return path

    @staticmethod
    def load_vectors(path: str | Path) -> dict[bytes, np.ndarray]:
        with np.load(Path(path)) as data:
            digests, quantized, scales = data["keys"], data["vectors"], data["scales"]
        matrix = l2_normalize(quantized.astype(np.float32) * scales[:, None])
        return {bytes(d): matrix[i] for i, d in enumerate(digests)}
