"""HTTP plumbing shared by the clients of OpenAI-compatible endpoints (embeddings, chat).

Stdlib only (``urllib.request`` + ``json``). One POST has a total deadline: every
read on the socket waits at most for what is left of ``timeout``, so a server
that stalls or trickles bytes cannot hold a request longer than that. Failures
come back as :class:`RequestFailed`; :func:`with_retries` retries the transient
ones (connection errors, timeouts, HTTP 429 and 5xx) with doubling backoff.
Callers turn the last failure into their own error type and :func:`redact` the
API key out of every message they build.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import json
import math
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, TypeVar

from .errors import ConfigError

RETRY_AFTER_CAP = 5.0
"""Longest wait (seconds) a server's ``Retry-After`` header can ask for."""
_MESSAGE_LIMIT = 300
_BODY_LIMIT = 4000

T = TypeVar("T")


class RequestFailed(Exception):
    """One failed request: ``status`` is the HTTP code (None for a network failure or
    timeout), ``message`` the server's error message, ``body`` its body text (shortened)."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "",
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.retry_after = retry_after
        self.attempts = 1

    @property
    def transient(self) -> bool:
        """Worth retrying: no answer at all, a timeout, HTTP 429 or 5xx."""
        return self.status is None or self.status == 429 or self.status >= 500


# -- configuration ---------------------------------------------------------------------------


def is_local_url(url: str) -> bool:
    """True when ``url`` points at this machine (a local server may need no key)."""
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str, who: str) -> str:
    """``url`` without a trailing slash; a :class:`ConfigError` unless it is http(s)."""
    parts = urllib.parse.urlsplit(str(url))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"{who} base_url must be an http(s) URL like http://host:port/v1, got {url!r}")
    return str(url).rstrip("/")


def read_api_key(env: str, base_url: str, who: str) -> str | None:
    """The key in ``$env``; a :class:`ConfigError` when it is unset for a non-local URL."""
    key = os.environ.get(env, "").strip() or None
    if key is None and not is_local_url(base_url):
        raise ConfigError(f"{who} needs an API key for {base_url}: "
                          f"set the environment variable {env}")
    return key


def positive(who: str, name: str, value: Any, kind: type, minimum: float) -> Any:
    """``kind(value)`` when it is at least ``minimum``, else a :class:`ConfigError`."""
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{who} {name} must be a number, got {value!r}") from None
    if not number >= minimum:  # also rejects NaN
        raise ConfigError(f"{who} {name} must be >= {minimum}, got {value!r}")
    return number


def redact(message: str, key: str | None) -> str:
    """``message`` with the API key blanked out (a server may echo it back)."""
    return message.replace(key, "***") if key else message


# -- one request -----------------------------------------------------------------------------


class _DeadlineReader(io.RawIOBase):
    """A socket's raw file whose every read waits at most until ``deadline`` (monotonic)."""

    def __init__(self, sock: Any, deadline: float) -> None:
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)  # holds the socket open until closed
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("timed out")
        self._sock.settimeout(remaining)
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineSocket:
    """What ``http.client.HTTPResponse`` needs of a socket: a file bounded by a deadline."""

    def __init__(self, sock: Any, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode: str, *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline))


def _connection(base: type, deadline: float) -> Callable[..., http.client.HTTPConnection]:
    def make(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
        conn = base(*args, **kwargs)
        conn.response_class = lambda sock, *a, **kw: http.client.HTTPResponse(
            _DeadlineSocket(sock, deadline), *a, **kw)
        return conn
    return make


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPConnection, self.deadline), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline

    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPSConnection, self.deadline), req,
                            context=self._context)


def request(url: str, data: bytes | None = None, *, api_key: str | None,
            timeout: float) -> bytes:
    """POST ``data`` as JSON to ``url`` (GET when ``data`` is None) and return the body.

    The whole request, connecting included, takes at most about ``timeout`` seconds.
    Raises :class:`RequestFailed` (its message never holds the key).
    """
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "User-Agent": "ragd"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    method = "GET" if data is None else "POST"
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    deadline = time.monotonic() + timeout
    opener = urllib.request.build_opener(_HTTPHandler(deadline), _HTTPSHandler(deadline))
    try:
        with opener.open(req, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        raise _http_failure(exc, api_key) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
        # URLError wraps refused connections and connect timeouts; a bare TimeoutError or
        # ConnectionError (OSError) or IncompleteRead comes from a stalled or cut read.
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError) or time.monotonic() >= deadline:
            what = f"timed out after {timeout:g}s"
        else:
            what = f"{type(reason).__name__}: {reason}"
        raise RequestFailed(redact(what, api_key)) from None


def _http_failure(exc: urllib.error.HTTPError, api_key: str | None) -> RequestFailed:
    try:
        raw = exc.read()
    except (OSError, ValueError, http.client.HTTPException):
        raw = b""
    message = server_message(raw) if raw else "(empty body)"
    body = raw[:_BODY_LIMIT].decode("utf-8", errors="replace")
    return RequestFailed(redact(f"HTTP {exc.code}: {message}", api_key), status=exc.code,
                         body=redact(body, api_key), retry_after=retry_after(exc.headers))


def retry_after(headers: Any) -> float | None:
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


def server_message(body: bytes) -> str:
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


# -- retries ---------------------------------------------------------------------------------


def with_retries(send: Callable[[], T], *, max_retries: int, backoff: float,
                 sleep: Callable[[float], None],
                 on_retry: Callable[[int, int, RequestFailed, float], None] | None = None) -> T:
    """``send()``, retried up to ``max_retries`` times while it fails transiently.

    The wait before retry ``n`` (from 0) is the server's ``Retry-After`` if it gave one,
    else ``backoff * 2 ** n``. A non-transient failure is raised at once; the last
    transient one is raised; either carries ``attempts``, the number of attempts made.
    """
    attempts = max_retries + 1
    for attempt in range(attempts):
        try:
            return send()
        except RequestFailed as failure:
            if not failure.transient or attempt + 1 == attempts:
                failure.attempts = attempt + 1
                raise
            delay = failure.retry_after
            if delay is None:
                delay = backoff * (2 ** attempt)
            if on_retry is not None:
                on_retry(attempt + 1, attempts, failure, delay)
            sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover


def attempts_text(failure: RequestFailed) -> str:
    """How many tries :func:`with_retries` made, as text: "3 attempts", "1 attempt"."""
    count = failure.attempts
    return f"{count} attempt{'s' if count != 1 else ''}"

