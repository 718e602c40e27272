"""The OpenAI-compatible chat client: JSON answers with timeouts, retries and a schema."""

from __future__ import annotations

import os

from ..errors import LLMError, LLMInvalidOutputError, LLMResponseError, LLMUnavailableError
from .client import ChatClient

MODEL_ENV = "RAGD_LLM_MODEL"
DEFAULT_MODEL = "default"


def make_client(url: str | None, model: str | None) -> ChatClient | None:
    """A client for ``url``, or None when ``url`` is None, empty or ``"none"``.

    ``model`` defaults to ``$RAGD_LLM_MODEL``, else ``"default"`` (a name a single-model
    local server such as llama.cpp accepts).
    """
    if url is None or not url.strip() or url.strip().lower() == "none":
        return None
    name = (model or "").strip() or os.environ.get(MODEL_ENV, "").strip() or DEFAULT_MODEL
    return ChatClient(url.strip(), name)


__all__ = ["ChatClient", "DEFAULT_MODEL", "LLMError", "LLMInvalidOutputError",
           "LLMResponseError", "LLMUnavailableError", "MODEL_ENV", "make_client"]
