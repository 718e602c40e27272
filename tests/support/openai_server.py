"""A real OpenAI-compatible chat server on 127.0.0.1 that replays scripted answers.

The ``openai_server`` fixture (registered for every test in ``tests/conftest.py``)::

    def test_something(openai_server):
        openai_server.script({"status": 500}, {"json": {"answer": "yes", "cites": [1]}})
        client = ChatClient(openai_server.url, "test-model", sleep=lambda s: None)
        assert client.complete_json(messages, schema, name="answer") == {...}
        assert openai_server.requests[-1].body["model"] == "test-model"

Each chat request takes the next step of the script; a step is a dict (or a callable
that takes the :class:`Request` and returns one):

- ``{"json": value}``: 200, ``message.content`` is ``json.dumps(value)``
- ``{"content": "text"}``: 200, ``message.content`` is the text as is (None sends null)
- ``{"finish_reason": "length"}``, ``{"refusal": "..."}``, ``{"model": "x"}``: change the reply
- ``{"status": 500, "message": "...", "body": {...} or "text", "headers": {...}}``: an error
- ``{"raw": "body"}``: 200 with this body as is (not a chat completion)
- ``{"delay": 2.0}``: wait before answering (combines with any of the above)
- ``{"drip": 0.1, "chunk": 8}``: send the headers, then ``chunk`` bytes every ``drip`` s
- ``{"drop": True}``: close the connection without answering

A step with no content answers ``{}``. When the script runs out, ``default`` answers
(a step; None, the default, answers HTTP 418 "no scripted answer left", which a client
does not retry). ``GET .../models`` lists ``models`` and takes no step; with
``check_model`` a chat request for another model gets 404 ``model_not_found``, and with
``require_key`` one without ``Authorization: Bearer <key>`` gets 401; neither takes a step.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Union

import pytest

Step = Union[dict[str, Any], Callable[["Request"], dict[str, Any]]]
STEP_KEYS = frozenset({"json", "content", "finish_reason", "refusal", "model", "status",
                       "message", "body", "headers", "raw", "delay", "drip", "chunk", "drop"})


@dataclass(frozen=True)
class Request:
    """One request as the server saw it; ``headers`` keys are lower case."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


def check_step(step: Step) -> Step:
    """``step`` if it is a callable or a dict of known keys; a ValueError otherwise."""
    if callable(step):
        return step
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise ValueError(f"unknown step keys {sorted(unknown)}; known: {sorted(STEP_KEYS)}")
    return step


class ScriptedOpenAI:
    """The server's state: the script, what it received, and its settings."""

    def __init__(self) -> None:
        self.url = ""  # set once serving: http://127.0.0.1:<port>/v1
        self.steps: list[Step] = []
        self.default: Step | None = None
        self.requests: list[Request] = []
        self.models: list[str] = ["test-model"]
        self.check_model = False
        self.require_key: str | None = None
        self.stop = threading.Event()
        self._lock = threading.Lock()

    def script(self, *steps: Step) -> "ScriptedOpenAI":
        """Append steps to the script (each answers one chat request, in order)."""
        with self._lock:
            self.steps.extend(check_step(s) for s in steps)
        return self

    @property
    def pending(self) -> int:
        """Steps not yet used."""
        return len(self.steps)

    @property
    def chat_requests(self) -> list[Request]:
        """The chat-completion requests received, in order."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of the chat-completion requests, in order."""
        return [r.body for r in self.chat_requests]

    def record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def next_step(self, request: Request) -> dict[str, Any] | None:
        with self._lock:
            step = self.steps.pop(0) if self.steps else self.default
        if callable(step):
            step = dict(check_step(step(request)))  # type: ignore[arg-type]
        return step


def completion(content: str | None, *, model: str, finish_reason: str = "stop",
               refusal: str | None = None) -> dict[str, Any]:
    """A chat.completion body with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    return {"id": f"chatcmpl-{time.monotonic_ns()}", "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}


def _handler(state: ScriptedOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def _receive(self) -> Request:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            request = Request(self.command, self.path,
                              {k.lower(): v for k, v in self.headers.items()}, body, raw)
            state.record(request)
            return request

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None,
                  drip: float = 0.0, chunk: int = 8) -> None:
            if isinstance(payload, (bytes, str)):
                data = payload.encode() if isinstance(payload, str) else payload
            else:
                data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, str(value))
                self.end_headers()
                if not drip:
                    self.wfile.write(data)
                    return
                self.wfile.flush()
                for start in range(0, len(data), max(1, chunk)):
                    if state.stop.wait(drip):
                        return
                    self.wfile.write(data[start:start + chunk])
                    self.wfile.flush()
            except OSError:  # the client gave up (timeout tests)
                pass

        def _error(self, status: int, message: str, code: str | None = None,
                   headers: dict[str, str] | None = None) -> None:
            error = {"message": message, "type": "invalid_request_error", "code": code}
            self._send(status, {"error": error}, headers)

        def do_GET(self) -> None:
            self._receive()
            if not self.path.endswith("/models"):
                return self._error(404, f"no route GET {self.path}")
            self._send(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "ragd-tests"}
                for m in state.models]})

        def do_POST(self) -> None:
            request = self._receive()
            if not self.path.endswith("/chat/completions"):
                return self._error(404, f"no route POST {self.path}")
            if state.require_key and (request.headers.get("authorization")
                                      != f"Bearer {state.require_key}"):
                return self._error(401, "Incorrect API key provided", "invalid_api_key")
            body = request.body if isinstance(request.body, dict) else {}
            model = str(body.get("model", ""))
            if state.check_model and model not in state.models:
                return self._error(404, f"The model `{model}` does not exist",
                                   "model_not_found")
            step = state.next_step(request)
            if step is None:
                return self._error(418, "openai_server: no scripted answer left")
            self._answer(step, model)

        def _answer(self, step: dict[str, Any], model: str) -> None:
            if step.get("delay") and state.stop.wait(float(step["delay"])):
                return
            if step.get("drop"):
                self.close_connection = True
                return
            drip = {"drip": float(step.get("drip", 0.0)), "chunk": int(step.get("chunk", 8))}
            status = int(step.get("status", 200))
            if status != 200:
                if "body" in step:
                    return self._send(status, step["body"], step.get("headers"), **drip)
                return self._error(status, str(step.get("message", f"scripted HTTP {status}")),
                                   headers=step.get("headers"))
            if "raw" in step:
                return self._send(200, step["raw"], step.get("headers"), **drip)
            content = json.dumps(step["json"]) if "json" in step else step.get("content", "{}")
            reply = completion(content, model=str(step.get("model", model)),
                               finish_reason=str(step.get("finish_reason", "stop")),
                               refusal=step.get("refusal"))
            self._send(200, reply, step.get("headers"), **drip)

    return Handler


@contextmanager
def serve_openai() -> Iterator[ScriptedOpenAI]:
    """A :class:`ScriptedOpenAI` serving on a free port of 127.0.0.1 until the block ends."""
    state = ScriptedOpenAI()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture
def openai_server() -> Iterator[ScriptedOpenAI]:
    """A scripted OpenAI-compatible chat server for one test (see the module docstring)."""
    with serve_openai() as server:
        yield server
