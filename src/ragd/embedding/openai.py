"""Embedder for any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

Stdlib only (``urllib.request`` + ``json``): no client library, no new
dependency. Texts go out in batches of ``batch_size``; transient failures
(connection errors, timeouts, HTTP 429 and 5xx) are retried with doubling
backoff, other HTTP errors fail at once. Vectors come back L2-normalised
float32, in input order whatever order the server lists them in.

The API key is read from the environment (``api_key_env``) when the embedder
is built and is never written to ``spec()``, ``repr()``, errors or logs.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import logging
import math
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, NoReturn, Sequence

import numpy as np

from ..errors import ConfigError, EmbedderError
from .base import l2_normalize, register_embedder
from .tokenizer import count_tokens

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_ENVS = ("RAGD_OPENAI_BASE_URL", "OPENAI_BASE_URL")
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
RETRY_AFTER_CAP = 5.0
"""Longest wait (seconds) a server's ``Retry-After`` header can ask for."""
_MESSAGE_LIMIT = 300


class _Transient(Exception):
    """A failure worth retrying; ``retry_after`` is the server's hint in seconds, if any."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def default_base_url() -> str:
    """``RAGD_OPENAI_BASE_URL``, else ``OPENAI_BASE_URL``, else the OpenAI API."""
    for name in BASE_URL_ENVS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return DEFAULT_BASE_URL


def is_local_url(url: str) -> bool:
    """True when ``url`` points at this machine (a local server may need no key)."""
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_base_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            "openai embedder base_url must be an http(s) URL like http://host:port/v1, "
            f"got {url!r}")
    return url.rstrip("/")


def _positive(name: str, value: Any, kind: type, minimum: float) -> Any:
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"openai embedder {name} must be a number, got {value!r}") from None
    if not number >= minimum:  # also rejects NaN
        raise ConfigError(f"openai embedder {name} must be >= {minimum}, got {value!r}")
    return number


def _retry_after(headers: Any) -> float | None:
    """A numeric ``Retry-After`` header in seconds, capped; HTTP dates are ignored."""
    value = headers.get("Retry-After") if headers is not None else None
    if value is None:
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, RETRY_AFTER_CAP)


def _server_message(body: bytes) -> str:
    """The ``error.message`` of an OpenAI-style error body, else the body text, shortened."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        payload = json.loads(text)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error", payload.get("message"))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error:
            text = str(error)
    if len(text) > _MESSAGE_LIMIT:
        text = text[:_MESSAGE_LIMIT] + "..."
    return text or "(empty body)"


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
        self.base_url = _check_base_url(base_url or default_base_url())
        self._dims = None if dims is None else _positive("dims", dims, int, 1)
        self.batch_size = _positive("batch_size", batch_size, int, 1)
        self.timeout = _positive("timeout", timeout, float, 1e-3)
        self.max_retries = _positive("max_retries", max_retries, int, 0)
        self.backoff = _positive("backoff", backoff, float, 0.0)
        self.api_key_env = str(api_key_env)
        self._sleep = sleep
        self._lock = threading.Lock()
        self._api_key = os.environ.get(self.api_key_env, "").strip() or None
        if self._api_key is None and not is_local_url(self.base_url):
            raise ConfigError(
                f"openai embedder needs an API key for {self.base_url}: "
                f"set the environment variable {self.api_key_env}")

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
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                return self._post(data)
            except _Transient as failure:
                last = str(failure)
                if attempt == attempts:
                    break
                delay = failure.retry_after
                if delay is None:
                    delay = self.backoff * (2 ** (attempt - 1))
                log.warning("openai embedder: attempt %d/%d failed (%s); retrying in %.2fs",
                            attempt, attempts, self._redact(last), delay)
                self._sleep(delay)
        raise EmbedderError(self._redact(
            f"openai embedder: {self.url} failed after {attempts} attempt"
            f"{'s' if attempts != 1 else ''}; last failure: {last}"))

    @property
    def url(self) -> str:
        return f"{self.base_url}/embeddings"

    def _post(self, data: bytes) -> bytes:
        """One request: the body on success, :class:`_Transient` or :class:`EmbedderError`."""
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": "ragd"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            self._raise_http(exc)
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            # URLError wraps refused connections and connect timeouts; a bare TimeoutError
            # or ConnectionError (OSError) or IncompleteRead comes from a stalled or cut read.
            reason = getattr(exc, "reason", exc)
            raise _Transient(f"{type(reason).__name__}: {reason}") from None

    def _raise_http(self, exc: urllib.error.HTTPError) -> NoReturn:
        try:
            message = _server_message(exc.read())
        except (OSError, ValueError):
            message = "(unreadable body)"
        failure = f"HTTP {exc.code}: {message}"
        if exc.code == 429 or exc.code >= 500:
            raise _Transient(failure, _retry_after(exc.headers)) from None
        hint = (f" (check the key in {self.api_key_env})" if exc.code in (401, 403) else "")
        raise EmbedderError(self._redact(
            f"openai embedder: {self.url} answered {failure}{hint}")) from None

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
        return message.replace(self._api_key, "***") if self._api_key else message


register_embedder("openai", OpenAIEmbedder)
