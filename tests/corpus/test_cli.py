"""`ragd corpus validate` as a user runs it: real subprocesses, exit codes 0/1/2, output.

Runs through ``python -m ragd.cli``, as the installed ``ragd`` command does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import shared

FIXTURES = Path(__file__).parent / "fixtures"
GOOD = FIXTURES / "v1-good.jsonl"


@pytest.fixture
def ragd(tmp_path):
    def run(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "RAGD_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
        env.pop("RAGD_DEBUG", None)
        return subprocess.run([sys.executable, "-m", "ragd.cli", "corpus", "validate", *args],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    return run


def test_valid_corpus_exits_0(ragd):
    run = ragd(str(GOOD))
    assert run.returncode == 0, run.stderr
    assert f"{GOOD}: 7 documents, valid" in run.stdout and run.stderr == ""


def test_invalid_corpus_exits_1_and_lists_errors(ragd, tmp_path):
    bad = tmp_path / "bad.jsonl"
    lines = GOOD.read_text(encoding="utf-8").splitlines()
    lines[3] = lines[3].replace('"ecfr_snapshot"', '"crawl"')
    lines.append(lines[0])
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = ragd(str(bad))
    assert run.returncode == 1, run.stderr
    out = run.stdout.splitlines()
    assert out[0] == (f"{bad}:4: EAR-736.2(a) source: [source_enum] source 'crawl' is not one "
                      "of ecfr_api, ecfr_snapshot, other")
    assert out[1] == (f"{bad}:8: EAR-736.2 doc_id: [duplicate_doc_id] doc_id 'EAR-736.2' is "
                      "already the doc_id of line 1")
    assert out[-1].startswith(f"{bad}: 8 documents, INVALID: 2 errors "
                              "(duplicate_doc_id 1, source_enum 1), ")


def test_json_report_and_error_cap(ragd, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(x.replace('"ecfr_snapshot"', '"crawl"') + "\n"
                           for x in GOOD.read_text(encoding="utf-8").splitlines()),
                   encoding="utf-8")
    run = ragd(str(bad), "--json", "--max-errors", "2")
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert report["valid"] is False and report["errors_total"] == 6
    assert report["truncated"] is True and len(report["errors"]) == 2
    assert report["errors"][0] == {"line": 1, "doc_id": "EAR-736.2", "field": "source",
                                   "rule": "source_enum", "message": report["errors"][0]["message"]}
    text = ragd(str(bad), "--max-errors", "1")
    assert "5 more errors not listed (--max-errors 6 lists them all)" in text.stdout


def test_usage_errors_exit_2(ragd, tmp_path):
    missing = ragd(str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [f"ragd: error: no such file: "
                                                   f"{tmp_path / 'nope.jsonl'}"]
    assert "Traceback" not in missing.stderr
    assert ragd(str(tmp_path)).returncode == 2
    assert ragd(str(GOOD), "--max-errors", "-1").returncode == 2


@pytest.mark.slow
def test_the_real_corpus(ragd):
    path = shared("ear-corpus", "ear-parts-736-746.v1.jsonl")
    run = ragd(str(path), "--json")
    assert run.returncode == 0, run.stdout[-2000:]
    report = json.loads(run.stdout)
    assert report["documents"] == 3040 and report["valid"] is True


def test_build_validate_ingest_export_round_trip(tmp_path):
    source = shared("cfr", "title15-chapterVII-parts745-799.md")
    env = {**os.environ, "RAGD_HOME": str(tmp_path / "home")}
    toy = json.dumps({"kind": "toy", "vocabulary": ["export", "license"]})

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ragd.cli", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    built = run("corpus", "build", "--profile", "ear", str(source), "-o", "c.jsonl")
    assert built.returncode == 0, built.stderr
    assert "121 sections" in built.stdout and "more notes" in built.stderr
    assert run("corpus", "validate", "c.jsonl").returncode == 0
    assert run("ingest", "c.jsonl", "--embedder", toy).returncode == 0
    exported = run("corpus", "export", "-o", "back.jsonl")
    assert exported.returncode == 0, exported.stderr
    original = {json.loads(line)["doc_id"]: json.loads(line)
                for line in (tmp_path / "c.jsonl").read_text().splitlines()}
    back = {json.loads(line)["doc_id"]: json.loads(line)
            for line in (tmp_path / "back.jsonl").read_text().splitlines()}
    assert back == original
    found = run("search", "§ 764.2(b)", "--json", "-k", "1")
    top = json.loads(found.stdout)["results"][0]
    assert (top["doc_id"], top["citation"], top["parent_id"]) == \
        ("EAR-764.2(b)", "15 CFR 764.2(b)", "EAR-764.2")
    assert run("corpus", "export", "-o", "x.jsonl", "--collection", "nope").returncode == 2
