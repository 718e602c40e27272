"""ChatClient and the LLM path against a real llama.cpp ``llama-server`` (the tiny Gemma
3 270M, ``tests/support/llama_server.py``): the protocol that exists, and its faults.

Faults (issue 21, each bounded by its timeout, no hang, no traceback): the server killed
mid-request, ragd asking before the server is ready, a server that serves another model,
a slow first token; the retry policy meets real connection errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request

import pytest

from helpers import VOCABULARY
from ragd import ingest, open_collection
from ragd.answer import answer
from ragd.demo import demo_corpus
from ragd.embedding.toy import ToyEmbedder
from ragd.errors import LLMResponseError, LLMUnavailableError
from ragd.llm import ChatClient
from support.llama_server import ALIAS, free_port

pytestmark = pytest.mark.slow

MESSAGES = [{"role": "system", "content": "Answer with JSON only."},
            {"role": "user", "content": "Audit logs must be retained for 400 days. How long "
                                        "must audit logs be retained?"}]
BOUNDED = {"type": "object", "additionalProperties": False, "required": ["answer", "cites"],
           "properties": {"answer": {"type": "string", "maxLength": 120},
                          "cites": {"type": "array", "maxItems": 2,
                                    "items": {"type": "string", "enum": ["E1", "E2"]}}}}
# A schema that cannot be finished in a short budget: what kept running into max_tokens.
UNBOUNDED = {"type": "object", "required": ["items"],
             "properties": {"items": {"type": "array", "items": {"type": "string"}}}}
TMP = ("# License Exception TMP\n\nTools of trade may be exported temporarily under License "
       "Exception TMP. The tools must remain under the effective control of the exporter and "
       "must be returned within one year.\n")
QUESTION = "May tools of trade be exported temporarily under License Exception TMP?"


def client(server, **kwargs) -> ChatClient:
    options = {"timeout": 60.0, "max_retries": 1, "backoff": 0.2, **kwargs}
    return ChatClient(server.url if hasattr(server, "url") else server, ALIAS, **options)


def get(url: str) -> tuple[int, dict]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, json.loads(r.read())


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def tmp_coll(tmp_path_factory):
    root = tmp_path_factory.mktemp("llama-docs")
    (root / "docs").mkdir()
    (root / "docs" / "tmp.md").write_text(TMP)
    toy = ToyEmbedder(list(dict.fromkeys(list(VOCABULARY) + [
        "tools", "trade", "temporarily", "exported", "returned", "control"])))
    profile = root / "small-budget.toml"  # replies of at most 200 tokens: a few seconds
    profile.write_text('extends = "default"\n\n[answer]\nllm_max_tokens = 200\n')
    c = open_collection(root / "store", "docs", toy, create=True, profile=profile)
    ingest([root / "docs"], c)
    yield c
    c.close()


# -- the server as the fixture starts it ---------------------------------------------------


def test_the_server_is_ready_with_the_model_and_the_gemma_template(llama_server):
    assert llama_server.started_s < 30
    assert get(f"{llama_server.root}/health")[0] == 200
    ids = [m["id"] for m in get(f"{llama_server.url}/models")[1]["data"]]
    assert ids == [ALIAS]
    prompt = post(f"{llama_server.root}/apply-template",
                  {"messages": MESSAGES})["prompt"]
    # Gemma turns, the system text inside the first user turn, a model turn opened (the
    # template's leading <bos> is left to the tokenizer, which adds it)
    assert prompt.removeprefix("<bos>").startswith(
        "<start_of_turn>user\nAnswer with JSON only.\n\nAudit logs")
    assert prompt.endswith("<end_of_turn>\n<start_of_turn>model\n")
    assert "<|im_start|>" not in prompt  # not the ChatML fallback
    props = llama_server.metrics()
    assert props["default_generation_settings"]["n_ctx"] == llama_server.context


def test_a_bounded_schema_comes_back_valid_and_within_bounds(llama_server):
    chat = client(llama_server)
    for _ in range(3):
        value = chat.complete_json(MESSAGES, BOUNDED, name="answer", max_tokens=120)
        assert set(value) == {"answer", "cites"}
        assert len(value["answer"]) <= 120 and len(value["cites"]) <= 2
        assert set(value["cites"]) <= {"E1", "E2"}


def test_an_unbounded_schema_is_cut_off_and_the_llm_path_refuses_instead(llama_server,
                                                                         tmp_coll):
    from ragd.errors import LLMInvalidOutputError

    chat = client(llama_server)
    try:
        value = chat.complete_json(MESSAGES, UNBOUNDED, name="items", max_tokens=24)
    except LLMInvalidOutputError as exc:
        assert "max_tokens=24" in str(exc) or "not valid JSON" in str(exc)
    else:  # the model may close the array early; then it is the schema's type
        assert isinstance(value, dict)
    # the LLM path on the same server sends bounded schemas: an answer or a refusal
    a = answer(QUESTION, tmp_coll, llm=chat)
    assert a.status in ("answered", "refused") and a.trace.path == "llm"
    if a.status == "refused":
        assert a.refusal_reason and not a.sentences


# -- faults ---------------------------------------------------------------------------------


def test_a_server_killed_mid_request_refuses_as_unavailable_in_bounded_time(llama_factory,
                                                                            tmp_coll):
    server = llama_factory().start()
    chat = client(server, timeout=30.0, max_retries=2, backoff=0.2)
    watcher = server.kill_when_processing()
    started = time.monotonic()
    a = answer(QUESTION, tmp_coll, llm=chat)
    elapsed = time.monotonic() - started
    watcher.join(timeout=5)
    assert server.killed_mid_request  # killed while it was answering ragd
    assert (a.status, a.refusal_reason) == ("refused", "llm_unavailable")
    assert elapsed < 15, elapsed  # refused connections retried twice, no 30 s timeout


def test_asking_before_the_server_is_ready_is_retried_until_it_is(llama_factory, caplog):
    server = llama_factory()
    server.spawn()  # not waiting for /health: the first attempts meet a closed port or 503
    chat = client(server, max_retries=8, backoff=0.25)
    started = time.monotonic()
    with caplog.at_level("WARNING", logger="ragd.llm"):
        value = chat.complete_json(MESSAGES, BOUNDED, name="answer", max_tokens=60)
    assert set(value) == {"answer", "cites"}
    retried = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert retried, "the server was ready at once: nothing was retried"
    assert any("Connection" in m or "HTTP 503" in m for m in retried), retried
    assert time.monotonic() - started < 60


def test_a_port_nothing_listens_on_is_retried_then_unavailable():
    port = free_port()
    slept: list[float] = []
    chat = ChatClient(f"http://127.0.0.1:{port}/v1", ALIAS, timeout=5, max_retries=2,
                      backoff=0.1, sleep=lambda s: (slept.append(s), time.sleep(s)))
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match="unavailable after 3 attempts.*"
                                                  "ConnectionRefusedError"):
        chat.complete_json(MESSAGES, BOUNDED, name="answer")
    assert slept == [0.1, 0.2]  # doubling backoff between the three attempts
    assert time.monotonic() - started < 3


def test_a_server_serving_another_model_is_a_clear_refusal(llama_server, tmp_coll):
    chat = ChatClient(llama_server.url, "llama3:8b", timeout=60, max_retries=0)
    with pytest.raises(LLMResponseError, match=f"serves model '{ALIAS}', not 'llama3:8b'"):
        chat.complete_json(MESSAGES, BOUNDED, name="answer", max_tokens=40)
    a = answer(QUESTION, tmp_coll, llm=chat)
    assert (a.status, a.refusal_reason) == ("refused", "llm_unavailable")


def test_a_slow_first_token_times_out_within_the_configured_timeout(llama_factory, tmp_coll):
    server = llama_factory().start()
    # ~3000 tokens of prompt: several seconds of prompt processing on one thread before
    # the first token
    long = [{"role": "user", "content": " ".join(["Audit logs must be retained."] * 500)}]
    chat = client(server, timeout=1.0, max_retries=1, backoff=0.1)
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError, match=r"after 2 attempts: timed out after 1s"):
        chat.complete_json(long, BOUNDED, name="answer", max_tokens=40)
    assert time.monotonic() - started < 4  # 2 x 1 s + 0.1 s backoff, and some slack


# -- the command line, as a user runs it ----------------------------------------------------


def ragd(home, *args, env=None, timeout=300) -> subprocess.CompletedProcess:
    full = {**os.environ, "RAGD_HOME": str(home), **(env or {})}
    for name in ("RAGD_DEBUG", "RAGD_LLM_URL", "RAGD_LLM_MODEL"):
        full.pop(name, None)
    return subprocess.run([sys.executable, "-m", "ragd.cli", *args], env=full,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("demo-home")
    run = ragd(home, "ingest", str(demo_corpus()), "--profile", "ear", "--exclude", "SOURCE.txt")
    assert run.returncode == 0, run.stderr
    return home


def test_ragd_ask_llm_answers_or_refuses_with_the_profile_budgets(llama_server, demo_home):
    started = time.monotonic()
    run = ragd(demo_home, "ask", "How long must audit logs be retained?", "--llm",
               llama_server.url, "--json", env={"RAGD_LLM_TIMEOUT": "120"})
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    data = json.loads(run.stdout)
    assert data["trace"]["path"] == "llm"
    evidence = {e["chunk_id"] for e in data["evidence"]}
    if data["status"] == "answered":
        assert data["sentences"]
        assert all(c["chunk_id"] in evidence for s in data["sentences"]
                   for c in s["citations"])
    else:
        assert data["refusal_reason"] and not data["sentences"]
    print(f"ragd ask --llm (ear profile, 700-token budget): {time.monotonic() - started:.1f} s "
          f"{data['status']} {data['refusal_reason']} {data['trace']['timings_ms']}")


def test_ragd_ask_names_the_fault_and_never_prints_a_traceback(llama_server, demo_home,
                                                              tmp_path):
    # the collection's own profile, with a short context and reply: the model named is
    # checked on the reply, so a long prompt and reply only make the test wait
    short = tmp_path / "ear-short.toml"
    short.write_text('name = "ear"\nextends = "ear"\n\n[context]\nmax_tokens = 120\n'
                     'max_chunks = 1\n\n[answer]\nllm_max_tokens = 48\n')
    run = ragd(demo_home, "ask", "How long must audit logs be retained?", "--llm",
               llama_server.url, "--model", "llama3:8b", "--profile", str(short))
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert "refused: llm_unavailable" in run.stderr
    assert f"serves model '{ALIAS}', not 'llama3:8b'" in run.stderr
    dead = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    run = ragd(demo_home, "ask", "How long must audit logs be retained?", "--llm", dead,
               env={"RAGD_LLM_RETRIES": "1", "RAGD_LLM_TIMEOUT": "5"})
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert "refused: llm_unavailable" in run.stderr and "ConnectionRefusedError" in run.stderr
    assert time.monotonic() - started < 60
