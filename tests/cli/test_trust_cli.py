"""The CLI a user can trust, as a user runs it (real subprocesses; stderr is not a terminal):
no silent overwrite, skip or stale document, exit codes that say what happened, progress in
logs, one-line errors, and commands that show what a store holds."""

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
    if env and "RAGD_DEBUG" in env:
        full_env["RAGD_DEBUG"] = env["RAGD_DEBUG"]
    return subprocess.run([sys.executable, "-m", "ragd.cli", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=300)


def one_line_error(run: subprocess.CompletedProcess, code: int = 2) -> str:
    assert run.returncode == code, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    return lines[0]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def listing(cwd: Path, *opts: str) -> dict[str, dict]:
    run = ragd("list", "--json", *opts, cwd=cwd)
    assert run.returncode == 0, run.stderr
    return {d["doc_id"]: d for d in json.loads(run.stdout)["documents"]}


def test_a_different_file_is_refused_and_the_same_file_is_not_stored_twice(tmp_path):
    a = write(tmp_path / "a" / "NOTES.md", "# Notes\n\nAudit logs are kept for 400 days.\n")
    write(tmp_path / "a" / "sub" / "g.md", "# G\n\nExport licenses.\n")
    b = write(tmp_path / "b" / "NOTES.md", "# Notes\n\nSession tokens expire.\n")
    assert ragd("ingest", "a", "--embedder", TOY, cwd=tmp_path).returncode == 0
    run = ragd("ingest", "b", cwd=tmp_path)
    assert run.returncode == 1 and "0 new, 0 changed" in run.stdout
    for words in (str(a.resolve()), str(b.resolve()), "--id-prefix", "--replace"):
        assert words in run.stderr
    assert "Audit logs" in ragd("show", "NOTES.md", cwd=tmp_path).stdout  # a/ is kept

    sub = ragd("ingest", "a/sub", cwd=tmp_path)
    assert sub.returncode == 0 and "1 unchanged" in sub.stdout
    assert sorted(listing(tmp_path)) == ["NOTES.md", "sub/g.md"]

    assert ragd("ingest", "b", "--id-prefix", "b/", cwd=tmp_path).returncode == 0
    docs = listing(tmp_path)
    assert sorted(docs) == ["NOTES.md", "b/NOTES.md", "sub/g.md"]
    assert docs["b/NOTES.md"]["source_path"] == str(b.resolve())
    assert docs["NOTES.md"]["chunks"] == 1 and docs["NOTES.md"]["ingested_at"]


def test_skips_are_reported_and_failures_exit_1(tmp_path):
    write(tmp_path / "only" / "scan.docx", "PK")
    write(tmp_path / "only" / "rows.xml", "<rows/>")
    run = ragd("ingest", "only", "--embedder", TOY, cwd=tmp_path)
    assert run.returncode == 1
    assert "scan.docx" in run.stderr and "rows.xml" in run.stderr
    assert "unsupported file type '.xml'" in run.stderr
    assert "not loaded: 2 (unsupported type 2)" in run.stdout
    as_json = ragd("ingest", "only", "--json", cwd=tmp_path)
    data = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and data["by_reason"] == {"unsupported type": 2}
    assert sorted(Path(s["source"]).name for s in data["skipped"]) == ["rows.xml", "scan.docx"]

    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.txt").write_bytes(b"\xff\xfe\x00x")
    write(tmp_path / "bad" / "empty.md", "")
    every = ragd("ingest", "bad", cwd=tmp_path)
    assert every.returncode == 1 and "0 new" in every.stdout and "2 failed" in every.stdout

    write(tmp_path / "good" / "a.txt", "Audit logs.\n")
    assert ragd("ingest", "good", cwd=tmp_path).returncode == 0
    help_text = ragd("ingest", "--help", cwd=tmp_path).stdout
    assert "exit codes: 0" in help_text and "1 a document failed" in help_text


def test_prune_removes_what_was_deleted_and_dry_run_only_lists(tmp_path, store_location):
    store = ["--store", store_location]
    write(tmp_path / "dir" / "one.md", "# One\n\nAudit logs are retained.\n")
    nothing = ragd("ingest", "dir", "--prune", "--dry-run", *store, cwd=tmp_path)
    assert nothing.returncode == 0 and "would prune nothing" in nothing.stdout
    assert "://" in store_location or not Path(store_location).exists()  # changed nothing
    two = write(tmp_path / "dir" / "two.md", "# Two\n\nWithdrawn export license rule.\n")
    assert ragd("ingest", "dir", "--embedder", TOY, *store, cwd=tmp_path).returncode == 0
    two.unlink()
    again = ragd("ingest", "dir", *store, cwd=tmp_path)
    assert again.returncode == 0 and "two.md" in listing(tmp_path, *store)
    found = ragd("search", "export license", "--json", *store, cwd=tmp_path)
    assert "two.md" in {r["doc_id"] for r in json.loads(found.stdout)["results"]}

    dry = ragd("ingest", "dir", "--prune", "--dry-run", *store, cwd=tmp_path)
    assert dry.returncode == 0 and "would prune 1 documents whose file is gone: two.md" in \
        dry.stdout
    assert "two.md" in listing(tmp_path, *store)
    pruned = ragd("ingest", "dir", "--prune", *store, cwd=tmp_path)
    assert pruned.returncode == 0 and "pruned 1 documents whose file is gone: two.md" in \
        pruned.stdout
    assert sorted(listing(tmp_path, *store)) == ["one.md"]
    found = ragd("search", "export license", "--json", *store, cwd=tmp_path)
    assert "two.md" not in {r["doc_id"] for r in json.loads(found.stdout)["results"]}


def test_progress_lines_when_stderr_is_not_a_terminal_and_quiet_silences_them(tmp_path):
    for i in range(3):
        write(tmp_path / "d" / f"f{i}.md", f"# F{i}\n\nAudit logs number {i}.\n")
    env = {"RAGD_PROGRESS_SECONDS": "0"}
    run = ragd("ingest", "d", "--embedder", TOY, cwd=tmp_path, env=env)
    lines = [x for x in run.stderr.splitlines() if x.startswith("ingest: ")]
    assert run.returncode == 0 and lines, run.stderr
    assert "/3 files" in lines[-1] and "chunks/s" in lines[-1]
    quiet = ragd("ingest", "d", "-q", cwd=tmp_path, env=env)
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_small_defects_are_clear_one_line_errors(tmp_path):
    write(tmp_path / "d" / "a.txt", "Export license for items.\n")
    message = one_line_error(ragd("ingest", "d", "--embedder", "toy", cwd=tmp_path))
    assert "missing the setting(s) 'vocabulary'" in message and '"kind": "toy"' in message
    assert not (tmp_path / "home").exists()  # nothing was created
    for size in ("0", "-1", "lots"):
        run = ragd("ingest", "d", "--max-document-mb", size, "--embedder", TOY, cwd=tmp_path)
        assert run.returncode == 2 and "Traceback" not in run.stderr
        assert f"argument --max-document-mb: expected a number of megabytes over 0, got " \
               f"'{size}'" in run.stderr
    assert not (tmp_path / "home").exists()
    assert ragd("ingest", "d", "--embedder", TOY, cwd=tmp_path).returncode == 0
    for k in ("0", "-3"):
        run = ragd("search", "x", "-k", k, cwd=tmp_path)
        assert run.returncode == 2 and "argument -k: must be 1 or more" in run.stderr

    for value in ("0", "false", ""):
        run = ragd("show", "nope", cwd=tmp_path, env={"RAGD_DEBUG": value})
        assert "no document 'nope'" in one_line_error(run)
    debug = ragd("show", "nope", cwd=tmp_path, env={"RAGD_DEBUG": "1"})
    assert debug.returncode != 0 and "Traceback" in debug.stderr

    write(tmp_path / "ragd.toml", "[ragd]\nmax_document_mb = \"lots\"\n")
    message = one_line_error(ragd("ingest", "d", cwd=tmp_path))
    assert "ragd.toml" in message and "max_document_mb" in message
    write(tmp_path / "ragd.toml", "[retrieval]\nk = 0\n")
    assert "k must be a whole number of 1 or more" in one_line_error(
        ragd("search", "x", cwd=tmp_path))


def test_list_and_show_what_a_store_holds(tmp_path):
    write(tmp_path / "d" / "logs.md", "# Logging\n\nAudit logs are retained.\n\n"
          "## Tokens\n\nSession tokens are invalidated at logout.\n")
    assert ragd("ingest", "d", "--embedder", TOY, cwd=tmp_path).returncode == 0
    text = ragd("list", cwd=tmp_path)
    assert text.returncode == 0 and "logs.md" in text.stdout and "Logging" in text.stdout
    shown = ragd("show", "logs.md", "--json", cwd=tmp_path)
    data = json.loads(shown.stdout)
    assert data["doc_id"] == "logs.md" and data["chunks"] == len(data["chunk_list"]) >= 1
    assert "Audit logs are retained." in " ".join(c["text"] for c in data["chunk_list"])
    assert "Session tokens" in ragd("show", "logs.md", cwd=tmp_path).stdout


def test_a_read_only_store_serves_searches_and_ingest_says_it_cannot_write(tmp_path):
    from helpers import make_read_only, make_writable

    write(tmp_path / "d" / "a.txt", "Export license for items.\n")
    store = tmp_path / "ro"
    assert ragd("ingest", "d", "--store", str(store), "--embedder", TOY,
                cwd=tmp_path).returncode == 0
    locked = make_read_only([*store.iterdir(), store])
    try:
        found = ragd("search", "export license", "--store", str(store), "--json", cwd=tmp_path)
        assert found.returncode == 0, found.stderr
        assert [r["doc_id"] for r in json.loads(found.stdout)["results"]] == ["a.txt"]
        write(tmp_path / "d" / "b.txt", "Audit logs.\n")
        message = one_line_error(ragd("ingest", "d", "--store", str(store), cwd=tmp_path), 1)
        assert "read-only" in message and "cannot ingest" in message
    finally:
        make_writable(locked)


@pytest.mark.parametrize("option", ["--store", "--collection", "--profile"])
def test_every_shared_option_parses_the_same_before_or_after_the_command(option):
    """Point 2 of the issue (fixed on main): each shared option, in either position."""
    from ragd.cli import build_parser
    from ragd.cli.common import SHARED

    assert sorted(SHARED) == ["collection", "profile", "store"]
    value = {"--store": "/x", "--collection": "c1", "--profile": "ear"}[option]
    parser = build_parser()
    before = parser.parse_args([option, value, "ingest", "p"])
    after = parser.parse_args(["ingest", "p", option, value])
    assert getattr(before, option[2:]) == getattr(after, option[2:]) == value
