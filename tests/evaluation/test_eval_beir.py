"""`ragd eval beir` end to end on a tiny generated BEIR folder with the toy embedder."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, VOCABULARY
from ragd.evaluation.beir import load_beir

pytest.importorskip("pytrec_eval")

TOY = json.dumps({"kind": "toy", "vocabulary": list(VOCABULARY)})

TOPICS = {
    "export": "A license is required to export items subject to the EAR.",
    "logs": "Audit logs must be retained for 400 days before they are deleted.",
    "session": "A session token is invalidated at logout; tokens expire after idle days.",
    "theft": "The punishment for theft or cheating is imprisonment or a fine.",
    "fruit": "An apple is red or green; a banana is yellow when ripe.",
}


def run_cli(argv: list[str]) -> int:
    """``ragd`` in-process (argparse usage errors become their exit code)."""
    from ragd import cli

    try:
        return cli.main(argv)
    except SystemExit as exc:
        return int(exc.code or 0)


def make_beir(root: Path, gz: bool = False) -> Path:
    """5 topics x 6 documents; each query asks about one topic and judges two documents."""
    root.mkdir(parents=True)
    (root / "qrels").mkdir()
    lines = []
    for t, (topic, text) in enumerate(TOPICS.items()):
        for i in range(6):
            filler = " ".join(VOCABULARY[(t * 5 + i * 3 + j) % len(VOCABULARY)] for j in range(4))
            lines.append(json.dumps({"_id": f"{topic}-{i}", "title": f"{topic} note {i}",
                                     "text": f"{text} Also {filler}.", "metadata": {}}))
    lines.append(json.dumps({"_id": "q-self", "title": "apple", "text": "apple banana red."}))
    data = ("\n".join(lines) + "\n").encode()
    if gz:
        (root / "corpus.jsonl.gz").write_bytes(gzip.compress(data, mtime=0))
    else:
        (root / "corpus.jsonl").write_bytes(data)
    queries = {"q-export": "export license for items", "q-logs": "how long are audit logs retained",
               "q-session": "session token logout", "q-theft": "punishment for theft",
               "q-self": "red apple banana", "q-train": "not a test query"}
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t, "metadata": {}}) + "\n"
                for q, t in queries.items()))
    rows = ["query-id\tcorpus-id\tscore", "q-export\texport-1\t1", "q-export\texport-4\t1",
            "q-logs\tlogs-0\t1", "q-logs\tlogs-5\t2", "q-session\tsession-2\t1",
            "q-theft\ttheft-3\t1", "q-theft\tfruit-0\t0", "q-self\tq-self\t1", "q-self\tfruit-2\t1"]
    (root / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n")
    (root / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\nq-train\tlogs-1\t1\n")
    return root


@pytest.fixture
def env(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RAGD_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGD_STORE", raising=False)
    monkeypatch.delenv("RAGD_EMBEDDER", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_load_beir_order_split_and_limit(tmp_path):
    root = make_beir(tmp_path / "mini", gz=True)
    ds = load_beir(root)
    assert ds.corpus_path.name == "corpus.jsonl.gz"
    assert ds.query_ids == ["q-export", "q-logs", "q-session", "q-theft", "q-self"]
    assert ds.qrels["q-logs"] == {"logs-0": 1, "logs-5": 2}
    assert load_beir(root, limit_queries=2).query_ids == ["q-export", "q-logs"]
    assert load_beir(root, split="train").query_ids == ["q-train"]
    assert len(ds.corpus_sha256) == 64


def test_eval_beir_end_to_end(env, capsys):
    data = make_beir(env / "mini")
    rc = run_cli(["eval", "beir", str(data), "--embedder", TOY, "--report", "report.html",
                  "--gate", "hybrid-rrf:ndcg@10>=0.5", "--gate", "lexical:recall@100>0.9"])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    for mode in ("lexical", "vector", "hybrid-rrf", "hybrid-weighted", "default"):
        assert mode in captured.out
    assert "PASS hybrid-rrf:ndcg@10>=0.5" in captured.out

    out = env / "eval-results" / "mini"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["dataset"]["queries"] == 5
    assert summary["dataset"]["corpus_sha256"] == load_beir(data).corpus_sha256
    assert set(summary["modes"]) == {"lexical", "vector", "hybrid-rrf", "hybrid-weighted",
                                     "default"}
    assert summary["modes"]["default"]["plan"]["pool"] == 50
    assert summary["modes"]["hybrid-rrf"]["plan"] == {
        "k": 200, "pool": 200, "mode": "hybrid", "fusion": "rrf", "rrf_k": 60,
        "weights": {"vector": 0.5, "lexical": 0.5}, "scheme": "heading"}
    for key in ("ragd_version", "embedder", "machine", "date", "store", "ingest", "gates"):
        assert key in summary
    metrics = summary["modes"]["hybrid-rrf"]["metrics"]
    assert set(metrics) == {"ndcg@10", "recall@100", "mrr@10"}
    assert 0.5 <= metrics["ndcg@10"] <= 1.0
    assert summary["modes"]["lexical"]["latency"]["p95_ms"] > 0

    run = (out / "run.hybrid-rrf.trec").read_text().splitlines()
    by_query: dict[str, list[tuple[int, float]]] = {}
    for line in run:
        cols = line.split()
        assert len(cols) == 6 and cols[1] == "Q0" and cols[5] == "ragd-hybrid-rrf"
        by_query.setdefault(cols[0], []).append((int(cols[3]), float(cols[4])))
    assert list(by_query) == ["q-export", "q-logs", "q-session", "q-theft", "q-self"]
    for rows in by_query.values():
        assert [r for r, _ in rows] == list(range(1, len(rows) + 1))
        assert all(a[1] > b[1] for a, b in zip(rows, rows[1:]))  # strictly decreasing

    html = (env / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 4
    for external in ("http://", "https://", "<script", "<link", "@import"):
        assert external not in html

    # Second run: the cached store is reused (nothing re-embedded), the run files are identical.
    rc = run_cli(["eval", "beir", str(data), "--embedder", TOY, "--out", "again",
                  "--modes", "hybrid-rrf,lexical"])
    assert rc == 0
    again = json.loads((env / "again" / "summary.json").read_text())
    assert (again["ingest"]["unchanged"], again["ingest"]["new"]) == (31, 0)
    assert (env / "again" / "run.hybrid-rrf.trec").read_text() == "\n".join(run) + "\n"

    check = subprocess.run([sys.executable, str(REPO / "bench" / "verify_eval.py"), str(out)],
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "AGREE" in check.stdout


def test_failed_gate_exits_1_naming_it(env, capsys):
    data = make_beir(env / "mini")
    rc = run_cli(["eval", "beir", str(data), "--embedder", TOY, "--modes", "lexical",
                  "--gate", "lexical:ndcg@10>=0.999", "--gate", "lexical:p95_ms<100000",
                  "--gate", "lexical:mrr@10<0.01"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "2 gates failed" in err
    assert "lexical:ndcg@10>=0.999 (measured 0." in err
    assert "lexical:mrr@10<0.01 (measured" in err
    assert "p95_ms<100000 (measured" not in err


@pytest.mark.parametrize("argv, needle", [
    (["--gate", "hybrid-rrf:ndcg@10=>0.7"], "malformed gate"),
    (["--gate", "lexical:ndcg@20>=0.7"], "unknown metric 'ndcg@20'"),
    (["--modes", "lexical", "--gate", "vector:ndcg@10>=0.7"], "mode 'vector'"),
    (["--modes", "lexical,rerank-magic"], "unknown mode 'rerank-magic'"),
    (["--split", "dev"], "no qrels file"),
])
def test_usage_errors_exit_2_before_any_work(env, capsys, argv, needle):
    data = make_beir(env / "mini")
    rc = run_cli(["eval", "beir", str(data), "--embedder", TOY, *argv])
    assert rc == 2
    assert needle in capsys.readouterr().err
    assert not (env / "home" / "eval").exists()
    assert not (env / "eval-results").exists()


def test_exclude_self_limit_and_k(env, capsys):
    data = make_beir(env / "mini")
    argv = ["eval", "beir", str(data), "--embedder", TOY, "--modes", "lexical",
            "--limit-queries", "5", "--k", "3", "--depth", "4"]
    assert run_cli([*argv, "--out", "with-self"]) == 0
    assert run_cli([*argv, "--out", "no-self", "--exclude-self"]) == 0
    with_self = (env / "with-self" / "run.lexical.trec").read_text()
    no_self = (env / "no-self" / "run.lexical.trec").read_text()
    assert "q-self Q0 q-self " in with_self
    assert "q-self Q0 q-self " not in no_self
    summary = json.loads((env / "no-self" / "summary.json").read_text())
    assert set(summary["modes"]["lexical"]["metrics"]) == {"ndcg@3", "recall@4", "mrr@3"}
    assert summary["config"]["exclude_self"] is True
    counts = {}
    for line in no_self.splitlines():
        counts[line.split()[0]] = counts.get(line.split()[0], 0) + 1
    assert max(counts.values()) == 4
