"""The bundled all-MiniLM-L6-v2 int8 embedder against the reference vectors of sentence-transformers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from helpers import REPO
from ragd.embedding import make_embedder
from ragd.embedding import onnx as onnx_module
from ragd.errors import EmbedderError



def reference_items() -> list[dict]:
    path = REPO.parent / "shared/models/all-MiniLM-L6-v2/reference_vectors.json"
    if not path.exists():
        pytest.skip("reference vectors not available")
    return json.loads(path.read_text())["items"]


def test_every_reference_vector_within_cosine_0995(minilm):
    items = reference_items()
    assert len(items) == 8
    vectors = minilm.embed_documents([it["text"] for it in items])
    assert vectors.shape == (8, 384) and vectors.dtype == np.float32
    for item, vec in zip(items, vectors):
        ref = np.asarray(item["embedding"], dtype=np.float32)
        cosine = float(vec @ ref / np.linalg.norm(ref))
        assert cosine >= 0.995, (item["text"][:40], cosine)
        assert np.linalg.norm(vec) == pytest.approx(1.0, abs=1e-5)


def test_query_and_batch_and_single_are_bit_identical(minilm):
    texts = [it["text"] for it in reference_items()]
    batch = minilm.embed_documents(texts)
    single = np.stack([minilm.embed_documents([t])[0] for t in texts])
    queries = np.stack([minilm.embed_query(t) for t in texts])
    assert np.array_equal(batch, single) and np.array_equal(batch, queries)


def test_truncation_at_256_tokens(minilm):
    long_text = "export " * 300
    longer = long_text + "banana " * 100
    assert minilm.count_tokens([long_text]) == [300]
    assert np.array_equal(minilm.embed_query(long_text), minilm.embed_query(longer))


def test_registry_and_spec(minilm):
    built = make_embedder("minilm")
    assert (built.name, built.dims, built.spec()) == ("all-MiniLM-L6-v2", 384, {"kind": "minilm"})
    assert minilm.embed_documents([]).shape == (0, 384)


def test_checksum_is_verified_before_loading(tmp_path, monkeypatch):
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    monkeypatch.setattr(onnx_module, "model_file", lambda: fake)
    with pytest.raises(EmbedderError) as exc:
        onnx_module.MiniLMEmbedder().embed_query("x")
    assert "sha256" in str(exc.value) and str(fake) in str(exc.value)


def test_length_batches_cover_every_text_once_and_bound_padding(minilm):
    lengths = [200, 12, 35, 256, 40, 9, 180, 33, 14, 90]
    batches = minilm.batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert len(batches) > 1   # mixed lengths are not padded to the longest in one batch
    for b in batches:
        assert len(b) <= minilm.batch_size
        assert len(b) * lengths[b[0]] <= onnx_module.PADDING_SLACK * sum(lengths[i] for i in b)
        assert [lengths[i] for i in b] == sorted((lengths[i] for i in b), reverse=True)


def test_mixed_lengths_embed_as_they_do_alone(minilm):
    texts = ["Export.", "A license is required for the export of items on the list. " * 6,
             "Deemed exports are releases of technology to foreign persons in the US.",
             "word " * 300, "EAR99", "Reexport means an actual shipment from one foreign "
             "country to another."]
    batch = minilm.embed_documents(texts)
    assert len(minilm.batches([len(e.ids) for e in
                               onnx_module.unpadded_tokenizer().encode_batch(texts)])) > 1
    single = np.stack([minilm.embed_query(t) for t in texts])
    assert np.array_equal(batch, single)
