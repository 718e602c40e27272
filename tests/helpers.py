"""Helpers shared by the tests (importable as ``helpers``: pytest's pythonpath includes tests/)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

VOCABULARY = ("export", "license", "licence", "item", "items", "ear", "cheating", "theft",
              "punishment", "murder", "logs", "audit", "retained", "days", "session", "token",
              "tokens", "logout", "invalidated", "red", "green", "blue", "apple", "banana")


def shared(*parts: str) -> Path:
    """A path under ../shared/data; the test is skipped when the data is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data {path} not available")
    return path


def inject_write_failure(store, marker: str) -> None:
    """Make the backend fail while inserting a chunk whose text contains ``marker``.

    A real failure inside the write transaction (a trigger raising), not a mock.
    """
    from ragd.stores.sqlite import SQLiteStore

    if isinstance(store, SQLiteStore):
        store._conn.execute(
            "CREATE TEMP TRIGGER ragd_test_fail BEFORE INSERT ON main.chunks "
            f"WHEN instr(new.text, '{marker}') > 0 "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
        return
    raise NotImplementedError(type(store).__name__)
