"""The schemas the LLM path sends can be finished within the reply budget: the longest
reply a schema allows, at CHARS_PER_TOKEN characters a token, fits max_tokens (unless the
budget is below one minimal row); every string and array is bounded; keys are enums of
this request's facts. And a reply from another model than the one named is refused."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.answer.llm_path import (CHARS_PER_TOKEN, MAX_QUOTE, MAX_SENTENCE, MAX_SENTENCES,
                                  MIN_TEXT, USEFUL_TEXT, schema_b, schema_c)
from ragd.answer.types import Evidence, Fact
from ragd.errors import LLMResponseError
from ragd.llm import ChatClient, make_client


def facts(n: int, id_len: int, pdf: bool) -> list[Fact]:
    out = []
    for i in range(n):
        fields = {"pdf": f"doc-{i}-{'x' * (i % 7)}.pdf", "page": i * 11 + 1} if pdf else {}
        ev = Evidence(f"E{i + 1}", "doc", f"{i:0{id_len}d}", i, "text", 1.0, 1.0, None, "c",
                      fields)
        out.append(Fact(ev.key, "text", ev, 1.0))
    return out


def longest(schema: dict) -> object:
    """The longest JSON value ``schema`` allows (strings of maxLength wide characters)."""
    kind = schema.get("type")
    if "enum" in schema:
        return max(schema["enum"], key=lambda v: len(json.dumps(v)))
    if kind == "object":
        return {k: longest(v) for k, v in schema["properties"].items()}
    if kind == "array":
        return [longest(schema["items"])] * schema["maxItems"]
    if kind == "string":
        return "w" * schema["maxLength"]
    raise AssertionError(f"unbounded schema part: {schema}")


def bounded(schema: dict) -> None:
    """Every array has maxItems, every free string maxLength, keys are enums."""
    if schema.get("type") == "array":
        assert isinstance(schema.get("maxItems"), int)
        bounded(schema["items"])
    elif schema.get("type") == "object":
        assert schema["additionalProperties"] is False
        assert set(schema["required"]) == set(schema["properties"])
        for name, sub in schema["properties"].items():
            if name in ("chunk_id", "pdf", "page", "confidence"):
                assert "enum" in sub
            bounded(sub)
    elif schema.get("type") == "string" and "enum" not in schema:
        assert isinstance(schema.get("maxLength"), int)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 12), id_len=st.integers(4, 64), pdf=st.booleans(),
       budget=st.integers(64, 4096))
def test_the_longest_allowed_reply_fits_the_budget(n, id_len, pdf, budget):
    fs = facts(n, id_len, pdf)
    fields = ["pdf", "page"] if pdf else []
    for schema, text in ((schema_b(fs, fields, budget), "quote"),
                         (schema_c(fs, fields, budget), "sentence")):
        bounded(schema)
        array = next(iter(schema["properties"].values()))
        row = array["items"]
        size = len(json.dumps(longest(schema)))
        one_row = len(json.dumps(longest(row)))
        if array["maxItems"] > 1 or row["properties"][text]["maxLength"] > MIN_TEXT:
            assert size <= budget * CHARS_PER_TOKEN, (budget, size)
        else:  # the floor: one row with the shortest text, whatever the budget
            assert size <= one_row + 60
        assert row["properties"]["chunk_id"]["enum"] == sorted(f.evidence.chunk_id for f in fs)
        if array["maxItems"] > 1:  # rows are dropped before a text is cut short
            assert row["properties"][text]["maxLength"] >= USEFUL_TEXT
    assert schema_b(fs, fields, budget)["properties"]["relevant_facts"]["maxItems"] <= n
    assert schema_c(fs, fields, budget)["properties"]["answer_sentences"][
        "maxItems"] <= MAX_SENTENCES


def test_a_smaller_budget_gets_a_tighter_schema():
    fs = facts(6, 16, True)
    big, small = schema_b(fs, ["pdf", "page"], 700), schema_b(fs, ["pdf", "page"], 350)
    assert len(json.dumps(longest(small))) < len(json.dumps(longest(big)))
    for schema in (big, small):
        assert MIN_TEXT <= schema["properties"]["relevant_facts"]["items"]["properties"][
            "quote"]["maxLength"] <= MAX_QUOTE
    c = schema_c(fs, [], 2000)["properties"]["answer_sentences"]
    assert c["maxItems"] == MAX_SENTENCES
    assert c["items"]["properties"]["sentence"]["maxLength"] == MAX_SENTENCE
    assert schema_c(fs, [], None)["properties"]["answer_sentences"]["maxItems"] == MAX_SENTENCES


@pytest.mark.parametrize("asked, served, ok", [
    ("test-model", "test-model", True),
    ("gpt-4o", "gpt-4o-2024-08-06", True),
    ("llama3", "llama3:latest", True),
    ("gemma-3-270m-q4_k_m", "/models/gemma-3-270m-Q4_K_M.gguf", True),
    ("llama3:8b", "gemma3-270m", False),
    ("gpt-4", "gpt-4o", False),
    ("default", "anything-at-all", True),  # no --model: whatever the server serves
])
def test_a_reply_from_another_model_is_refused(openai_server, asked, served, ok):
    openai_server.script({"json": {"a": 1}, "model": served})
    client = ChatClient(openai_server.url, asked, sleep=lambda s: None, max_retries=0)
    schema = {"type": "object"}
    if ok:
        assert client.complete_json([{"role": "user", "content": "q"}], schema,
                                    name="x") == {"a": 1}
    else:
        with pytest.raises(LLMResponseError, match=f"serves model '{served}', not '{asked}'"):
            client.complete_json([{"role": "user", "content": "q"}], schema, name="x")


def test_timeout_and_retries_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("RAGD_LLM_TIMEOUT", "2.5")
    monkeypatch.setenv("RAGD_LLM_RETRIES", "0")
    client = make_client("http://127.0.0.1:9/v1", None)
    assert (client.timeout, client.max_retries, client.check_model) == (2.5, 0, False)
    monkeypatch.delenv("RAGD_LLM_TIMEOUT")
    monkeypatch.delenv("RAGD_LLM_RETRIES")
    client = make_client("http://127.0.0.1:9/v1", "m")
    assert (client.timeout, client.max_retries, client.check_model) == (30.0, 3, True)
