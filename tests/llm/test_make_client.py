"""make_client: no client for "none", a model from the argument, the environment or "default"."""

from __future__ import annotations

import pytest

from ragd.llm import ChatClient, make_client


@pytest.mark.parametrize("url", [None, "", "  ", "none", "None", "NONE"])
def test_no_url_no_client(url: str | None) -> None:
    assert make_client(url, "m") is None


def test_model_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGD_LLM_MODEL", raising=False)
    chat = make_client("http://127.0.0.1:8080/v1", None)
    assert isinstance(chat, ChatClient) and chat.model == "default"
    assert chat.url == "http://127.0.0.1:8080/v1/chat/completions"
    monkeypatch.setenv("RAGD_LLM_MODEL", "qwen2.5-7b-instruct")
    assert make_client("http://127.0.0.1:8080/v1", None).model == "qwen2.5-7b-instruct"
    assert make_client("http://127.0.0.1:8080/v1", "").model == "qwen2.5-7b-instruct"
    assert make_client("http://127.0.0.1:8080/v1/", "llama").model == "llama"
