"""The LLM path against a real llama.cpp server and a model that hallucinates.

The bundled Gemma 3 270M base model (``tests/support/llama_server.py``) invents facts,
cites at random and never abstains: the adversary the answer validators exist for. Over
40 fixed questions - 20 on the demo corpus, 20 of the EAR golden set on the whole EAR
corpus; half answerable, half not - every answer must hold the guarantees whatever the
model said: every emitted sentence is supported by the evidence it cites (re-checked
here), every citation is retrieved evidence, an answer with no supported sentence is a
refusal with a reason, and nothing raises. What the model tried and what the validators
did is tallied and printed (and written to ``$RAGD_LLM_REPORT`` when set): docs/llm.md
holds the table.

The suite asks every fifth question of each of the four lists (8 of the 40: 2 + 2 on the
demo corpus, 2 + 2 on EAR), which keeps its run near 45 s; ``RAGD_LLM_FULL=1`` asks all 40
(what docs/llm.md reports).

To keep the run short the collections use the ``ear`` profile with a smaller context
(2 passages, 200 words) and reply budget (160 tokens); ``tests/llm/test_llama_server.py``
runs ``ragd ask --llm`` with the profile's own budgets.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from helpers import REPO, shared
from ragd import ingest, open_collection
from ragd.answer import answer
from ragd.answer.pipeline import REASONS
from ragd.answer.support import supported
from ragd.demo import demo_corpus
from ragd.ingest.loaders import LoadOptions
from ragd.llm import make_client

pytestmark = pytest.mark.slow

BUDGET_PROFILE = """\
name = "ear-llm-test"
extends = "ear"

[context]
max_tokens = 200
max_chunks = 2

