"""HTTP plumbing of the REST app: the API key check, body limits, deadlines, security headers.

Kept apart from the routes so each piece can be read (and tested) on its own.
"""

from __future__ import annotations

import hmac
import json
from typing import Any, Awaitable, Callable, TypeVar

import anyio
import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import RequestTimeout, error_body

T = TypeVar("T")


def key_matches(header: str | None, key: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <key>`` (constant-time compare;
    header values are latin-1 on the wire, the key is UTF-8)."""
    if not header:
        return False
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer":
        return False
    try:
        raw = given.strip().encode("latin-1")
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(raw, key.encode("utf-8"))


class Unauthorized(HTTPException):
    def __init__(self) -> None:
        super().__init__(401, "missing or wrong API key: send Authorization: Bearer <key>",
                         headers={"WWW-Authenticate": "Bearer"})


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is over the limit of {limit:,} bytes")


async def _send_json(send: Send, status: int, body: dict[str, Any],
                     headers: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


class BodyLimit:
    """Refuse request bodies over a limit (per path prefix; the longest prefix wins) with
    413: at once from ``Content-Length``, else while the body streams in."""

    def __init__(self, app: ASGIApp, default: int, limits: dict[str, int]) -> None:
        self.app = app
        self.default = default
        self.limits = sorted(limits.items(), key=lambda kv: -len(kv[0]))

    def limit_for(self, path: str) -> int:
        return next((v for prefix, v in self.limits if path.startswith(prefix)), self.default)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope.get("path", ""))
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None:
            try:
                too_big = int(length) > limit
            except ValueError:
                await _send_json(send, 400, error_body("BadRequest", "invalid Content-Length"))
                return
            if too_big:
                error = BodyTooLarge(limit)
                await _send_json(send, 413, error_body("RequestTooLarge", str(error.detail)),
                                 {"connection": "close"})
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, limited, send)


class SecurityHeaders:
    """nosniff, no referrer and no framing everywhere; the page's CSP on ``/``."""

    def __init__(self, app: ASGIApp, page_csp: str) -> None:
        self.app = app
        self.page_csp = page_csp.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        page = scope.get("path") == "/"

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                headers += [(b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"),
                            (b"x-frame-options", b"DENY")]
                if page:
                    headers.append((b"content-security-policy", self.page_csp))
                if scope.get("path", "").startswith("/v1/"):
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class RequireKey:
    """An ASGI app behind the API key (the MCP endpoint)."""

    def __init__(self, app: ASGIApp, key: str | None) -> None:
        self.app = app
        self.key = key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.key is not None and scope["type"] == "http":
            headers = dict(scope.get("headers") or ())
            header = headers.get(b"authorization", b"").decode("latin-1")
            if not key_matches(header, self.key):
                await _send_json(send, 401, error_body("Unauthorized", str(Unauthorized().detail)),
                                 {"www-authenticate": "Bearer"})
                return
        await self.app(scope, receive, send)


async def blocking(fn: Callable[[], T], timeout: float) -> T:
    """``fn()`` on a worker thread; after ``timeout`` seconds the request gets
    :class:`RequestTimeout` and the thread is abandoned (it finishes on its own)."""
    if timeout <= 0:
        return await anyio.to_thread.run_sync(fn)
    try:
        with anyio.fail_after(timeout):
            return await anyio.to_thread.run_sync(fn, abandon_on_cancel=True)
    except TimeoutError:
        raise RequestTimeout(timeout) from None


Handler = Callable[..., Awaitable[Any]]
