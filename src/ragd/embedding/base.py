"""The Embedder protocol and the registry that builds embedders by name.

A collection stores its embedder's ``spec()``; reopening the collection builds
the same embedder from it, and opening it with a different one is an error.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import ConfigError
from ..registry import Registry


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """Model identity recorded with a collection (e.g. ``all-MiniLM-L6-v2``)."""
        ...

    @property
    def dims(self) -> int:
        """Length of every vector."""
        ...

    @property
    def max_input_tokens(self) -> int:
        """Tokens of a text the model reads (``count_tokens`` units); the rest is cut off."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for passages: float32 array of shape (len(texts), dims)."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Vector for one query: float32 array of shape (dims,)."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text under this model's tokenizer (no special tokens)."""
        ...

    def spec(self) -> dict[str, Any]:
        """JSON-ready settings from which :func:`make_embedder` rebuilds this embedder."""
        ...


EMBEDDERS: Registry[Callable[..., Embedder]] = Registry("embedder")
"""Embedder factories by kind (``minilm``, ``openai``, ``toy``)."""


def register_embedder(kind: str, factory: Callable[..., Embedder]) -> None:
    """Make ``make_embedder({"kind": kind, ...})`` call ``factory(**rest)``."""
    EMBEDDERS.register(kind, factory, replace=True)


def embedder_kinds() -> list[str]:
    return list(EMBEDDERS.names())


def make_embedder(spec: str | dict[str, Any]) -> Embedder:
    """Build an embedder from a name (``"minilm"``), a spec dict (``{"kind": "toy", ...}``)
    or that dict as JSON text (how ``RAGD_EMBEDDER`` and ``--embedder`` can carry settings)."""
    if isinstance(spec, str):
        text = spec.strip()
        if text.startswith("{"):
            try:
                spec = json.loads(text)
            except ValueError as exc:
                raise ConfigError(f"embedder settings are not valid JSON: {exc}") from exc
            if not isinstance(spec, dict):
                raise ConfigError("embedder settings must be a JSON object")
        else:
            spec = {"kind": text}
    params = dict(spec)
    kind = params.pop("kind", None)
    if not isinstance(kind, str) or kind not in EMBEDDERS:
        raise ConfigError(
            f"unknown embedder {kind!r}; choose one of {', '.join(embedder_kinds())}")
    try:
        return EMBEDDERS.get(kind)(**params)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"bad settings for embedder {kind!r}: {exc}") from exc


def l2_normalize(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero. Returns float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32, copy=False)
