"""kill -9 once writes have begun (issue: fault tests that bite): after the Nth committed
document, inside the Nth document's write transaction, and between the staged batches of a
large document. 0 partial documents, 0 lost, and the re-run equals a clean ingest, on both
backends. (A hundred random trials: bench/kill_ingest.py.)"""

from __future__ import annotations

import random
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import crash_trial  # noqa: E402
from helpers import drop_pg_schema, with_store_options  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The folder, and what a clean ingest of it stores."""
    root = tmp_path_factory.mktemp("kill")
    data = crash_trial.make_folder(root / "data")
    report = crash_trial.ingest_folder(str(root / "clean"), str(data))
    assert report["exit_code"] == 0 and report["chunks"] > crash_trial.BATCH_CHUNKS
    return data, crash_trial.contents(str(root / "clean"))


def trials(seed: int, first: tuple = (("during", 1, 0), ("during", 1, -1)),
           modes: tuple = ("after", "during", "staging")) -> list[tuple[str, int, int]]:
    """Kill points inside the large document's swap (it is written first: as its chunks go
    in, the old ones deleted; as it commits), then one of each mode drawn at random (a fixed
    seed: the same every run)."""
    rng = random.Random(seed)
    points = list(first)
    for mode in modes:
        while True:
            chosen = crash_trial.choose(rng)
            if chosen[0] == mode and chosen not in points:
                points.append(chosen)
                break
    return points


@pytest.mark.parametrize("mode_n", trials(7), ids=lambda p: "-".join(map(str, p)))
def test_a_killed_sqlite_ingest_loses_nothing_and_resumes_clean(folder, tmp_path, mode_n):
    data, clean = folder
    result = crash_trial.run_trial(str(tmp_path / "store"), data, clean, *mode_n,
                                   tmp_path / "committed.log")
    check(result)


@pytest.mark.parametrize("mode_n", trials(11, (("during", 1, 0),), ("after", "staging")),
                         ids=lambda p: "-".join(map(str, p)))
def test_a_killed_postgres_ingest_loses_nothing_and_resumes_clean(folder, tmp_path, pg_dsn,
                                                                   mode_n):
    data, clean = folder
    schema = f"t_kill_{uuid.uuid4().hex[:12]}"
    try:
        result = crash_trial.run_trial(with_store_options(pg_dsn, schema=schema), data, clean,
                                       *mode_n, tmp_path / "committed.log")
    finally:
        drop_pg_schema(pg_dsn, schema)
    check(result)


def check(result: dict) -> None:
    assert result["killed"], result["child_error"]
    if result["mode"] == "after":
        assert result["committed_before_kill"] == result["n"]
    if result["mode"] == "during" and result["k"] <= 0:  # the kill landed in document N
        assert result["committed_before_kill"] == result["n"] - 1, result
    assert result["partial"] == [], result
    assert result["lost"] == [], result
    assert result["rerun_exit"] == 0 and result["rerun_differs"] == [], result
    assert result["staged_left"] == 0, result
