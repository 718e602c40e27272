"""The `ragd` command as a user runs it: real subprocesses, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import VOCABULARY

TOY = json.dumps({"kind": "toy", "vocabulary": list(VOCABULARY)})


def ragd(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "RAGD_HOME": str(cwd / "home"), **(env or {})}
    full_env.pop("RAGD_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "ragd.cli", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "logs.md").write_text("# Logging\n\nAudit logs must be retained for 400 days.\n")
    (docs / "ear.txt").write_text("A license is required to export items subject to the EAR.\n")
    (docs / "ipc.txt").write_text("The punishment for cheating or theft is imprisonment.\n")
    (docs / "bad.txt").write_bytes(b"\xff\xfe\x00bad")
    return docs


def test_ingest_search_stats_delete(tmp_path, corpus):
    run = ragd("ingest", str(corpus), "--embedder", TOY, "--tag", "t1", "--meta", "year=2020",
               cwd=tmp_path)
    assert run.returncode == 1, run.stderr  # bad.txt failed; the three others are stored
    assert "4 documents: 3 new, 0 changed, 0 unchanged, 1 failed" in run.stdout
    assert "bad.txt" in run.stderr

    again = ragd("ingest", str(corpus), "--tag", "t1", "--meta", "year=2020", "--json",
                 cwd=tmp_path)
    summary = json.loads(again.stdout)
    assert (summary["unchanged"], summary["chunks"]) == (3, 0)

    found = ragd("search", "audit logs retained", "--json", "-k", "2", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert results[0]["doc_id"] == "logs.md" and len(results) == 2
    assert results[0]["metadata"]["year"] == 2020 and results[0]["tags"] == ["t1"]

    text = ragd("search", "export license", "--mode", "lexical", cwd=tmp_path)
    assert "ear.txt" in text.stdout and "#0" in text.stdout and "lexical" in text.stdout

    filtered = ragd("search", "export", "--meta", "year=1999", "--json", cwd=tmp_path)
    assert json.loads(filtered.stdout)["results"] == []

    stats = json.loads(ragd("stats", "--json", cwd=tmp_path).stdout)
    assert stats["collections"][0]["documents"] == 3

    assert ragd("delete", "ear.txt", cwd=tmp_path).returncode == 0
    missing = ragd("delete", "ear.txt", cwd=tmp_path)
    assert missing.returncode == 2 and "no document 'ear.txt'" in missing.stderr


@pytest.mark.parametrize("args, message", [
    (("search", ""), "query is empty"),
    (("search", "x" * 2001), "limit is 2000"),
    (("search", "anything", "--collection", "nope"), "unknown collection 'nope'"),
    (("ingest", "does/not/exist"), "no such file or directory"),
    (("search", "q", "--meta", "novalue"), "key=value"),
])
def test_user_mistakes_exit_2_with_one_line(tmp_path, corpus, args, message):
    assert ragd("ingest", str(corpus), "--embedder", TOY, cwd=tmp_path).returncode == 1
    run = ragd(*args, cwd=tmp_path)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_no_store_yet_and_model_mismatch(tmp_path, corpus):
    run = ragd("search", "anything", cwd=tmp_path)
    assert run.returncode == 2 and "run `ragd ingest PATH` first" in run.stderr
    assert ragd("ingest", str(corpus), "--embedder", TOY, cwd=tmp_path).returncode == 1
    clash = ragd("ingest", str(corpus), "--embedder", "minilm", cwd=tmp_path)
    assert clash.returncode == 2
    assert "all-MiniLM-L6-v2" in clash.stderr and "toy-bow-" in clash.stderr
    assert "Traceback" not in clash.stderr


def test_ingest_takes_the_environment_s_embedder_else_the_profile_s(tmp_path, corpus):
    """$RAGD_EMBEDDER names a new collection's model as --embedder does; with neither, the
    profile's [embedding] model (the ear profile's is minilm)."""
    assert ragd("ingest", str(corpus), "--collection", "a", cwd=tmp_path,
                env={"RAGD_EMBEDDER": TOY}).returncode == 1
    assert ragd("ingest", str(corpus), "--collection", "b", "--profile", "ear",
                "--include", "*.txt", cwd=tmp_path).returncode == 1
    stats = {c["collection"]: c for c in json.loads(ragd("stats", "--json", cwd=tmp_path).stdout)[
        "collections"]}
    assert stats["a"]["embed_model"].startswith("toy-bow-")
    assert stats["b"]["embed_model"] == "all-MiniLM-L6-v2"


def test_usage_error_from_argparse_is_exit_2(tmp_path):
    run = ragd("search", cwd=tmp_path)
    assert run.returncode == 2 and "usage:" in run.stderr


def test_store_option_and_environment(tmp_path, corpus):
    store = tmp_path / "elsewhere.sqlite"
    assert ragd("ingest", str(corpus), "--store", str(store), "--embedder", TOY,
                cwd=tmp_path).returncode == 1  # bad.txt fails, the others are stored
    assert store.exists() and not (tmp_path / "home").exists()
    via_env = ragd("stats", "--json", cwd=tmp_path, env={"RAGD_STORE": str(store)})
    assert json.loads(via_env.stdout)["collections"][0]["documents"] == 3


def test_demo_runs_and_cites(tmp_path):
    run = ragd("demo", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "15 CFR" in run.stdout and "Indian Penal Code" in run.stdout
    assert "Records and Logging Policy" in run.stdout
    assert "19 documents (19 new, 0 failed)" in run.stdout
