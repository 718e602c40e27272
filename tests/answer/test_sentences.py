"""Sentence spans of a quote: a list written inside one sentence is read as its items."""

from __future__ import annotations

import pytest

from ragd.answer.sentences import inline_items, is_item, spans


def _texts(quote: str) -> list[str]:
    return [" ".join(quote[a:b].split()) for a, b in spans(quote)]


def test_a_list_inside_a_sentence_is_read_as_its_items():
    quote = ("Aseptic processing, which includes as appropriate: (i) Floors of smooth, hard "
             "surfaces; (ii) Temperature and humidity controls; (iii) An air supply filtered "
             "through high-efficiency particulate air filters; (iv) A system for monitoring. "
             "21 CFR 211.46(b) states that equipment shall be provided.")
    texts = _texts(quote)
    assert texts == ["Aseptic processing, which includes as appropriate:",
                     "(i) Floors of smooth, hard surfaces;",
                     "(ii) Temperature and humidity controls;",
                     "(iii) An air supply filtered through high-efficiency particulate air "
                     "filters;",
                     "(iv) A system for monitoring.",
                     "21 CFR 211.46(b) states that equipment shall be provided."]
    assert [is_item(quote, a) for a, _ in spans(quote)] == [False, True, True, True, True,
                                                           False]


@pytest.mark.parametrize("quote", [
    # a source's mark, alone: no list ("(2)" after a definition)
    "Bug A manifestation of an error in software (2) Bespoke A system produced to order (2)",
    # a reference's parts are glued to it, never after white space
    "As 21 CFR 211.42(c)(10)(iii) and § 11.1(c)(1) require, air is filtered.",
    # labels out of order
    "See (b) above and (a) below for the exceptions (d) that apply.",
])
def test_no_list_without_two_labels_in_order_in_running_text(quote):
    assert inline_items(quote, 0, len(quote)) == []
    assert len(spans(quote)) == 1


def test_a_list_a_passage_opens_inside_counts_on_from_where_it_starts():
    quote = ("close to the limit (2) some characteristics can be substituted (3) lack of "
             "specificity should be compensated (4) a combined approach can be used (6) where "
             "reproducibility was performed, no separate study is required")
    texts = _texts(quote)
    # (2), (3), (4) in a row make the list; (6) after (4) breaks the count: no item
    assert texts == ["close to the limit", "(2) some characteristics can be substituted",
                     "(3) lack of specificity should be compensated",
                     "(4) a combined approach can be used (6) where reproducibility was "
                     "performed, no separate study is required"]


def test_two_labels_in_a_row_read_as_one_sentence():
    quote = ("This stage has two elements: (1) design of the facility and qualification of "
             "the equipment and (2) process performance qualification (PPQ).")
    assert _texts(quote) == [" ".join(quote.split())]


def test_a_glossary_with_its_terms_in_lower_case_is_read_entry_by_entry():
    quote = ("distributor or a responsible agency. quality system An appropriate "
             "infrastructure and procedures. quarantine The status of products isolated while "
             "a decision is awaited. sampling Operations designed to obtain a representative "
             "portion of a product, e.g. acceptance of consignments. shelf-life The period of "
             "time during which a product complies.")
    assert _texts(quote) == [
        "distributor or a responsible agency.",
        "quality system An appropriate infrastructure and procedures.",
        "quarantine The status of products isolated while a decision is awaited.",
        "sampling Operations designed to obtain a representative portion of a product, e.g. "
        "acceptance of consignments.",
        "shelf-life The period of time during which a product complies."]
    # one such place in a passage is a chance, not a glossary; nor is an abbreviation's stop
    assert len(spans("The rest is normal text. lower words And so on.")) == 1
    assert len(spans("It is approx. the Agency view. It is ca. the Office rule.")) == 2


def test_a_lone_glossary_term_is_read_as_one_when_its_definition_restates_it():
    # a chunk cut from a WHO glossary may hold one entry only: "term." then the definition
    # naming the term's noun again is a glossary, not a chance
    quote = ("The same may be true for certain antibiotics. semi-permeable containers. "
             "Containers that allow the passage of solvent. The mechanism is adsorption.")
    assert _texts(quote) == ["The same may be true for certain antibiotics.",
                             "semi-permeable containers. Containers that allow the passage "
                             "of solvent.", "The mechanism is adsorption."]
    # one term its definition does not restate is still a chance
    assert _texts("A single entry closes the text. lone term. Its definition is here.") == [
        "A single entry closes the text. lone term.", "Its definition is here."]
