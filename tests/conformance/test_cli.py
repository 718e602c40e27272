"""`ragd conformance run|update` as a user runs them: exit codes, report, JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ragd.conformance import default_suite_dir


def ragd(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGD_HOME": str(cwd / "home")}
    env.pop("RAGD_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "ragd.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_run_passes_on_sqlite_and_touches_no_home(tmp_path):
    run = ragd("conformance", "run", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS retrieval/hybrid-rrf-tie" in run.stdout
    assert "failed" in run.stdout.splitlines()[-1] and " 0 failed" in run.stdout
    assert not (tmp_path / "home").exists() and not (tmp_path / ".ragd").exists()


def test_run_passes_on_postgres(tmp_path, pg_location):
    run = ragd("conformance", "run", "--store", pg_location, "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["ok"] and report["backend"] == "postgres" and report["failed"] == 0
    assert report["spec_version"] == "0.2"


def test_a_difference_exits_1_with_a_diff(tmp_path):
    suite = Path(shutil.copytree(default_suite_dir(), tmp_path / "suite"))
    path = suite / "goldens" / "chunking.json"
    path.write_text(path.read_text().replace("Night came.", "Night fell."))
    run = ragd("conformance", "run", "--suite", str(suite), cwd=tmp_path)
    assert run.returncode == 1
    assert "FAIL chunking/text-overlap: different chunks" in run.stdout
    assert "-    | the lamps were lit. Night fell." in run.stdout
    assert "+    | the lamps were lit. Night came." in run.stdout
    assert run.stdout.rstrip().endswith(
        "passed, 2 failed: chunking/text-paragraphs, chunking/text-overlap")

    fixed = ragd("conformance", "update", "--suite", str(suite), cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert "changed chunking/text-overlap" in fixed.stdout
    assert "2 changed" in fixed.stdout
    assert ragd("conformance", "run", "--suite", str(suite), cwd=tmp_path).returncode == 0


def test_usage_mistakes_exit_2_with_one_line(tmp_path):
    missing = ragd("conformance", "run", "--suite", str(tmp_path / "nope"), cwd=tmp_path)
    assert missing.returncode == 2 and "no conformance suite at" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1

    suite = Path(shutil.copytree(default_suite_dir(), tmp_path / "suite"))
    path = suite / "goldens" / "retrieval.json"
    path.write_text(path.read_text().replace('"spec_version": "0.2"', '"spec_version": "0.3"'))
    other = ragd("conformance", "run", "--suite", str(suite), cwd=tmp_path)
    assert other.returncode == 2
    assert "pinned to spec version 0.3" in other.stderr and "Traceback" not in other.stderr

    bare = ragd("conformance", cwd=tmp_path)
    assert bare.returncode == 2 and "usage:" in bare.stderr
