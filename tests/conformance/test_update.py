"""Goldens change only through `update`, and goldens of another spec version are refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import ragd.conformance.runner as runner
from ragd.conformance import (SPEC_VERSION, default_suite_dir, load_suite, run_suite,
                              spec_compatible, update_goldens)
from ragd.errors import RagdError, UsageError
from ragd.types import Candidate


@pytest.fixture
def suite_dir(tmp_path) -> Path:
    """A private copy of the bundled suite, free to edit."""
    return Path(shutil.copytree(default_suite_dir(), tmp_path / "suite"))


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def test_update_on_an_up_to_date_suite_changes_nothing(suite_dir):
    before = {p.name: p.read_bytes() for p in (suite_dir / "goldens").iterdir()}
    _, changes = update_goldens(suite_dir)
    assert changes == []
    assert {p.name: p.read_bytes() for p in (suite_dir / "goldens").iterdir()} == before


def test_update_rewrites_changed_added_and_removed_goldens(suite_dir):
    goldens = suite_dir / "goldens"

    def tamper(data):
        data["cases"]["vector-cosine"]["results"][0]["score"] = 0.5
        del data["cases"]["lexical-single-match"]
        data["cases"]["no-such-case"] = {"results": []}

    _edit(goldens / "retrieval.json", tamper)
    failed = {r.name: r for r in run_suite(load_suite(suite_dir)).failed}
    assert set(failed) == {"retrieval/vector-cosine", "retrieval/lexical-single-match",
                           "retrieval/no-such-case"}
    assert "no golden" in failed["retrieval/lexical-single-match"].message
    assert "-1. fruit-apple#0  score 0.500000000" in failed["retrieval/vector-cosine"].diff()

    _, changes = update_goldens(suite_dir)
    assert {(c.name, c.change) for c in changes} == {
        ("retrieval/vector-cosine", "changed"), ("retrieval/lexical-single-match", "added"),
        ("retrieval/no-such-case", "removed")}
    assert run_suite(load_suite(suite_dir)).ok
    # written exactly as the bundled goldens are
    assert (goldens / "retrieval.json").read_text() == \
        (default_suite_dir() / "goldens" / "retrieval.json").read_text()


def test_goldens_of_another_spec_version_are_refused(suite_dir):
    _edit(suite_dir / "goldens" / "chunking.json", lambda d: d.update(spec_version="0.3"))
    with pytest.raises(UsageError, match=r"chunking\.json is pinned to spec version 0\.3, but "
                                         r"this ragd implements spec 0\.2: refusing to compare"):
        load_suite(suite_dir)


def test_update_repins_goldens_on_purpose(suite_dir):
    _edit(suite_dir / "goldens" / "fusion.json", lambda d: d.update(spec_version="0.3"))
    _, changes = update_goldens(suite_dir)
    assert [(c.name, c.change) for c in changes] == [
        ("goldens/fusion.json", f"spec_version 0.3 -> {SPEC_VERSION}")]
    assert json.loads((suite_dir / "goldens" / "fusion.json").read_text())["spec_version"] \
        == SPEC_VERSION
    assert run_suite(load_suite(suite_dir)).ok


def test_a_suite_for_another_spec_is_refused_even_by_update(suite_dir):
    _edit(suite_dir / "suite.json", lambda d: d.update(spec_version="1.0"))
    with pytest.raises(UsageError, match="pinned to spec version 1.0"):
        update_goldens(suite_dir)


def test_spec_compatibility_follows_semver():
    assert spec_compatible("0.2") and spec_compatible("0.2.3")
    assert not spec_compatible("0.1") and not spec_compatible("0.3") and not spec_compatible("1.0")
    with pytest.raises(UsageError, match="not a version"):
        spec_compatible("draft")


def test_malformed_cases_are_usage_errors(suite_dir):
    _edit(suite_dir / "cases" / "retrieval.json",
          lambda d: d["cases"].append({"id": "broken", "plan": {}}))
    with pytest.raises(UsageError, match="case 'broken': needs 'query'"):
        load_suite(suite_dir)


def test_update_refuses_a_near_tie(suite_dir, monkeypatch):
    def near(query, plan, coll):
        return {"vector": [Candidate("a", 0, "", 0.5), Candidate("b", 0, "", 0.5000001)]}

    monkeypatch.setattr(runner, "candidate_lists", near)
    before = (suite_dir / "goldens" / "retrieval.json").read_text()
    with pytest.raises(RagdError, match="near-tied vector scores"):
        update_goldens(suite_dir)
    assert (suite_dir / "goldens" / "retrieval.json").read_text() == before


def test_update_refuses_when_ingest_is_not_deterministic(suite_dir, monkeypatch):
    import ragd.conformance.execute as execute

    calls = iter(range(1000))
    original = execute.embedding_bytes
    monkeypatch.setattr(execute, "embedding_bytes",
                        lambda v: original(v) + bytes([next(calls) % 256]))
    with pytest.raises(RagdError, match="ingest/two-fresh-stores"):
        update_goldens(suite_dir)
