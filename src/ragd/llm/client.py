"""ChatClient: JSON answers from any OpenAI-compatible ``POST {base_url}/chat/completions``.

Stdlib HTTP (:mod:`ragd.openai_http`), like the openai embedder: a total deadline per
request, doubling backoff on connection errors, timeouts, 429 and 5xx, none on other
4xx. Output is asked for as a strict ``json_schema`` response format; a server that
refuses that format (HTTP 400/422 naming it) is asked again without it, and the client
remembers. The API key comes from the environment and never appears in an error or a
log line.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any, Callable

from ..errors import (ConfigError, LLMInvalidOutputError, LLMResponseError,
                      LLMUnavailableError, UsageError)
from ..openai_http import (RequestFailed, attempts_text, check_base_url, positive,
                           read_api_key, redact, request, with_retries)
from .completion import Completion, NotACompletionError, chat_request, read_completion
from .jsontext import NotJSONError, parse_json_text, schema_types

log = logging.getLogger(__name__)

_WHO = "chat client"
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_EXCERPT = 160
_MODEL_MISSING = ("not found", "does not exist", "model_not_found", "invalid model",
                  "unknown model", "not served", "no such model")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _excerpt(text: str) -> str:
    return repr(text[:_EXCERPT]) + ("..." if len(text) > _EXCERPT else "")


def rejects_structured_output(failure: RequestFailed) -> bool:
    """True for an HTTP 400/422 that names ``response_format`` or ``json_schema``."""
    text = f"{failure} {failure.body}".lower()
    return failure.status in (400, 422) and ("response_format" in text or "json_schema" in text)


ANY_MODEL = "default"
"""The model name that means "whatever the server serves" (no name check)."""


def _model_id(name: str) -> str:
    base = name.strip().lower().replace("\\", "/").rsplit("/", 1)[-1]
    return base[:-5] if base.endswith(".gguf") else base


def same_model(asked: str, served: str | None) -> bool:
    """True when a reply from ``served`` answers a request for ``asked``: the same name
    (case, a directory and ``.gguf`` aside), a version of it (``gpt-4o`` answered by
    ``gpt-4o-2024-08-06``, ``llama3`` by ``llama3:latest``), or no name in the reply."""
    if not served:
        return True
    a, s = _model_id(asked), _model_id(served)
    return s == a or (s.startswith(a) and not s[len(a)].isalnum())


def _model_missing(failure: RequestFailed) -> bool:
    text = f"{failure} {failure.body}".lower()
    return (failure.status in (400, 404) and "model" in text
            and any(phrase in text for phrase in _MODEL_MISSING))


class ChatClient:
    """A chat model behind an OpenAI-compatible endpoint, asked for JSON.

    ``base_url`` is like ``http://127.0.0.1:8080/v1``. ``timeout`` bounds each request
    (connecting, waiting and reading); ``max_retries`` transient failures are retried
    after ``backoff * 2 ** n`` seconds (or the server's ``Retry-After``, capped).
    """

    def __init__(self, base_url: str, model: str, *, api_key_env: str = "OPENAI_API_KEY",
                 timeout: float = 30.0, max_retries: int = 3, backoff: float = 0.5,
                 sleep: Callable[[float], None] = time.sleep, check_model: bool = True) -> None:
        if not model or not str(model).strip():
            raise ConfigError("chat client needs a model name")
        self.model = str(model).strip()
        self.base_url = check_base_url(base_url, _WHO)
        self.timeout = positive(_WHO, "timeout", timeout, float, 1e-3)
        self.max_retries = positive(_WHO, "max_retries", max_retries, int, 0)
        self.backoff = positive(_WHO, "backoff", backoff, float, 0.0)
        self.api_key_env = str(api_key_env)
        self.structured_output = True
        """False once the server refused the json_schema response format."""
        self.check_model = check_model and self.model != ANY_MODEL
        """Refuse a reply from another model than the one named (llama.cpp answers with the
        one model it has, whatever the request names); off for :data:`ANY_MODEL`."""
        self._sleep = sleep
        self._api_key = read_api_key(self.api_key_env, self.base_url, _WHO)

    def __repr__(self) -> str:
        return f"ChatClient(base_url={self.base_url!r}, model={self.model!r})"

    @property
    def url(self) -> str:
        """The chat-completions endpoint."""
        return f"{self.base_url}/chat/completions"

    # -- public ------------------------------------------------------------------------------

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any], *,
                      name: str, max_tokens: int = 512, temperature: float = 0.0) -> Any:
        """The JSON value the model answers ``messages`` with, asked to follow ``schema``.

        Raises :class:`LLMUnavailableError`, :class:`LLMResponseError` or
        :class:`LLMInvalidOutputError` (not JSON, cut off, or not the schema's top type).
        """
        if not isinstance(messages, list) or not messages:
            raise UsageError("chat client: messages must be a non-empty list")
        if not _NAME.match(str(name)):
            raise UsageError(f"chat client: schema name must match {_NAME.pattern}, "
                             f"got {name!r}")
        max_tokens = positive(_WHO, "max_tokens", max_tokens, int, 1)
        temperature = positive(_WHO, "temperature", temperature, float, 0.0)

        def body(structured: bool) -> dict[str, Any]:
            return chat_request(self.model, messages, schema=schema, name=name,
                                max_tokens=max_tokens, temperature=temperature,
                                structured=structured)

        reply = self._chat(body)
        try:
            completion = read_completion(reply)
        except NotACompletionError as exc:
            raise self._response_error(f"answered something that is not a chat completion: "
                                       f"{exc}") from None
        if self.check_model and not same_model(self.model, completion.model):
            raise self._response_error(
                f"serves model {completion.model!r}, not {self.model!r} (name the served model "
                f"with --model, or leave --model out)")
        return self._output(completion, schema, max_tokens)

    def models(self) -> list[str]:
        """The model ids the server lists at ``{base_url}/models``."""
        url = f"{self.base_url}/models"
        try:
            body = self._retrying(lambda: request(url, None, api_key=self._api_key,
                                                  timeout=self.timeout))
            data = json.loads(body).get("data")
            return [str(item["id"]) for item in data]
        except RequestFailed as failure:
            raise self._failure_error(failure, url) from None
        except (ValueError, TypeError, KeyError, AttributeError):
            raise self._response_error("answered a model list that is not a list of ids",
                                       url) from None

    # -- transport ---------------------------------------------------------------------------

    def _chat(self, body: Callable[[bool], dict[str, Any]]) -> bytes:
        try:
            try:
                return self._post(body(self.structured_output))
            except RequestFailed as failure:
                if not (self.structured_output and rejects_structured_output(failure)):
                    raise
                log.warning("chat client: %s refused the json_schema response format (%s); "
                            "asking without it from now on", self.url, self._clean(failure))
                self.structured_output = False
                return self._post(body(False))
        except RequestFailed as failure:
            raise self._failure_error(failure, self.url) from None

    def _post(self, payload: dict[str, Any]) -> bytes:
        data = json.dumps(payload).encode("utf-8")
        return self._retrying(lambda: request(self.url, data, api_key=self._api_key,
                                              timeout=self.timeout))

    def _retrying(self, send: Callable[[], bytes]) -> bytes:
        return with_retries(send, max_retries=self.max_retries, backoff=self.backoff,
                            sleep=self._sleep, on_retry=self._log_retry)

    def _log_retry(self, attempt: int, attempts: int, failure: RequestFailed,
                   delay: float) -> None:
        log.warning("chat client: %s attempt %d/%d failed (%s); retrying in %.2fs",
                    self.url, attempt, attempts, self._clean(failure), delay)

    # -- output ------------------------------------------------------------------------------

    def _output(self, completion: Completion, schema: dict[str, Any], max_tokens: int) -> Any:
        text = completion.content
        if completion.finish_reason == "length":
            raise self._invalid(f"cut the output off at max_tokens={max_tokens} "
                                f"(finish_reason 'length'): {_excerpt(text or '')}", text)
        if completion.refusal and not text:
            raise self._invalid(f"the model refused: {completion.refusal}", completion.refusal)
        if not text or not text.strip():
            raise self._invalid("returned empty content", text)
        try:
            return parse_json_text(text, schema_types(schema))
        except NotJSONError as exc:
            what = str(exc) if exc.found else "output that is not valid JSON"
            raise self._invalid(f"returned {what}: {_excerpt(text)}", text) from None

    # -- errors ------------------------------------------------------------------------------

    def _clean(self, text: Any) -> str:
        return _one_line(redact(str(text), self._api_key))

    def _failure_error(self, failure: RequestFailed, url: str) -> Exception:
        if failure.transient:
            return LLMUnavailableError(self._clean(
                f"llm: {url} unavailable after {attempts_text(failure)}: {failure}"))
        if _model_missing(failure):
            return self._response_error(f"does not serve model {self.model!r}: {failure}", url)
        hint = (f" (check the key in {self.api_key_env})"
                if failure.status in (401, 403) else "")
        return self._response_error(f"answered {failure}{hint}", url)

    def _response_error(self, what: str, url: str | None = None) -> LLMResponseError:
        return LLMResponseError(self._clean(f"llm: {url or self.url} {what}"))

    def _invalid(self, what: str, content: str | None) -> LLMInvalidOutputError:
        return LLMInvalidOutputError(
            self._clean(f"llm: {self.url} {what}"),
            content=None if content is None else redact(content, self._api_key))
