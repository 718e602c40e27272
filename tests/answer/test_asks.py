"""The asks of a question asking several things (ragd.answer.asks)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.answer.asks import asks


def test_a_coordinated_second_question_is_an_ask_of_its_own():
    assert asks("How often should the output of a quality risk management process be "
                "reviewed under ICH Q9, and can the review revisit risk acceptance?") == [
        "How often should the output of a quality risk management process be reviewed "
        "under ICH Q9", "can the review revisit risk acceptance?"]
    assert asks("Under EU GMP, can our QC team take samples only from the middle of a batch, "
                "or what is expected of samples and the sampling plan?") == [
        "Under EU GMP, can our QC team take samples only from the middle of a batch",
        "what is expected of samples and the sampling plan?"]


def test_a_story_sentence_asks_nothing():
    assert asks("We're making a sterile IMP by filtration. What maximum bioburden does EMA "
                "accept in the IMPD? And what if the limit cannot be met?") == [
        "What maximum bioburden does EMA accept in the IMPD?",
        "And what if the limit cannot be met?"]


@pytest.mark.parametrize("question", [
    "What is an electronic signature under 21 CFR Part 11?",        # one ask
    "How and when should audit trails be reviewed?",                # "How" names nothing
    "WHO stability guideline: how many batches go on stability, and how often are they "
    "tested?",                                                      # "they tested": one term
    "Which records, and which signatures, does Part 11 cover?",     # no ask after the comma
])
def test_a_question_asking_one_thing_has_no_asks(question):
    assert asks(question) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["what", "is", "and", "can", "the", "batch", "record", ",",
                                 "?", ".", "WHO", "review", "risk", "or", "We", "test"]),
                max_size=30).map(" ".join))
def test_property_asks_are_pieces_of_the_question_in_order(question):
    got = asks(question)
    assert len(got) != 1
    text = " ".join(question.split())
    at = 0
    for ask in got:
        found = text.find(ask, at)
        assert found >= 0
        at = found + len(ask)
