"""The chat-completions wire format: the request body and what a reply holds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


class NotACompletionError(ValueError):
    """A 200 reply whose body is not a chat completion."""


@dataclass(frozen=True)
class Completion:
    """The first choice of a reply: its text, why it stopped, a refusal if any."""

    content: str | None
    finish_reason: str | None
    refusal: str | None = None
    model: str | None = None
    """The model the server says answered (llama.cpp: its own, whatever was asked for)."""


def chat_request(model: str, messages: list[dict[str, Any]], *, schema: Any, name: str,
                 max_tokens: int, temperature: float, structured: bool) -> dict[str, Any]:
    """The body of ``POST /chat/completions``; ``structured`` adds the json_schema format."""
    body: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature,
                            "max_tokens": max_tokens}
    if structured:
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": name, "schema": schema, "strict": True}}
    return body


def read_completion(body: bytes) -> Completion:
    """The first choice of a chat-completion body, or :class:`NotACompletionError`."""
    try:
        payload = json.loads(body)
    except ValueError:
        raise NotACompletionError(f"the body is not JSON: {body[:80]!r}") from None
    if not isinstance(payload, dict):
        raise NotACompletionError(f"the body is a JSON {type(payload).__name__}, not an object")
    if payload.get("error"):
        error = payload["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        raise NotACompletionError(f"the body is an error: {message}")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise NotACompletionError("it has no 'choices' list")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise NotACompletionError("its first choice has no 'message' object")
    finish = choices[0].get("finish_reason")
    refusal = message.get("refusal")
    model = payload.get("model")
    return Completion(content=_text(message.get("content")),
                      finish_reason=finish if isinstance(finish, str) else None,
                      refusal=refusal if isinstance(refusal, str) and refusal else None,
                      model=model if isinstance(model, str) and model.strip() else None)


def _text(content: Any) -> str | None:
    """Message content as text: a string, or the text parts of a list of parts."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "".join(p for p in parts if isinstance(p, str))
    raise NotACompletionError(f"its message content is a {type(content).__name__}")
