"""No drift: for 20 queries and 10 questions, the library, REST and MCP (HTTP) return the
same JSON; the CLI's --json is the same too (one of each, it runs in a subprocess)."""

from __future__ import annotations

import json
import subprocess
from functools import partial

import pytest

from ragd.service import models as m
from service.mcp_clients import call_all, http_client, structured
from service.svc import AUTH, PYTHON, ragd_env

QUERIES = [  # (query, request) over the demo (ear) and policies (default) collections
    ("Is a license required to export items subject to the EAR?", {}),
    ("general prohibitions", {"k": 5}),
    ("15 CFR 744.21", {}),
    ("military end users", {"mode": "vector"}),
    ("military end users", {"mode": "lexical"}),
    ("license exception", {"fusion": "weighted"}),
    ("what is the punishment for cheating", {"k": 3}),
    ("murder", {}),
    ("theft of property", {"mode": "lexical", "k": 4}),
    ("how long must audit logs be kept", {}),
    ("audit logs", {"tags_any": ["ear"]}),
    ("activities of U.S. persons", {"k": 2}),
    ("reexport", {"k": 20}),
    ("audit logs", {"collection": "policies"}),
    ("passwords", {"collection": "policies", "tags_all": ["security"]}),
    ("backups restored", {"collection": "policies", "mode": "vector", "k": 3}),
    ("hotel costs", {"collection": "policies", "fusion": "weighted"}),
    ("badge", {"collection": "policies", "tags_any": ["facilities"]}),
    ("train journeys", {"collection": "policies", "metadata": {"team": "none"}}),
    ("zebra", {"collection": "policies", "mode": "lexical"}),
]

QUESTIONS = [  # (question, collection)
    ("How long must audit logs be retained?", "policies"),
    ("Who may read production audit logs?", "policies"),
    ("How long are backups kept?", "policies"),
    ("How long must passwords be?", "policies"),
    ("How much are hotel costs reimbursed?", "policies"),
    ("When are lost badges reported?", "policies"),
    ("What is the secret?", "policies"),
    ("How much does an export license cost?", "policies"),
    ("What does ITAR say about USML defense articles?", "policies"),
    ("What are the restrictions on military end users?", "demo"),
]


def _stable(answer: dict) -> dict:
    """An answer without its timings (the only part that varies between runs)."""
    return {**answer, "trace": {k: v for k, v in answer["trace"].items()
                                if k != "timings_ms"}}


def _search_args(query: str, extra: dict) -> dict:
    return {"query": query, **extra}


def test_search_parity_library_rest_mcp(engine, client, live):
    expected = [engine.search(q, **{k: v for k, v in extra.items()}) for q, extra in QUERIES]
    rest = [client.post("/v1/search", json=_search_args(q, extra)).json() for q, extra in QUERIES]
    results = call_all(partial(http_client, live.url, AUTH),
                       [("search", _search_args(q, extra)) for q, extra in QUERIES])
    mcp = [structured(r) for r in results]
    for i, (lib, r, t) in enumerate(zip(expected, rest, mcp)):
        m.SearchResponse.model_validate(lib)
        assert r == lib, QUERIES[i]
        assert t == lib, QUERIES[i]
    assert sum(bool(e["results"]) for e in expected) >= 18


def test_ask_parity_library_rest_mcp(engine, client, live):
    expected = [_stable(engine.ask(q, collection=c)) for q, c in QUESTIONS]
    rest = [_stable(client.post("/v1/ask", json={"question": q, "collection": c}).json())
            for q, c in QUESTIONS]
    results = call_all(partial(http_client, live.url, AUTH),
                       [("ask", {"question": q, "collection": c}) for q, c in QUESTIONS])
    mcp = [_stable(structured(r)) for r in results]
    for i, (lib, r, t) in enumerate(zip(expected, rest, mcp)):
        assert r == lib, QUESTIONS[i]
        assert t == lib, QUESTIONS[i]
    statuses = [e["status"] for e in expected]
    assert statuses.count("answered") >= 5 and statuses.count("refused") >= 2, statuses


@pytest.mark.parametrize("command", [
    ["search", "theft of property", "-k", "4", "--mode", "lexical"],
    ["ask", "How long must audit logs be retained?", "--collection", "policies"],
])
def test_cli_json_is_the_same(command, service_home, engine, client):
    run = subprocess.run([PYTHON, "-m", "ragd.cli", *command, "--json",
                          "--store", str(service_home / "home"),
                          *(["--collection", "demo"] if command[0] == "search" else [])],
                         env=ragd_env(service_home), cwd=service_home, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    cli = json.loads(run.stdout)
    if command[0] == "search":
        assert cli == client.post("/v1/search", json={"query": command[1], "k": 4,
                                                      "mode": "lexical"}).json()
    else:
        assert _stable(cli) == _stable(client.post("/v1/ask", json={
            "question": command[1], "collection": "policies"}).json())
