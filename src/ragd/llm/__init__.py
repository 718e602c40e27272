"""The OpenAI-compatible chat client: JSON answers with timeouts, retries and a schema."""

from __future__ import annotations

import os

from ..errors import LLMError, LLMInvalidOutputError, LLMResponseError, LLMUnavailableError
from .client import ANY_MODEL, ChatClient

MODEL_ENV = "RAGD_LLM_MODEL"
TIMEOUT_ENV = "RAGD_LLM_TIMEOUT"
RETRIES_ENV = "RAGD_LLM_RETRIES"
DEFAULT_MODEL = ANY_MODEL


def make_client(url: str | None, model: str | None) -> ChatClient | None:
    """A client for ``url``, or None when ``url`` is None, empty or ``"none"``.

    ``model`` defaults to ``$RAGD_LLM_MODEL``, else ``"default"`` (a name a single-model
    local server such as llama.cpp accepts; any model that answers is then taken). A
    named model must be the one that answers. ``$RAGD_LLM_TIMEOUT`` bounds each request
    in seconds (default 30) and ``$RAGD_LLM_RETRIES`` is how often a connection error,
    timeout, 429 or 5xx is retried (default 3, backoff 0.5 s doubling).
    """
    if url is None or not url.strip() or url.strip().lower() == "none":
        return None
    name = (model or "").strip() or os.environ.get(MODEL_ENV, "").strip() or DEFAULT_MODEL
    options: dict = {}
    if os.environ.get(TIMEOUT_ENV, "").strip():
        options["timeout"] = os.environ[TIMEOUT_ENV].strip()
    if os.environ.get(RETRIES_ENV, "").strip():
        options["max_retries"] = os.environ[RETRIES_ENV].strip()
    return ChatClient(url.strip(), name, **options)


__all__ = ["ANY_MODEL", "ChatClient", "DEFAULT_MODEL", "RETRIES_ENV", "TIMEOUT_ENV", "LLMError", "LLMInvalidOutputError",
           "LLMResponseError", "LLMUnavailableError", "MODEL_ENV", "make_client"]