[answer]
llm_max_tokens = 160
"""

DEMO_ANSWERABLE = [
    "How long must audit logs be retained?",
    "How long must records of exports be kept?",
    "Who may read production audit logs?",
    "When must a suspected loss of logs be reported?",
    "What is the punishment for murder?",
    "What is the punishment for theft?",
    "What does the Indian Penal Code say theft is?",
    "What is a License Exception?",
    "Which countries are subject to comprehensive sanctions under part 746?",
    "What is forgery?",
]
DEMO_UNANSWERABLE = [
    "How much does an export license cost?",
    "What is the capital of France?",
    "How many vacation days do employees get each year?",
    "What is the penalty for speeding in Delhi?",
    "Which encryption algorithm must backups use?",
    "Who is the current Secretary of Commerce?",
    "What is the fee to file a patent application in India?",
    "How long must passwords be?",
    "What is the maximum fine for violating the EAR?",
    "How many days of parental leave does the policy grant?",
]
FULL = os.environ.get("RAGD_LLM_FULL") == "1"
EAR_FIXTURE = REPO / "tests" / "fixtures" / "ear_vectors.npz"
EAR_GOLDEN = REPO / "bench" / "golden" / "ear_qa.jsonl"


def _sample(questions: list) -> list:
    """All of them with ``RAGD_LLM_FULL=1``, else every fifth (the first and the sixth)."""
    return list(questions) if FULL else list(questions)[::5]


def ear_questions() -> list[tuple[str, bool]]:
    """The first 10 answerable and the first 10 unanswerable EAR golden questions."""
    rows = [json.loads(line) for line in EAR_GOLDEN.read_text().splitlines() if line.strip()]
    yes = [r["question"] for r in rows if not r["expected_not_found"]][:10]
    no = [r["question"] for r in rows if r["expected_not_found"]][:10]
    return [(q, True) for q in yes] + [(q, False) for q in no]


@pytest.fixture(scope="module")
def profile_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("profile") / "ear-llm-test.toml"
    path.write_text(BUDGET_PROFILE)
    return path


@pytest.fixture(scope="module")
def demo(tmp_path_factory, profile_path):
    coll = open_collection(tmp_path_factory.mktemp("demo") / "store", "demo", create=True,
                           profile=profile_path)
    ingest([demo_corpus()], coll, options=LoadOptions(exclude=("SOURCE.txt",)))
    yield coll
    coll.close()


@pytest.fixture(scope="module")
def ear(tmp_path_factory, profile_path):
    from ragd.embedding.onnx import MiniLMEmbedder
    from support.embed_cache import CachedEmbedder

    embedder = CachedEmbedder(MiniLMEmbedder(), CachedEmbedder.load_vectors(EAR_FIXTURE),
                              allow_misses=False)
    coll = open_collection(tmp_path_factory.mktemp("ear") / "store", "ear", embedder,
                           create=True, profile=profile_path)
    report = ingest([shared("ear-corpus", "ear-parts-736-746.v1.jsonl")], coll)
    assert report.failed == 0
    embedder.allow_misses = True  # questions are embedded live
    yield coll
    coll.close()


def check(a, coll) -> list[str]:
    """What is wrong with one answer against the guarantees (empty: nothing)."""
    problems = []
    data = a.to_dict()
    refusal_text = coll.profile.data["answer"]["refusal_text"]
    threshold = float(coll.profile.data["answer"]["support_threshold"])
    retrieved = {e["chunk_id"]: e for e in data["facts"]} if data["facts"] else {}
    evidence = {e.chunk_id: e for e in a.evidence}
    if a.status == "refused":
        if a.refusal_reason not in REASONS:
            problems.append(f"refusal without a known reason: {a.refusal_reason!r}")
        if a.answer != refusal_text or a.sentences:
            problems.append("a refusal carries text or sentences")
        return problems
    if a.status != "answered" or not a.sentences:
        problems.append(f"answered with no sentence (status {a.status!r})")
    for s in a.sentences:
        if not s.citations:
            problems.append(f"uncited sentence: {s.text!r}")
        for e in s.citations:
            if e.chunk_id not in evidence or e.chunk_id not in retrieved:
                problems.append(f"citation outside the retrieved evidence: {e.chunk_id}")
        reason = supported(s.text, [e.text for e in s.citations], threshold)
        if reason is not None:
            problems.append(f"{reason} sentence emitted: {s.text!r}")
    return problems


class Counting:
    """The client, counting the calls of each phase and the replies that were unusable."""

    def __init__(self, client) -> None:
        self.client = client
        self.calls: Counter = Counter()

    def complete_json(self, messages, schema, *, name, max_tokens=512, **kwargs):
        from ragd.errors import LLMError

        self.calls[f"{name}_calls"] += 1
        try:
            return self.client.complete_json(messages, schema, name=name,
                                             max_tokens=max_tokens, **kwargs)
        except LLMError as exc:
            self.calls[f"{name}_{type(exc).__name__}"] += 1
            raise


def test_validators_hold_against_a_hallucinating_model(llama_server, demo, ear):
    client = make_client(llama_server.url, None)
    client.timeout = 120.0  # -t 1 on a shared machine: slow, never hung
    counting = Counting(client)
    ear_runs = ear_questions()
    runs = ([(demo, q, True) for q in _sample(DEMO_ANSWERABLE)]
            + [(demo, q, False) for q in _sample(DEMO_UNANSWERABLE)]
            + [(ear, q, ok) for q, ok in _sample(ear_runs[:10])]
            + [(ear, q, ok) for q, ok in _sample(ear_runs[10:])])
    asked = 40 if FULL else 8
    assert len(runs) == asked and sum(ok for _, _, ok in runs) == asked // 2
    tally: Counter = Counter()
    dropped: Counter = Counter()
    refusals: Counter = Counter()
    problems: list[str] = []
    started = time.perf_counter()
    for coll, question, answerable in runs:
        before = sum(counting.calls.values())
        try:
            a = answer(question, coll, llm=counting)
        except Exception as exc:  # the guarantee under test: nothing raises
            problems.append(f"{question!r} raised {type(exc).__name__}: {exc}")
            tally["exceptions"] += 1
            continue
        tally["answers"] += 1
        tally["reached_model"] += sum(counting.calls.values()) > before
        assert a.trace.path == "llm"
        problems += [f"{question!r}: {p}" for p in check(a, coll)]
        proposed, drops = a.trace.proposed, len(a.trace.dropped)
        tally["proposed"] += proposed
        tally["emitted"] += len(a.sentences)
        for d in a.trace.dropped:
            dropped[f"{d.validator}/{d.reason}"] += 1
        if a.status == "refused":
            refusals[a.refusal_reason] += 1
            tally["refused_answerable" if answerable else "refused_unanswerable"] += 1
            if drops > proposed:
                problems.append(f"{question!r}: {drops} dropped of {proposed} proposed")
            tally["withheld_by_answer_gates"] += proposed - drops  # kept, then refused
        else:
            tally["answered_answerable" if answerable else "answered_unanswerable"] += 1
            if proposed != len(a.sentences) + drops:
                problems.append(f"{question!r}: {proposed} proposed != "
                                f"{len(a.sentences)} emitted + {drops} dropped")
    report = {"tally": dict(tally), "dropped": dict(dropped), "refusals": dict(refusals),
              "calls": dict(counting.calls),
              "wall_seconds": round(time.perf_counter() - started, 1),
              "server_start_seconds": round(llama_server.started_s, 2)}
    print("\nreal-model validators report:", json.dumps(report, indent=1, sort_keys=True))
    if os.environ.get("RAGD_LLM_REPORT"):
        Path(os.environ["RAGD_LLM_REPORT"]).write_text(json.dumps(report, indent=1,
                                                                  sort_keys=True))
    assert not problems, "\n".join(problems)
    assert tally["answers"] == asked and tally["exceptions"] == 0
    # the run exercised the model: it proposed sentences, and the validators had work
    assert tally["reached_model"] >= asked // 4, report
    assert tally["proposed"] >= asked // 4, report
