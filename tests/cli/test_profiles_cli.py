"""Profiles from the command line: list, show, --profile on ingest and search, calibrate,
and shared options that parse the same before or after the command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from helpers import REPO, VOCABULARY, shared
from ragd.profiles import load_profile

TOY = json.dumps({"kind": "toy", "vocabulary": list(VOCABULARY)})
BOOK = REPO / "tests" / "fixtures" / "rulebook"
LABELLED = REPO / "tests" / "fixtures" / "rulebook-labelled.jsonl"


def ragd(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGD_HOME": str(cwd / "home")}
    env.pop("RAGD_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "ragd.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_profiles_lists_and_shows_every_setting(tmp_path):
    run = ragd("profiles", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert [p["name"] for p in json.loads(run.stdout)] == ["default", "ear", "legal-in",
                                                          "pharma-qa", "rules"]
    run = ragd("profiles", "show", "rules", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    body = run.stdout.split("\n", 1)[1]
    assert tomllib.loads(body) == load_profile("rules").as_dict()
    for key in ("min_relevance = 0.42", "cache_ttl_seconds = 300", "timeout_seconds = 10",
                'chunker = "markdown"', 'target_tokens = "embedder"', "[ingest.metadata.doc_type]"):
        assert key in body
    bad = ragd("profiles", "show", "nope", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "unknown profile 'nope'" in bad.stderr


@pytest.mark.parametrize("before", [True, False])
def test_shared_options_parse_the_same_before_or_after_the_command(tmp_path, before):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("A license is required to export items.\n")
    opts = ["--store", str(tmp_path / "mine"), "--collection", "c1", "--profile", "ear"]
    args = [*opts, "ingest", str(docs), "--embedder", TOY] if before else \
        ["ingest", str(docs), "--embedder", TOY, *opts]
    run = ragd(*args, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "home").exists()  # the default store was not touched
    stats = ragd("stats", "--json", "--store", str(tmp_path / "mine"), cwd=tmp_path)
    [coll] = json.loads(stats.stdout)["collections"]
    assert (coll["collection"], coll["profile"]["name"], coll["documents"]) == ("c1", "ear", 1)
    other = ragd("--store", str(tmp_path / "mine"), "--collection", "c1", "search", "export",
                 "--profile", "rules", cwd=tmp_path)
    assert other.returncode == 2 and "created with profile 'ear', not 'rules'" in other.stderr


def test_a_corpus_file_proposes_the_ear_profile_for_a_new_collection(tmp_path):
    corpus = tmp_path / "ear.v1.jsonl"
    lines = shared("ear-corpus", "ear-parts-736-746.v1.jsonl").read_text().splitlines()[:20]
    corpus.write_text("\n".join(lines) + "\n")
    run = ragd("ingest", str(corpus), "--embedder", TOY, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "profile: ear (the input is a retrieval-corpus.v1 corpus" in run.stderr
    assert "profile 'ear'" in run.stdout


def test_rules_profile_from_the_cli_and_calibrate(tmp_path):
    run = ragd("ingest", str(BOOK), "--profile", "rules", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert set(result) == {"job_id", "documents_processed", "documents_failed",
                           "embedding_count", "errors", "warnings", "duration_seconds"}
    assert (result["documents_processed"], result["documents_failed"]) == (7, 0)

    run = ragd("search", "Barricade rules", "--json", "--context-key", "chan:1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    ctx = json.loads(run.stdout)
    assert set(ctx) == {"context_id", "query_id", "document_chunks", "relevance_scores",
                        "total_chunks", "avg_relevance", "meets_threshold"}
    assert ctx["meets_threshold"] and ctx["document_chunks"][0]["metadata"]["section"]
    human = ragd("search", "How do I cook pasta?", cwd=tmp_path)
    assert human.returncode == 0 and "NoDocumentsFoundError" in human.stderr
    for query in ("", "x" * 2001):
        bad = ragd("search", query, cwd=tmp_path)
        assert bad.returncode == 2 and "InvalidQuery" not in bad.stderr
        assert "query is" in bad.stderr

    out = tmp_path / "cal.toml"
    run = ragd("calibrate", str(LABELLED), "--out", str(out), "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert len(report["rows"]) == 101 and report["model"] == "all-MiniLM-L6-v2"
    calibrated = load_profile(str(out))
    assert calibrated.name == "rules"
    # the shipped profile holds the calibrated value (re-run calibrate if the model changes)
    assert calibrated.retrieval["min_relevance"] == load_profile("rules").retrieval[
        "min_relevance"] == report["best"]["threshold"]
    assert report["best"]["balanced_accuracy"] >= 0.8
