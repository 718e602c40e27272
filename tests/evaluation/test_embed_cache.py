"""The text-keyed embedding cache used by the CI gate and the SciFact experiments."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import VOCABULARY
from ragd.embedding.toy import ToyEmbedder
from ragd.errors import EmbedderError
from support.embed_cache import CachedEmbedder


def test_hits_misses_and_identity():
    inner = ToyEmbedder(VOCABULARY)
    emb = CachedEmbedder(inner)
    texts = ["red apple", "green banana", "red apple"]
    first = emb.embed_documents(texts)
    assert (emb.misses, emb.hits) == (2, 1)
    np.testing.assert_array_equal(first, inner.embed_documents(texts))
    emb.embed_documents(["green banana"])
    assert (emb.misses, emb.hits) == (2, 2)
    assert (emb.name, emb.dims, emb.spec()) == (inner.name, inner.dims, inner.spec())


def test_save_load_roundtrip_int8(tmp_path):
    rng = np.random.default_rng(7)
    vectors = {bytes([i]) * 32: v / np.linalg.norm(v)
               for i, v in enumerate(rng.normal(size=(20, 24)).astype(np.float32))}
    emb = CachedEmbedder(ToyEmbedder(VOCABULARY), vectors)
    path = emb.save(tmp_path / "v.npz")
    loaded = CachedEmbedder.load_vectors(path)
    assert set(loaded) == set(vectors)
    for key, vec in vectors.items():
        assert float(loaded[key] @ vec) > 0.9999


def test_no_misses_allowed():
    emb = CachedEmbedder(ToyEmbedder(VOCABULARY), allow_misses=False)
    with pytest.raises(EmbedderError, match="not in the embedding cache"):
        emb.embed_documents(["red"])
