"""OpenAIEmbedder against a real HTTP server on 127.0.0.1 that speaks /v1/embeddings.

The server derives each vector from a sha256 of the text, lists the results
shuffled, checks the bearer key and plays back scripted failures, so the
client's batching, ordering, retries and error messages are tested end to end.
"""

from __future__ import annotations

import hashlib
import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from ragd.embedding import make_embedder
from ragd.embedding.base import Embedder
from ragd.embedding.openai import RETRY_AFTER_CAP, OpenAIEmbedder
from ragd.embedding.tokenizer import count_tokens
from ragd.errors import ConfigError, EmbedderError

KEY = "sk-test-very-secret-0123456789"
MODEL = "text-embedding-test"
DIMS = 8


def fake_vector(text: str, dims: int = DIMS) -> list[float]:
    """A deterministic, unnormalised vector for ``text`` (what the fake server returns)."""
    raw = b"".join(hashlib.sha256(f"{i}:{text}".encode()).digest() for i in range(dims // 32 + 1))
    return [(b - 127.5) / 127.5 for b in raw[:dims]]


def expected(texts: list[str], dims: int = DIMS) -> np.ndarray:
    matrix = np.array([fake_vector(t, dims) for t in texts], dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@dataclass
class Step:
    """One scripted answer: an HTTP error, a stall, another vector length or a raw body."""

    status: int = 200
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    stall: float = 0.0
    dims: int | None = None
    raw: bytes | None = None


class FakeOpenAI:
    """State shared by the handler threads: received requests and the failure script."""

    def __init__(self, key: str | None = KEY) -> None:
        self.key = key
        self.dims = DIMS
        self.script: list[Step] = []
        self.requests: list[dict[str, Any]] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()

    def next_step(self, request: dict[str, Any]) -> Step:
        with self.lock:
            self.requests.append(request)
            return self.script.pop(0) if self.script else Step()

    @property
    def batch_sizes(self) -> list[int]:
        return [len(r["body"]["input"]) for r in self.requests]


def make_handler(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep pytest output clean
            pass

        def reply(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            try:
                self.wfile.write(body)
            except OSError:  # the client gave up (timeout test)
                pass

        def error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
            self.reply(status, {"error": {"message": message, "type": "invalid_request_error"}},
                       headers)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            step = state.next_step({"path": self.path, "body": body,
                                    "auth": self.headers.get("Authorization")})
            if step.stall:
                state.stop.wait(step.stall)
            if step.status != 200:
                return self.error(step.status, step.message, step.headers)
            if step.raw is not None:
                return self.reply(200, step.raw)
            if self.path != "/v1/embeddings":
                return self.error(404, f"no route {self.path}")
            if state.key and self.headers.get("Authorization") != f"Bearer {state.key}":
                return self.error(401, "Incorrect API key provided")
            texts = body["input"]
            if any(t == "" for t in texts):
                return self.error(400, "'$.input' is invalid: empty string")
            dims = step.dims or state.dims
            data = [{"object": "embedding", "index": i, "embedding": fake_vector(t, dims)}
                    for i, t in enumerate(texts)]
            random.Random(len(texts)).shuffle(data)
            data.reverse()  # never the identity order, even for two items
            self.reply(200, {"object": "list", "data": data, "model": body["model"],
                             "usage": {"prompt_tokens": 0, "total_tokens": 0}})

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[FakeOpenAI, str]]:
    state = FakeOpenAI()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("RAGD_OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def embedder(url: str, sleeps: list[float] | None = None, **settings: Any) -> OpenAIEmbedder:
    """An embedder with fast failure settings; waits are recorded in ``sleeps``, not slept."""
    opts: dict[str, Any] = {"timeout": 2.0, "max_retries": 2, "backoff": 0.01}
    opts.update(settings)
    record = sleeps if sleeps is not None else []
    return OpenAIEmbedder(MODEL, base_url=url, sleep=record.append, **opts)


# -- happy path -----------------------------------------------------------------------------


def test_vectors_in_input_order_and_normalised(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    texts = [f"passage number {i}" for i in range(10)]
    emb = embedder(url)
    vectors = emb.embed_documents(texts)
    assert vectors.dtype == np.float32 and vectors.shape == (10, DIMS)
    np.testing.assert_allclose(vectors, expected(texts), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    assert isinstance(emb, Embedder) and emb.dims == DIMS and emb.name == f"openai:{MODEL}"
    request = state.requests[0]
    assert request["path"] == "/v1/embeddings"
    assert request["auth"] == f"Bearer {KEY}"
    assert request["body"] == {"model": MODEL, "input": texts, "encoding_format": "float"}


def test_embed_query_is_one_vector(server: tuple[FakeOpenAI, str]) -> None:
    _, url = server
    vector = embedder(url).embed_query("what is a dual-use item?")
    assert vector.shape == (DIMS,) and vector.dtype == np.float32
    np.testing.assert_allclose(vector, expected(["what is a dual-use item?"])[0], atol=1e-6)


def test_batches_of_batch_size(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    texts = [f"text {i}" for i in range(150)]
    vectors = embedder(url, batch_size=64).embed_documents(texts)
    assert state.batch_sizes == [64, 64, 22]
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)


def test_empty_strings_are_sent_as_a_space(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    vectors = embedder(url).embed_documents(["", "words"])
    assert state.requests[0]["body"]["input"] == [" ", "words"]
    np.testing.assert_allclose(vectors, expected([" ", "words"]), atol=1e-6)


def test_no_texts_no_request_when_dims_known(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    out = embedder(url, dims=DIMS).embed_documents([])
    assert out.shape == (0, DIMS) and out.dtype == np.float32
    assert state.requests == []


def test_dims_learned_by_one_probe(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    emb = embedder(url)
    assert emb.dims == DIMS and emb.dims == DIMS
    assert state.batch_sizes == [1]


def test_protocol_check_costs_at_most_the_probe(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    assert isinstance(embedder(url, dims=DIMS), Embedder)
    assert state.requests == []
    assert isinstance(embedder(url), Embedder)
    assert len(state.requests) <= 1  # Python 3.11 reads ``dims`` in isinstance


def test_count_tokens_uses_the_vendored_wordpiece(server: tuple[FakeOpenAI, str]) -> None:
    _, url = server
    texts = ["Export Administration Regulations", ""]
    assert embedder(url).count_tokens(texts) == count_tokens(texts)


def test_local_server_needs_no_key(server: tuple[FakeOpenAI, str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    state, url = server
    state.key = None
    monkeypatch.delenv("OPENAI_API_KEY")
    embedder(url).embed_query("hello")
    assert state.requests[0]["auth"] is None


# -- retries --------------------------------------------------------------------------------


def test_retries_500_and_429_then_succeeds(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    state.script = [Step(500, "internal error"), Step(429, "rate limited")]
    sleeps: list[float] = []
    vectors = embedder(url, sleeps, max_retries=3, backoff=0.25).embed_documents(["a", "b"])
    np.testing.assert_allclose(vectors, expected(["a", "b"]), atol=1e-6)
    assert len(state.requests) == 3
    assert sleeps == [0.25, 0.5]  # doubling, no jitter


def test_retry_after_is_respected_and_capped(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    state.script = [Step(429, "slow down", {"Retry-After": "2"}),
                    Step(503, "busy", {"Retry-After": "3600"}),
                    Step(429, "slow down", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})]
    sleeps: list[float] = []
    embedder(url, sleeps, max_retries=3, backoff=0.1).embed_query("x")
    assert sleeps == [2.0, RETRY_AFTER_CAP, 0.4]


def test_gives_up_after_max_retries(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    state.script = [Step(502, f"bad gateway {i}") for i in range(5)]
    sleeps: list[float] = []
    with pytest.raises(EmbedderError) as info:
        embedder(url, sleeps, max_retries=2).embed_query("x")
    message = str(info.value)
    assert "3 attempts" in message and "HTTP 502" in message and "bad gateway 2" in message
    assert len(state.requests) == 3 and len(sleeps) == 2


def test_no_retry_on_400(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    state.script = [Step(400, "This model's maximum context length is 8192 tokens")]
    with pytest.raises(EmbedderError) as info:
        embedder(url, max_retries=3).embed_query("x")
    assert len(state.requests) == 1
    assert "400" in str(info.value) and "maximum context length" in str(info.value)


def test_wrong_key_names_the_env_var(server: tuple[FakeOpenAI, str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    state, url = server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with pytest.raises(EmbedderError, match=r"401.*Incorrect API key.*OPENAI_API_KEY"):
        embedder(url).embed_query("x")
    assert len(state.requests) == 1


def test_timeout_is_retried_then_fails(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    state.script = [Step(stall=5.0), Step(stall=5.0)]
    started = time.monotonic()
    with pytest.raises(EmbedderError, match=r"2 attempts.*timed out"):
        embedder(url, timeout=0.2, max_retries=1).embed_query("x")
    assert time.monotonic() - started < 2.0
    assert len(state.requests) == 2


def test_timeout_then_success(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    state.script = [Step(stall=5.0)]
    vector = embedder(url, timeout=0.2).embed_query("x")
    np.testing.assert_allclose(vector, expected(["x"])[0], atol=1e-6)


def test_connection_refused_is_retried() -> None:
    with socket.socket() as sock:  # a port that nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    with pytest.raises(EmbedderError, match=r"3 attempts.*refused"):
        embedder(f"http://127.0.0.1:{port}/v1", sleeps).embed_query("x")
    assert len(sleeps) == 2


# -- bad responses --------------------------------------------------------------------------


def test_given_dims_mismatch(server: tuple[FakeOpenAI, str]) -> None:
    _, url = server
    with pytest.raises(EmbedderError, match=r"length 8, expected 4"):
        embedder(url, dims=4).embed_query("x")


def test_learned_dims_must_stay_constant(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    emb = embedder(url)
    emb.embed_query("x")
    state.script = [Step(dims=6)]
    with pytest.raises(EmbedderError, match=r"length 6, expected 8"):
        emb.embed_query("y")
    assert emb.dims == DIMS


@pytest.mark.parametrize("raw, what", [
    (b"<html>oops</html>", "not JSON"),
    (b'{"object": "list"}', "no 'data' list"),
    (b'{"data": [{"index": 0, "embedding": [1, 2]}]}', "1 embeddings for 2 inputs"),
    (b'{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 0, "embedding": [1, 2]}]}',
     "repeated index"),
    (b'{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 2, "embedding": [1, 2]}]}',
     "out-of-range"),
    (b'{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [1]}]}',
     "different lengths"),
    (b'{"data": [{"index": 0, "embedding": [1, "x"]}, {"index": 1, "embedding": [1, 2]}]}',
     "finite numbers"),
    (b'{"data": [{"index": 0, "embedding": [1, NaN]}, {"index": 1, "embedding": [1, 2]}]}',
     "finite numbers"),
    (b'{"data": [{"index": 0, "embedding": "AAAA"}, {"index": 1, "embedding": [1, 2]}]}',
     "not a list"),
])
def test_malformed_response(server: tuple[FakeOpenAI, str], raw: bytes, what: str) -> None:
    state, url = server
    state.script = [Step(raw=raw)]
    with pytest.raises(EmbedderError, match="bad response") as info:
        embedder(url).embed_documents(["a", "b"])
    assert what in str(info.value)
    assert len(state.requests) == 1


# -- configuration and secrets --------------------------------------------------------------


def test_missing_key_for_remote_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIEmbedder(MODEL, base_url="https://api.example.com/v1")
    with pytest.raises(ConfigError, match="MY_EMBED_KEY"):
        OpenAIEmbedder(MODEL, base_url="https://api.example.com/v1", api_key_env="MY_EMBED_KEY")


def test_missing_model() -> None:
    with pytest.raises(ConfigError, match="model"):
        make_embedder({"kind": "openai", "base_url": "http://localhost:1/v1"})


@pytest.mark.parametrize("settings", [
    {"base_url": "ftp://example.com/v1"}, {"batch_size": 0}, {"timeout": 0},
    {"max_retries": -1}, {"backoff": "soon"}, {"dims": 0},
])
def test_bad_settings(settings: dict[str, Any]) -> None:
    settings = {"base_url": "http://localhost:1/v1", **settings}
    with pytest.raises(ConfigError):
        OpenAIEmbedder(MODEL, **settings)


def test_base_url_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert OpenAIEmbedder(MODEL).base_url == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gateway:8080/v1/")
    assert OpenAIEmbedder(MODEL).base_url == "http://gateway:8080/v1"
    monkeypatch.setenv("RAGD_OPENAI_BASE_URL", "http://localhost:11434/v1")
    assert OpenAIEmbedder(MODEL).base_url == "http://localhost:11434/v1"
    assert OpenAIEmbedder(MODEL, base_url="http://other/v1").base_url == "http://other/v1"


def test_key_never_leaks(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    emb = embedder(url, max_retries=0)
    assert KEY not in json.dumps(emb.spec()) and KEY not in repr(emb)
    for step in (Step(400, f"you sent {KEY}"), Step(500, f"you sent {KEY}"),
                 Step(raw=f"bad {KEY}".encode())):
        state.script = [step]
        with pytest.raises(EmbedderError) as info:
            emb.embed_query("x")
        assert KEY not in str(info.value) and "***" in str(info.value)


def test_spec_round_trip_through_make_embedder(server: tuple[FakeOpenAI, str]) -> None:
    state, url = server
    first = make_embedder({"kind": "openai", "model": MODEL, "base_url": url})
    vectors = first.embed_documents(["alpha", "beta"])
    spec = first.spec()
    assert spec == {"kind": "openai", "model": MODEL, "base_url": url, "dims": DIMS}
    second = make_embedder(spec)
    assert isinstance(second, OpenAIEmbedder) and second.spec() == spec
    assert second.name == first.name == f"openai:{MODEL}"
    np.testing.assert_array_equal(second.embed_documents(["alpha", "beta"]), vectors)
