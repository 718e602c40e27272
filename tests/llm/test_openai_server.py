"""The scripted chat server itself: the parts the client tests do not reach."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from support.openai_server import Request


def post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(f"{url}/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_replies_are_chat_completions(openai_server) -> None:
    openai_server.script({"json": {"a": 1}, "model": "served-as"})
    status, reply = post(openai_server.url, {"model": "m", "messages": []})
    assert status == 200 and reply["object"] == "chat.completion"
    assert reply["model"] == "served-as"
    assert reply["choices"][0]["message"] == {"role": "assistant", "content": '{"a": 1}'}
    assert reply["choices"][0]["finish_reason"] == "stop"


def test_callable_steps_see_the_request(openai_server) -> None:
    def echo(request: Request) -> dict:
        return {"json": {"you_said": request.body["messages"][-1]["content"]}}

    openai_server.script(echo)
    _, reply = post(openai_server.url, {"model": "m", "messages": [{"role": "user",
                                                                     "content": "hi"}]})
    assert json.loads(reply["choices"][0]["message"]["content"]) == {"you_said": "hi"}


def test_an_exhausted_script_answers_418_then_the_default(openai_server) -> None:
    status, reply = post(openai_server.url, {"model": "m", "messages": []})
    assert status == 418 and "no scripted answer left" in reply["error"]["message"]
    openai_server.default = {"content": "always"}
    for _ in range(2):
        _, reply = post(openai_server.url, {"model": "m", "messages": []})
        assert reply["choices"][0]["message"]["content"] == "always"
    assert len(openai_server.bodies) == 3


def test_unknown_step_keys_are_refused(openai_server) -> None:
    with pytest.raises(ValueError, match="unknown step keys"):
        openai_server.script({"jsn": {}})
