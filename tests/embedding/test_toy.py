"""ToyEmbedder: exact bag-of-words vectors over a fixed vocabulary."""

from __future__ import annotations

import numpy as np
import pytest

from ragd.embedding import make_embedder
from ragd.embedding.base import Embedder
from ragd.embedding.toy import ToyEmbedder
from ragd.errors import ConfigError

VOCAB = ["export", "control", "license", "item"]


def test_counts_are_normalised() -> None:
    emb = ToyEmbedder(VOCAB)
    vector = emb.embed_query("Export the item; export control!")
    # counts: export 2, control 1, license 0, item 1 -> norm sqrt(6)
    np.testing.assert_allclose(vector, np.array([2, 1, 0, 1]) / np.sqrt(6), rtol=1e-6)
    assert vector.dtype == np.float32 and vector.shape == (4,)


def test_embed_documents_shape_and_unit_length() -> None:
    emb = ToyEmbedder(VOCAB)
    vectors = emb.embed_documents(["export license", "item item control", "LICENSE"])
    assert vectors.shape == (3, 4) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(vectors[2], [0, 0, 1, 0])


def test_no_known_words_gives_zero_vector() -> None:
    emb = ToyEmbedder(VOCAB)
    np.testing.assert_array_equal(emb.embed_query("nothing relevant here"), np.zeros(4))
    vectors = emb.embed_documents(["", "export"])
    np.testing.assert_array_equal(vectors[0], np.zeros(4))
    assert not np.isnan(vectors).any()


def test_no_texts() -> None:
    out = ToyEmbedder(VOCAB).embed_documents([])
    assert out.shape == (0, 4) and out.dtype == np.float32


def test_deterministic_and_query_matches_documents() -> None:
    texts = ["export control of an item", "license the license"]
    a = ToyEmbedder(VOCAB).embed_documents(texts)
    b = ToyEmbedder(VOCAB).embed_documents(texts)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(ToyEmbedder(VOCAB).embed_query(texts[0]), a[0])
    assert ToyEmbedder(VOCAB).name == ToyEmbedder(VOCAB).name


def test_name_depends_on_vocabulary() -> None:
    assert ToyEmbedder(VOCAB).name.startswith("toy-bow-")
    assert ToyEmbedder(VOCAB).name != ToyEmbedder(list(reversed(VOCAB))).name


def test_count_tokens_counts_words() -> None:
    assert ToyEmbedder(VOCAB).count_tokens(["one two, three!", "", "x"]) == [3, 0, 1]


def test_protocol_and_spec_round_trip() -> None:
    emb = ToyEmbedder(["Export", "Item"])
    assert isinstance(emb, Embedder) and emb.dims == 2
    spec = emb.spec()
    assert spec == {"kind": "toy", "vocabulary": ["export", "item"]}
    rebuilt = make_embedder(spec)
    assert isinstance(rebuilt, ToyEmbedder) and rebuilt.spec() == spec
    assert rebuilt.name == emb.name
    query = "export item"
    np.testing.assert_array_equal(rebuilt.embed_query(query), emb.embed_query(query))


@pytest.mark.parametrize("vocabulary, message", [
    ([], "non-empty"),
    (["export", "item", "export"], "duplicate"),
    (["Export", "export"], "duplicate"),
])
def test_bad_vocabulary(vocabulary: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ToyEmbedder(vocabulary)
    with pytest.raises(ConfigError, match=message):
        make_embedder({"kind": "toy", "vocabulary": vocabulary})


def test_missing_vocabulary_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="toy"):
        make_embedder({"kind": "toy"})
