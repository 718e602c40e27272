"""Embedder for any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

Stdlib only, through :mod:`ragd.openai_http` (shared with the chat client): no
client library, no new dependency. Texts go out in batches of ``batch_size``;
``timeout`` bounds each request as a whole; transient failures (connection
errors, timeouts, HTTP 429 and 5xx) are retried with doubling backoff, other
HTTP errors fail at once. Vectors come back L2-normalised
float32, in input order whatever order the server lists them in.

The API key is read from the environment (``api_key_env``) when the embedder
is built and is never written to ``spec()``, ``repr()``, errors or logs.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import ConfigError, EmbedderError
from ..openai_http import (RETRY_AFTER_CAP, RequestFailed, attempts_text, check_base_url,
                           is_local_url, positive, read_api_key, redact, request, with_retries)
from .base import l2_normalize, register_embedder
from .tokenizer import count_tokens

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENVS = ("RAGD_OPENAI_BASE_URL", "OPENAI_BASE_URL")
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
_WHO = "openai embedder"

__all__ = ["DEFAULT_BASE_URL", "OpenAIEmbedder", "RETRY_AFTER_CAP", "default_base_url",
           "is_local_url"]


def default_base_url() -> str:
    """``RAGD_OPENAI_BASE_URL``, else ``OPENAI_BASE_URL``, else the OpenAI API."""
    for name in BASE_URL_ENVS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return DEFAULT_BASE_URL


def _positive(name: str, value: Any, kind: type, minimum: float) -> Any:
    return positive(_WHO, name, value, kind, minimum)


class OpenAIEmbedder:
    """Vectors from an OpenAI-compatible embeddings endpoint.

    ``dims`` is either given (and checked against every response) or learned
    from the first response and then fixed; reading ``dims`` before any call
    sends one short probe request so the collection can record it. (On Python
    3.11 ``isinstance(e, Embedder)`` reads ``dims`` too, so it may probe, and
    raises :class:`EmbedderError` if the endpoint is down.) A spec from
    :meth:`spec` always carries ``dims``, so a reopened collection never probes.
    """

    def __init__(self, model: str | None = None, *, base_url: str | None = None,
                 dims: int | None = None, batch_size: int = 64, timeout: float = 30.0,
                 max_retries: int = 3, backoff: float = 0.5,
                 api_key_env: str = DEFAULT_KEY_ENV,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not model or not str(model).strip():
            raise ConfigError(
                "openai embedder needs a model name (e.g. model = \"text-embedding-3-small\")")
        self.model = str(model)
        self.name = f"openai:{self.model}"
        self.max_input_tokens = 8191  # the text-embedding-3 and ada-002 input limit
        self.base_url = check_base_url(base_url or default_base_url(), _WHO)
        self._dims = None if dims is None else _positive("dims", dims, int, 1)
        self.batch_size = _positive("batch_size", batch_size, int, 1)
        self.timeout = _positive("timeout", timeout, float, 1e-3)
        self.max_retries = _positive("max_retries", max_retries, int, 0)
        self.backoff = _positive("backoff", backoff, float, 0.0)
        self.api_key_env = str(api_key_env)
        self._sleep = sleep
        self._lock = threading.Lock()
        self._api_key = read_api_key(self.api_key_env, self.base_url, _WHO)

    def __repr__(self) -> str:
        return (f"OpenAIEmbedder(model={self.model!r}, base_url={self.base_url!r}, "
                f"dims={self._dims})")

    # -- protocol ---------------------------------------------------------------------------

    @property
    def dims(self) -> int:
        """Vector length; probes the endpoint once if it was not given and not yet seen."""
        if self._dims is None:
            self._embed_batch([" "])
        assert self._dims is not None
        return self._dims

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        batches = [self._embed_batch(texts[i:i + self.batch_size])
                   for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(batches, axis=0)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_batch([text])[0]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """WordPiece counts from the vendored tokenizer: an approximation of the remote
        model's own tokenizer, good enough for sizing chunks."""
        return count_tokens(texts)

    def spec(self) -> dict[str, Any]:
        return {"kind": "openai", "model": self.model, "base_url": self.base_url,
                "dims": self.dims}

    # -- one batch --------------------------------------------------------------------------

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        # The OpenAI API rejects empty strings with HTTP 400; a single space embeds as
        # "nothing" without failing the whole batch.
        payload = {"model": self.model, "input": [t if t else " " for t in texts],
                   "encoding_format": "float"}
        body = self._post_with_retries(json.dumps(payload).encode("utf-8"))
        return l2_normalize(self._parse(body, len(texts)))

    def _post_with_retries(self, data: bytes) -> bytes:
        try:
            return with_retries(lambda: request(self.url, data, api_key=self._api_key,
                                                timeout=self.timeout),
                                max_retries=self.max_retries, backoff=self.backoff,
                                sleep=self._sleep, on_retry=self._log_retry)
        except RequestFailed as failure:
            if failure.transient:
                raise EmbedderError(self._redact(
                    f"openai embedder: {self.url} failed after {attempts_text(failure)}; "
                    f"last failure: {failure}")) from None
            hint = (f" (check the key in {self.api_key_env})"
                    if failure.status in (401, 403) else "")
            raise EmbedderError(self._redact(
                f"openai embedder: {self.url} answered {failure}{hint}")) from None

    def _log_retry(self, attempt: int, attempts: int, failure: RequestFailed,
                   delay: float) -> None:
        log.warning("openai embedder: attempt %d/%d failed (%s); retrying in %.2fs",
                    attempt, attempts, self._redact(str(failure)), delay)

    @property
    def url(self) -> str:
        return f"{self.base_url}/embeddings"

    # -- response ---------------------------------------------------------------------------

    def _parse(self, body: bytes, expected: int) -> np.ndarray:
        """The embeddings of a response body, in input order, checked for count and numbers."""
        try:
            payload = json.loads(body)
        except ValueError:
            raise self._bad(f"the body is not JSON: {body[:80]!r}") from None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise self._bad("it has no 'data' list")
        if len(data) != expected:
            raise self._bad(f"it has {len(data)} embeddings for {expected} inputs")
        rows: list[Any] = [None] * expected
        for item in data:
            index = item.get("index") if isinstance(item, dict) else None
            if type(index) is not int or not 0 <= index < expected or rows[index] is not None:
                raise self._bad(f"an item has a missing, out-of-range or repeated index {index!r}")
            rows[index] = item.get("embedding")
        return self._check_matrix(rows)

    def _check_matrix(self, rows: list[Any]) -> np.ndarray:
        if not all(isinstance(r, list) and r for r in rows):
            raise self._bad("an 'embedding' is missing, empty or not a list")
        lengths = {len(r) for r in rows}
        if len(lengths) != 1:
            raise self._bad(f"its embeddings have different lengths {sorted(lengths)}")
        matrix = np.array(rows)
        if (matrix.ndim != 2 or matrix.dtype.kind not in "iuf"
                or not np.isfinite(matrix).all()):
            raise self._bad("an embedding holds something other than finite numbers")
        self._settle_dims(matrix.shape[1])
        return matrix.astype(np.float32)

    def _settle_dims(self, length: int) -> None:
        """Learn the dimension from the first response; any later change is an error."""
        with self._lock:
            if self._dims is None:
                self._dims = length
            elif length != self._dims:
                raise EmbedderError(
                    f"openai embedder: model {self.model!r} at {self.base_url} returned vectors "
                    f"of length {length}, expected {self._dims}")

    def _bad(self, what: str) -> EmbedderError:
        return EmbedderError(self._redact(f"openai embedder: bad response from {self.url}: {what}"))

    def _redact(self, message: str) -> str:
        """The message with the API key blanked out (a server may echo it back)."""
        return redact(message, self._api_key)


register_embedder("openai", OpenAIEmbedder)
