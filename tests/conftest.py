"""Shared fixtures: stores of every backend, the toy and the bundled embedder."""

from __future__ import annotations

import pytest

from helpers import VOCABULARY
from ragd.collection import Collection, open_collection
from ragd.embedding.toy import ToyEmbedder
from ragd.stores import open_store


@pytest.fixture
def toy() -> ToyEmbedder:
    return ToyEmbedder(VOCABULARY)


@pytest.fixture(scope="session")
def minilm():
    from ragd.embedding.onnx import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture(params=["sqlite"])
def store_location(request, tmp_path) -> str:
    """A fresh, empty store location of each backend."""
    return str(tmp_path / "store")


@pytest.fixture
def store(store_location):
    s = open_store(store_location)
    yield s
    s.close()


@pytest.fixture
def toy_collection(store, toy) -> Collection:
    return open_collection(store, "test", toy, create=True)

