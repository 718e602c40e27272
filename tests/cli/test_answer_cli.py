"""`ragd ask`, `ragd verify` and `ragd eval qa` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import VOCABULARY

WORDS = list(dict.fromkeys(list(VOCABULARY) + ["audit", "logs", "retained", "days", "tools",
                                               "trade", "temporarily", "exported"]))
TOY = json.dumps({"kind": "toy", "vocabulary": WORDS})


def ragd(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGD_HOME": str(cwd / "home")}
    env.pop("RAGD_DEBUG", None)
    env.pop("RAGD_LLM_URL", None)
    return subprocess.run([sys.executable, "-m", "ragd.cli", *args], cwd=cwd, env=env,
                          input=stdin, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("answer-cli")
    docs = root / "docs"
    docs.mkdir()
    (docs / "policy.md").write_text(
        "# Logging policy\n\n## Retention\n\nAudit logs must be retained for 400 days. Older "
        "logs are deleted after review by the security team.\n")
    (docs / "tmp.md").write_text(
        "# Export notes\n\nTools of trade may be exported temporarily under License Exception "
        "TMP when they stay under the exporter's effective control.\n")
    run = ragd("ingest", str(docs), "--embedder", TOY, cwd=root)
    assert run.returncode == 0, run.stderr
    return root


def test_ask_prints_numbered_cited_sentences(home):
    run = ragd("ask", "How long must audit logs be retained?", cwd=home)
    assert run.returncode == 0, run.stderr
    first = run.stdout.splitlines()[0]
    assert first == "1. Audit logs must be retained for 400 days. [Logging policy]"
    assert "Confidence:" in run.stdout


def test_ask_json_is_the_documented_answer_shape(home):
    run = ragd("ask", "How long must audit logs be retained?", "--json", cwd=home)
    data = json.loads(run.stdout)
    assert set(data) == {"question", "profile", "status", "refusal_reason", "answer",
                         "sentences", "confidence", "evidence", "facts", "trace"}
    assert data["status"] == "answered" and data["refusal_reason"] is None
    assert data["confidence"] in ("High", "Medium", "Low")
    ids = {e["chunk_id"] for e in data["evidence"]}
    for s in data["sentences"]:
        assert s["citations"] and all(c["chunk_id"] in ids for c in s["citations"])
        assert set(s["citations"][0]) >= {"doc_id", "chunk_id", "section_id", "citation"}
    assert set(data["trace"]) >= {"retrieved", "accepted", "rejected", "fallback_used",
                                  "timings_ms", "refused_by"}
    assert data["trace"]["refused_by"] is None            # answered
    assert data["trace"]["read_as"] is None               # read as asked


def test_a_refusal_is_the_exact_text_and_exits_0(home):
    run = ragd("ask", "What does ITAR say about USML defense articles?", "--json", cwd=home)
    assert run.returncode == 0
    data = json.loads(run.stdout)
    assert data["status"] == "refused" and data["sentences"] == []
    assert data["answer"] == "I cannot answer that from the documents I have."
    assert data["refusal_reason"] == "low_relevance"  # the cross-encoder finds no answer
    assert data["trace"]["refused_by"] == "validator cross_encoder"
    # on topic, but about a regime the documents never mention
    named = json.loads(ragd("ask", "How long must audit logs be retained under HIPAA?", "--json",
                            cwd=home).stdout)
    assert (named["status"], named["refusal_reason"]) == ("refused", "not_in_documents")
    assert named["trace"]["refused_by"] == "outside_terms: hipaa"
    empty = json.loads(ragd("ask", "", "--json", cwd=home).stdout)
    assert (empty["status"], empty["refusal_reason"]) == ("refused", "invalid_query")
    assert empty["trace"]["refused_by"] == "question"
    # the text output says which check refused, on stderr beside the reason
    text = ragd("ask", "How long must audit logs be retained under HIPAA?", cwd=home)
    assert text.returncode == 0
    assert "refused: not_in_documents (outside_terms: hipaa)" in " ".join(text.stderr.split())


def test_a_question_read_otherwise_says_so_on_stderr(home, tmp_path):
    """With ``focus_words``, a long question is read as its ask: the answer is the same
    text contract on stdout, and stderr says what was read."""
    prof = tmp_path / "focus.toml"
    prof.write_text('name = "default"\nextends = "default"\n[retrieval]\nfocus_words = 12\n')
    story = ("We keep audit trails and logs for every production system, and the auditors "
             "asked us about them last week, so how long must audit logs be retained?")
    run = ragd("ask", story, "--profile", str(prof), cwd=home)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == (
        "1. Audit logs must be retained for 400 days. [Logging policy]")
    assert "read as: how long must audit logs be retained?" in " ".join(run.stderr.split())
    plain = ragd("ask", "How long must audit logs be retained?", cwd=home)
    assert "read as" not in plain.stderr


def test_audit_log_when_the_profile_asks_for_it(home, tmp_path):
    prof = tmp_path / "audited.toml"
    prof.write_text('name = "default"\n[answer]\naudit = true\n')
    run = ragd("ask", "How long must audit logs be retained?", "--profile", str(prof),
               cwd=home)
    assert run.returncode == 0, run.stderr
    lines = (home / "home" / "logs" / "answers.jsonl").read_text().splitlines()
    record = json.loads(lines[-1])
    assert record["status"] == "answered" and record["query"].startswith("How long")
    assert {"retrieved", "accepted", "rejected", "used", "tokens", "timings_ms"} <= set(record)
    assert record["refused_by"] is None


def test_verify_checks_each_sentence(home):
    payload = {"question": "q", "answer_sentences": [
        {"sentence": "Audit logs must be retained for 400 days.", "citations": ["policy.md"]},
        {"sentence": "Audit logs must be retained for 9 years.", "citations": ["policy.md"]},
        {"sentence": "Anything goes.", "citations": ["nowhere.md"]}]}
    run = ragd("verify", "--json", cwd=home, stdin=json.dumps(payload))
    assert run.returncode == 1
    verdicts = json.loads(run.stdout)["sentences"]
    assert [v["status"] for v in verdicts] == ["supported", "unsupported", "unknown_citation"]
    good = {"question": "q", "answer_sentences": payload["answer_sentences"][:1]}
    assert ragd("verify", cwd=home, stdin=json.dumps(good)).returncode == 0
    assert ragd("verify", cwd=home, stdin="{nope").returncode == 2


def test_eval_qa_reports_and_gates(home, tmp_path):
    golden = tmp_path / "g.jsonl"
    golden.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a1", "question": "How long must audit logs be retained?",
         "expected_not_found": False, "must_include": ["400 days"], "min_citations": 1,
         "expected_sections": ["policy.md"]},
        {"id": "u1", "question": "What does ITAR say about USML articles?",
         "expected_not_found": True}]) + "\n")
    out = tmp_path / "run.json"
    run = ragd("eval", "qa", str(golden), "--gate", "hallucination==0", "--gate", "pass>=0.95",
               "--out", str(out), "--json", cwd=home)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = json.loads(run.stdout)
    assert summary["metrics"]["pass"] == 1.0 and summary["metrics"]["hallucination"] == 0.0
    assert summary["metrics"]["correct_refusal"] == 1.0
    failing = ragd("eval", "qa", str(golden), "--gate", "p95_ms<0.001", "--compare", str(out),
                   cwd=home)
    assert failing.returncode == 1 and "gate failed" in failing.stderr
    assert "before" in failing.stdout


def test_eval_qa_writes_an_html_report(home, tmp_path):
    golden = tmp_path / "g.jsonl"
    golden.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a1", "question": "How long must audit logs be retained?",
         "expected_not_found": False, "must_include": ["400 days"]},
        {"id": "u1", "question": "What does <b>ITAR</b> say?", "expected_not_found": True}])
        + "\n")
    old, report = tmp_path / "old.json", tmp_path / "r" / "report.html"
    assert ragd("eval", "qa", str(golden), "--out", str(old), cwd=home).returncode == 0
    run = ragd("eval", "qa", str(golden), "--gate", "pass>=0.95", "--compare", str(old),
               "--report", str(report), cwd=home)
    assert run.returncode == 0, run.stdout + run.stderr
    page = report.read_text("utf-8")
    assert "400 days" in page  # the answer is shown
    assert "What does &lt;b&gt;ITAR&lt;/b&gt; say?" in page and "<b>ITAR" not in page
    assert "<th>before</th>" in page and "qa:pass&gt;=0.95" in page
    assert "<td class='pass'>PASS</td>" in page


def test_sources_are_listed_in_the_order_the_answer_cites_them():
    from ragd.answer.types import Answer, Evidence, Sentence
    from ragd.cli.ask import cited_order

    def ev(key: str) -> Evidence:
        return Evidence(key=key, doc_id=f"{key}.pdf", chunk_id=f"c{key}", chunk_index=0,
                        score=0.5, relevance=0.5, section_id=None, citation=f"{key}.pdf, p1",
                        text="t", title="", context="")

    e1, e2, e3 = ev("E1"), ev("E2"), ev("E3")
    a = Answer("q", "default", "answered", "text", sentences=(
        Sentence("first", (e2,)), Sentence("second", (e1, e2))), evidence=(e1, e2, e3))
    assert [e.key for e in cited_order(a)] == ["E2", "E1", "E3"]   # uncited last
