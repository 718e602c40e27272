"""ChatClient against a real HTTP server on 127.0.0.1 that replays scripted answers.

Every failure mode is played by the server (``tests/support/openai_server.py``):
errors, stalls, slow bytes, dropped connections, malformed and cut-off output.
Waits between retries go to a list instead of being slept.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from typing import Any

import pytest

from ragd.errors import (ConfigError, LLMError, LLMInvalidOutputError, LLMResponseError,
                         LLMUnavailableError, RagdError, UsageError)
from ragd.llm import ChatClient
from support.openai_server import ScriptedOpenAI

KEY = "sk-test-llm-secret-0123456789"
MODEL = "test-model"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"},
                   "citations": {"type": "array", "items": {"type": "integer"}}},
    "required": ["answer", "citations"],
    "additionalProperties": False,
}
MESSAGES = [{"role": "system", "content": "Answer in JSON with citations."},
            {"role": "user", "content": "How long are audit logs kept?"}]
ANSWER = {"answer": "Audit logs are kept for 90 days.", "citations": [2, 5]}


@pytest.fixture(autouse=True)
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def client(server: ScriptedOpenAI, sleeps: list[float] | None = None,
           **settings: Any) -> ChatClient:
    """A client of ``server`` whose waits between retries are recorded, not slept."""
    opts: dict[str, Any] = {"timeout": 2.0, "max_retries": 3, "backoff": 0.25}
    opts.update(settings)
    record = sleeps if sleeps is not None else []
    return ChatClient(server.url, MODEL, sleep=record.append, **opts)


def ask(chat: ChatClient, schema: dict[str, Any] = SCHEMA, **kwargs: Any) -> Any:
    return chat.complete_json(MESSAGES, schema, name="answer", **kwargs)


# -- happy path and the request --------------------------------------------------------------


def test_a_good_answer_is_parsed_and_the_request_is_complete(openai_server) -> None:
    openai_server.script({"json": ANSWER})
    assert ask(client(openai_server)) == ANSWER
    [request] = openai_server.requests
    assert request.method == "POST" and request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": MODEL, "messages": MESSAGES, "temperature": 0.0, "max_tokens": 512,
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "answer", "schema": SCHEMA, "strict": True}},
    }


def test_max_tokens_and_temperature_are_sent(openai_server) -> None:
    openai_server.script({"json": ANSWER})
    ask(client(openai_server), max_tokens=64, temperature=0.7)
    body = openai_server.bodies[0]
    assert body["max_tokens"] == 64 and body["temperature"] == 0.7


def test_a_local_server_needs_no_key(openai_server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    openai_server.script({"json": ANSWER})
    assert ask(client(openai_server)) == ANSWER
    assert "authorization" not in openai_server.requests[0].headers


FENCED = json.dumps(ANSWER, indent=2)


@pytest.mark.parametrize("content", [
    f"```json\n{FENCED}\n```",
    f"```\n{FENCED}\n```",
    f"Here is the answer:\n```JSON\n{FENCED}\n```\nHope this helps.",
    f"Sure! {json.dumps(ANSWER)} Let me know if you need more.",
    f"Per the rules {{see section 2}}, the answer is: {json.dumps(ANSWER)}",
    f"[1] is a citation marker. {json.dumps(ANSWER)}",
    f"\n\n  {json.dumps(ANSWER)}  \n",
])
def test_wrapped_json_is_recovered(openai_server, content: str) -> None:
    openai_server.script({"content": content})
    assert ask(client(openai_server)) == ANSWER


def test_an_array_schema_takes_the_first_array(openai_server) -> None:
    openai_server.script({"content": 'The ids are {"not": "this"} and [3, 1, 2].'})
    assert ask(client(openai_server), {"type": "array", "items": {"type": "integer"}}) == [3, 1, 2]


# -- invalid output --------------------------------------------------------------------------


@pytest.mark.parametrize("content, what", [
    ('{"answer": "yes", "citations": [1,}', "not valid JSON"),
    ("The audit logs are kept for 90 days.", "not valid JSON"),
    ("", "empty content"),
    (None, "empty content"),
    ("[2, 5]", "JSON array where the schema asks for object"),
    ('"just a string"', "JSON string where the schema asks for object"),
])
def test_invalid_output(openai_server, content: str | None, what: str) -> None:
    openai_server.script({"content": content})
    sleeps: list[float] = []
    with pytest.raises(LLMInvalidOutputError) as info:
        ask(client(openai_server, sleeps))
    message = str(info.value)
    assert what in message and openai_server.url in message and "\n" not in message
    assert info.value.content == content
    assert len(openai_server.requests) == 1 and sleeps == []  # output errors are not retried


def test_cut_off_output_is_invalid(openai_server) -> None:
    openai_server.script({"content": '{"answer": "Audit logs are ke', "finish_reason": "length"})
    with pytest.raises(LLMInvalidOutputError, match=r"cut .* off at max_tokens=100"):
        ask(client(openai_server), max_tokens=100)


def test_cut_off_is_invalid_even_when_the_text_parses(openai_server) -> None:
    openai_server.script({"json": ANSWER, "finish_reason": "length"})
    with pytest.raises(LLMInvalidOutputError, match="finish_reason 'length'"):
        ask(client(openai_server))


def test_a_refusal_is_invalid_output(openai_server) -> None:
    openai_server.script({"content": None, "refusal": "I can't help with that."})
    with pytest.raises(LLMInvalidOutputError, match="refused: I can't help with that"):
        ask(client(openai_server))


@pytest.mark.parametrize("raw, what", [
    ("<html>Bad Gateway</html>", "not JSON"),
    ('{"object": "list", "data": []}', "no 'choices' list"),
    ('{"choices": []}', "no 'choices' list"),
    ('{"choices": [{"index": 0, "finish_reason": "stop"}]}', "no 'message'"),
    ('{"error": {"message": "model overloaded"}}', "error: model overloaded"),
    ("[1, 2]", "not an object"),
])
def test_a_reply_that_is_not_a_chat_completion(openai_server, raw: str, what: str) -> None:
    openai_server.script({"raw": raw})
    with pytest.raises(LLMResponseError, match="not a chat completion") as info:
        ask(client(openai_server))
    assert what in str(info.value) and openai_server.url in str(info.value)
    assert len(openai_server.requests) == 1


# -- retries ---------------------------------------------------------------------------------


def test_500_then_200_succeeds_after_one_retry(openai_server) -> None:
    openai_server.script({"status": 500, "message": "internal error"}, {"json": ANSWER})
    sleeps: list[float] = []
    assert ask(client(openai_server, sleeps)) == ANSWER
    assert len(openai_server.requests) == 2 and sleeps == [0.25]


def test_429_and_retry_after(openai_server) -> None:
    openai_server.script({"status": 429, "message": "rate limited"},
                         {"status": 503, "headers": {"Retry-After": "1"}},
                         {"json": ANSWER})
    sleeps: list[float] = []
    assert ask(client(openai_server, sleeps)) == ANSWER
    assert sleeps == [0.25, 1.0]  # backoff * 2**0, then the server's hint


def test_500_four_times_is_unavailable_after_three_retries(openai_server) -> None:
    openai_server.script(*({"status": 500, "message": f"boom {i}"} for i in range(4)))
    sleeps: list[float] = []
    with pytest.raises(LLMUnavailableError) as info:
        ask(client(openai_server, sleeps))
    message = str(info.value)
    assert openai_server.url in message and "4 attempts" in message and "HTTP 500: boom 3" in message
    assert len(openai_server.requests) == 4 and sleeps == [0.25, 0.5, 1.0]


def test_400_is_a_response_error_without_retry(openai_server) -> None:
    openai_server.script({"status": 400, "message": "messages: too long\nfor the context"},
                         {"json": ANSWER})
    sleeps: list[float] = []
    with pytest.raises(LLMResponseError, match=r"HTTP 400: messages: too long for the") as info:
        ask(client(openai_server, sleeps))
    assert not isinstance(info.value, LLMUnavailableError) and "\n" not in str(info.value)
    assert len(openai_server.requests) == 1 and sleeps == [] and openai_server.pending == 1


def test_a_wrong_key_names_the_variable(openai_server,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    openai_server.require_key = "sk-the-right-one"
    with pytest.raises(LLMResponseError, match=r"HTTP 401.*OPENAI_API_KEY"):
        ask(client(openai_server))
    assert len(openai_server.requests) == 1


def test_a_model_the_server_does_not_serve(openai_server) -> None:
    openai_server.check_model = True
    openai_server.models = ["llama-3-8b"]
    with pytest.raises(LLMResponseError, match=r"does not serve model 'test-model'.*HTTP 404"):
        ask(client(openai_server))
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize("status, error", [
    (400, {"message": "response_format is not supported by this server"}),
    (422, {"message": "Unknown field: json_schema"}),
    (400, {"message": "Invalid value", "param": "response_format"}),
])
def test_a_server_without_structured_output(openai_server, status: int,
                                            error: dict[str, Any]) -> None:
    openai_server.script({"status": status, "body": {"error": error}},
                         {"json": ANSWER}, {"json": ANSWER})
    sleeps: list[float] = []
    chat = client(openai_server, sleeps)
    assert ask(chat) == ANSWER
    first, second = openai_server.bodies
    assert "response_format" in first and "response_format" not in second
    assert {k: v for k, v in first.items() if k != "response_format"} == second
    assert chat.structured_output is False and sleeps == []
    assert ask(chat) == ANSWER  # remembered: one request, without the format
    assert len(openai_server.requests) == 3 and "response_format" not in openai_server.bodies[2]


def test_structured_output_is_dropped_only_once(openai_server) -> None:
    refusal = {"status": 400, "message": "response_format: json_schema unsupported"}
    openai_server.script(refusal, refusal)
    with pytest.raises(LLMResponseError, match="HTTP 400: response_format"):
        ask(client(openai_server))
    assert len(openai_server.requests) == 2


def test_a_stall_beyond_the_timeout_is_unavailable_within_the_timeout(openai_server) -> None:
    openai_server.script({"delay": 10.0, "json": ANSWER})
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match=r"1 attempt: timed out after 0.5s"):
        ask(client(openai_server, timeout=0.5, max_retries=0))
    assert time.monotonic() - started < 0.5 + 1.5


def test_a_stall_is_retried(openai_server) -> None:
    openai_server.script({"delay": 10.0}, {"json": ANSWER})
    sleeps: list[float] = []
    assert ask(client(openai_server, sleeps, timeout=0.3)) == ANSWER
    assert len(openai_server.requests) == 2 and sleeps == [0.25]


def test_slow_bytes_are_bounded_by_the_total_deadline(openai_server) -> None:
    # Each 4-byte piece comes 0.05 s after the last: a per-read socket timeout alone
    # would never fire, but the whole body would take about 6 s.
    openai_server.script({"json": ANSWER, "drip": 0.05, "chunk": 4})
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match="timed out after 0.8s"):
        ask(client(openai_server, timeout=0.8, max_retries=0))
    assert time.monotonic() - started < 0.8 + 1.5


def test_slow_bytes_within_the_deadline_are_fine(openai_server) -> None:
    openai_server.script({"json": ANSWER, "drip": 0.01, "chunk": 64})
    assert ask(client(openai_server, timeout=2.0, max_retries=0)) == ANSWER


def test_a_dropped_connection_is_retried(openai_server) -> None:
    openai_server.script({"drop": True}, {"json": ANSWER})
    sleeps: list[float] = []
    assert ask(client(openai_server, sleeps)) == ANSWER
    assert len(openai_server.requests) == 2 and sleeps == [0.25]


def test_dropped_every_time_is_unavailable(openai_server) -> None:
    openai_server.script(*({"drop": True} for _ in range(3)))
    with pytest.raises(LLMUnavailableError, match="3 attempts: RemoteDisconnected"):
        ask(client(openai_server, max_retries=2))


def test_connection_refused_is_unavailable() -> None:
    with socket.socket() as sock:  # a port that nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    sleeps: list[float] = []
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(LLMUnavailableError) as info:
        ChatClient(url, MODEL, sleep=sleeps.append, backoff=0.1).complete_json(
            MESSAGES, SCHEMA, name="answer")
    message = str(info.value)
    assert f"{url}/chat/completions" in message and "4 attempts" in message
    assert "refused" in message.lower()
    assert sleeps == [0.1, 0.2, 0.4]


# -- errors, secrets and settings ------------------------------------------------------------


def test_the_error_hierarchy() -> None:
    for error in (LLMUnavailableError, LLMResponseError, LLMInvalidOutputError):
        assert issubclass(error, LLMError) and issubclass(error, RagdError)


def test_the_key_never_appears_in_errors_or_logs(openai_server,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    chat = client(openai_server, max_retries=1)
    assert KEY not in repr(chat)
    cases = [
        ([{"status": 400, "message": f"bad key {KEY}"}], LLMResponseError),
        ([{"status": 401, "message": f"Incorrect API key provided: {KEY}"}], LLMResponseError),
        ([{"status": 500, "message": f"echo {KEY}"}] * 2, LLMUnavailableError),
        ([{"raw": f"<html>{KEY}</html>"}], LLMResponseError),
        ([{"content": f"not json {KEY}"}], LLMInvalidOutputError),
        ([{"content": f'{{"answer": "{KEY}', "finish_reason": "length"}], LLMInvalidOutputError),
        ([{"status": 400, "message": f"response_format unsupported {KEY}"},
          {"status": 400, "message": f"still {KEY}"}], LLMResponseError),
    ]
    for steps, error in cases:
        openai_server.script(*steps)
        with pytest.raises(error) as info:
            ask(chat)
        assert KEY not in str(info.value) and "***" in str(info.value), str(info.value)
        assert KEY not in str(getattr(info.value, "content", None) or "")
    assert openai_server.pending == 0
    assert caplog.records, "the retries and the fallback should have logged"
    assert all(KEY not in r.getMessage() for r in caplog.records)
    assert any("***" in r.getMessage() for r in caplog.records)


def test_a_remote_url_without_a_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        ChatClient("https://api.example.com/v1", MODEL)
    with pytest.raises(ConfigError, match="MY_LLM_KEY"):
        ChatClient("https://api.example.com/v1", MODEL, api_key_env="MY_LLM_KEY")
    monkeypatch.setenv("MY_LLM_KEY", "sk-x")
    assert ChatClient("https://api.example.com/v1", MODEL, api_key_env="MY_LLM_KEY").url == \
        "https://api.example.com/v1/chat/completions"


@pytest.mark.parametrize("base_url, model, settings", [
    ("ftp://example.com/v1", MODEL, {}),
    ("http://127.0.0.1:1/v1", "", {}),
    ("http://127.0.0.1:1/v1", MODEL, {"timeout": 0}),
    ("http://127.0.0.1:1/v1", MODEL, {"max_retries": -1}),
    ("http://127.0.0.1:1/v1", MODEL, {"backoff": "soon"}),
])
def test_bad_settings(base_url: str, model: str, settings: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        ChatClient(base_url, model, **settings)


def test_bad_arguments_are_refused_before_any_request(openai_server) -> None:
    chat = client(openai_server)
    with pytest.raises(UsageError, match="messages"):
        chat.complete_json([], SCHEMA, name="answer")
    with pytest.raises(UsageError, match="schema name"):
        chat.complete_json(MESSAGES, SCHEMA, name="an answer!")
    with pytest.raises(ConfigError, match="max_tokens"):
        chat.complete_json(MESSAGES, SCHEMA, name="answer", max_tokens=0)
    assert openai_server.requests == []


def test_models_lists_what_the_server_serves(openai_server) -> None:
    openai_server.models = ["llama-3-8b", "qwen2.5-7b"]
    assert client(openai_server).models() == ["llama-3-8b", "qwen2.5-7b"]
    [request] = openai_server.requests
    assert request.method == "GET" and request.path == "/v1/models"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert openai_server.chat_requests == []
