"""The OpenAI-compatible chat client: JSON answers with timeouts, retries and a schema."""

from __future__ import annotations

import logging
import os
import sys

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


_STDERR_HANDLER: logging.Handler | None = None


def warnings_to_stderr() -> None:
    """Print the LLM path's warnings on stderr ("ragd: ..."): why a model call failed or
    was retried, next to the refusal the command prints. For command-line use; once."""
    global _STDERR_HANDLER
    if _STDERR_HANDLER is not None:
        return
    _STDERR_HANDLER = logging.StreamHandler(sys.stderr)
    _STDERR_HANDLER.setFormatter(logging.Formatter("ragd: %(message)s"))
    _STDERR_HANDLER.setLevel(logging.WARNING)
    for name in ("ragd.llm", "ragd.answer.llm_path"):
        logger = logging.getLogger(name)
        logger.addHandler(_STDERR_HANDLER)
        if logger.level == logging.NOTSET or logger.level > logging.WARNING:
            logger.setLevel(logging.WARNING)


__all__ = ["ANY_MODEL", "ChatClient", "DEFAULT_MODEL", "LLMError", "LLMInvalidOutputError",
           "LLMResponseError", "LLMUnavailableError", "MODEL_ENV", "RETRIES_ENV", "TIMEOUT_ENV",
           "make_client", "warnings_to_stderr"]
