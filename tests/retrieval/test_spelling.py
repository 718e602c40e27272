"""Spelling correction against a collection's vocabulary: the nearest word within the
allowed distance, ties by document frequency then alphabet, known words left alone."""

from __future__ import annotations

import pytest

from ragd.retrieval.spelling import (Vocabulary, build, corrections, max_distance, osa,
                                     rewrite)

TEXTS = [
    "Electronic signature means a computer data compilation of any symbol.",
    "An electronic record is any combination of text and graphics.",
    "Process validation is the collection and evaluation of data.",
    "Validation of the process design stage.",
    "The signature manifestation shall include the printed name.",
]


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    return build(TEXTS)


@pytest.mark.parametrize(("a", "b", "d"), [
    ("electornic", "electronic", 1),   # adjacent letters swapped
    ("signture", "signature", 1),      # one left out
    ("validaton", "validation", 1),
    ("proces", "process", 1),
    ("abcd", "xbcy", 2),
    ("ca", "abc", 3),                  # optimal string alignment: no edit of a swap
    ("same", "same", 0),
])
def test_distance(a, b, d):
    assert osa(a, b) == d == osa(b, a)
    assert osa(a, b, 1) == d if d <= 1 else osa(a, b, 1) > 1   # stopped early past a limit


def test_the_early_stop_never_changes_a_distance_within_the_limit():
    import random

    rng = random.Random(3)
    for _ in range(400):
        a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 7)))
        b = "".join(rng.choice("abc") for _ in range(rng.randint(0, 7)))
        full = osa(a, b)
        for limit in (0, 1, 2):
            assert (osa(a, b, limit) == full) if full <= limit else osa(a, b, limit) > limit


def test_misspelt_words_are_corrected_to_the_collection_words(vocab):
    fixes = corrections("electornic signture definiton under 21 cfr part 11", vocab)
    assert fixes == {"electornic": "electronic", "signture": "signature"}
    assert corrections("proces validaton stages", vocab) == {
        "proces": "process", "validaton": "validation"}
    assert rewrite("Electornic signture?", {"electornic": "electronic",
                                           "signture": "signature"}) == \
        "electronic signature?"


def test_known_words_short_words_numbers_and_stop_words_are_left_alone(vocab):
    # "signatures" and "validated" are not in the texts, but their index terms are
    assert corrections("signatures validated records", vocab) == {}
    assert corrections("the prcs of 2024 and 12345 x9y", vocab) == {}   # 3 letters, numbers
    assert max_distance("sign") == 1 and max_distance("signatur") == 2
    assert max_distance("abc") == 0


def test_nothing_close_enough_is_no_correction(vocab):
    assert corrections("sourdough", vocab) == {}
    assert corrections("elctrnc", vocab) == {}   # three edits from "electronic"


def test_distance_two_only_for_long_words():
    vocab = build(["calibration of balances", "a zone"])
    assert corrections("calbiratoin", vocab) == {"calbiratoin": "calibration"}  # 2 edits
    assert corrections("zxnf", vocab) == {}                                     # 2 edits, short
    assert corrections("zxne", vocab) == {"zxne": "zone"}


def test_ties_go_to_the_more_frequent_word_then_the_alphabet():
    vocab = build(["latch", "latch", "latch", "larch", "larch"])
    assert vocab.correct("lanch") == "latch"       # latch 3 chunks, larch 2
    assert build(["latch", "larch"]).correct("lanch") == "larch"   # 1 each: alphabetical
    assert build(["larch", "latch"]).correct("lanch") == "larch"   # order does not matter
    nearer = build(["validation", "validate", "validate", "validate"])
    assert nearer.correct("validaton") == "validation"   # distance 1 beats a frequent 2


def test_english_words_and_other_first_letters_are_no_typos():
    vocab = build(["it was sent", "a trained analyst"])
    assert corrections("spent", vocab) == {}                 # an English word, no typo ...
    assert vocab.correct("spent") == "sent"                  # ... though one edit away
    assert vocab.correct("trainde") == "trained"
    assert vocab.correct("strained") is None                 # s- is no typo of t-
    assert corrections("sprainde", vocab) == {}


def test_a_word_cut_from_a_longer_one_is_corrected_only_to_a_word_it_begins():
    from ragd.retrieval.spelling import clipped

    clip = build(["The regulations apply.", "The REMS programme applies.",
                  "Specifications and compliance are checked.", "Keep the spectra."])
    assert clipped("regs", clip) == "reg" and clipped("specs", clip) == "spec"
    assert clipped("rems", clip) == ""       # a word the collection holds whole
    # "regs" is the user's short form of "regulations", not a typo of "rems"
    assert "regs" not in corrections("what do the regs say", clip)
    # a typo that stops short is completed: the correction begins with it
    assert corrections("complian checks", clip) == {"complian": "compliance"}
    # a misspelling cut from nothing is corrected as before
    assert corrections("regulatoins apply", clip) == {"regulatoins": "regulations"}
