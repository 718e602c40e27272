"""Embedders behind one protocol, built by name: ``minilm`` (default), ``openai``, ``toy``."""

from .base import Embedder, embedder_kinds, l2_normalize, make_embedder, register_embedder
from . import onnx as _onnx  # noqa: F401  (registers "minilm")
from . import openai as _openai  # noqa: F401
from . import toy as _toy  # noqa: F401  (registers "toy")
from . import bge as _bge  # noqa: F401  (registers "bge-small")

DEFAULT_EMBEDDER = "minilm"

__all__ = ["DEFAULT_EMBEDDER", "Embedder", "embedder_kinds", "l2_normalize", "make_embedder",
           "register_embedder"]
