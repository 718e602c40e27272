"""The batch analyser gives exactly the reference analyser's terms, with word positions."""

from __future__ import annotations

import gzip
import json
import random

import numpy as np
import pytest

from helpers import shared
from ragd import analysis
from ragd.analysis import _Words, analyze, analyze_batch

UGLY = ["", "the and of", "Café ΣΑΣ ὈΔΥΣΣΕΎΣ", "x\x00y", "ﬁ ℌello Ⅻ ½", "𝐀𝐁𝐂 mathbold 𝟏𝟐 𝚺𝚺",
        "e\u0301te\u0301", "İstanbul KELVIN \u212a", "\n\n", "a_b c-d 736.2(a)(1)",
        "日本語のテキスト", "ǅemal ǈ", "x" * 5000, "😀 emoji 😀", "tab\there\r\nend"]


def _same_as_reference(texts: list[str]) -> None:
    batch = analyze_batch(texts)
    assert batch.n_texts == len(texts)
    for i, text in enumerate(texts):
        assert batch.terms_of(i) == analyze(text), repr(text)


def test_ugly_texts_get_the_reference_terms():
    _same_as_reference(UGLY)
    for text in UGLY:
        _same_as_reference([text])


def test_random_texts_get_the_reference_terms():
    rnd = random.Random(7)
    alphabet = "aAbBéÉ \n\x00_.,-ΣσςİıǅﬁⅫ𝐀\u0301\u0308日1K"
    for _ in range(300):
        texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 40)))
                 for _ in range(rnd.randint(1, 6))]
        _same_as_reference(texts)


def test_positions_count_every_word_including_stop_words():
    batch = analyze_batch(["the cat sat on the mat", "", "Cats, cats!"])
    entries = [(int(t), batch.vocab[w], int(p))
               for t, w, p in zip(batch.text, batch.term, batch.position)]
    assert entries == [(0, "cat", 2), (0, "sat", 3), (0, "mat", 6), (2, "cat", 1),
                       (2, "cat", 2)]


def test_a_hash_collision_falls_back_to_exact_words(monkeypatch):
    texts = ["alpha beta gamma", "beta delta alpha alpha", "Ωmega"]
    real = analysis._word_hash

    def colliding(cp, starts, ends, which):
        h = real(cp, starts, ends, which)
        return np.zeros_like(h) if which == 0 else h  # every word shares the first hash

    monkeypatch.setattr(analysis, "_WORDS", _Words())
    monkeypatch.setattr(analysis, "_word_hash", colliding)
    _same_as_reference(texts)


def test_the_word_table_starts_afresh_past_its_limit(monkeypatch):
    monkeypatch.setattr(analysis, "_WORDS", _Words(limit=8))
    texts = [f"word{i} common text number {i}" for i in range(20)]
    for i in range(0, 20, 3):
        _same_as_reference(texts[i:i + 3])
    assert len(analysis._WORDS) <= 8


@pytest.mark.slow
def test_scifact_passages_get_the_reference_terms():
    corpus = shared("scifact", "corpus.jsonl.gz")
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        texts = [f"{d['title']}\n\n{d['text']}" for d in map(json.loads, f)]
    for start in range(0, len(texts), 500):
        _same_as_reference(texts[start:start + 500])


def test_fold_removes_exactly_the_combining_marks():
    import unicodedata

    def reference(text: str) -> str:
        decomposed = unicodedata.normalize("NFKD", text.lower())
        return "".join(ch for ch in decomposed if not unicodedata.combining(ch))

    rnd = random.Random(11)
    alphabet = "aAé É§\u0301\u0308\u20dd\U0001d167ΣὈ日½ﬁ–\n.x"
    texts = UGLY + ["§ 736.2(b) General prohibitions — Café", "ﬁ\u0301§\u0327"] + [
        "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30))) for _ in range(500)]
    for text in texts:
        assert analysis._fold(text) == reference(text), repr(text)
