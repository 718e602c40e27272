"""What a question names (ragd.answer.named): titles of instruments and numbered parts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from ragd.answer.gates import ANSWER_CHECKS, Draft
from ragd.answer.named import mentions_title, named_titles


@pytest.mark.parametrize("question, titles", [
    ("What obligations would the proposed EU Critical Medicines Act place on manufacturers?",
     ["Critical Medicines Act"]),
    ("Under the Windsor Framework, how does licensing work?", ["Windsor Framework"]),
    ("S.302 of the Indian Penal Code - what punishment can a court give?",
     ["Indian Penal Code"]),
    ("Is this in the US Code of Federal Regulations?", ["Code of Federal Regulations"]),
    # a short form alone before the noun is the title
    ("Does the FD&C Act require it?", ["FD&C Act"]),
    ("What does Article 4 of EU Regulation 2021/821 say?", ["EU Regulation"]),
    # punctuation ends a title; the part after the comma is what it is called by
    ("What does the Federal Food, Drug, and Cosmetic Act say?", ["Cosmetic Act"]),
    ("Which rules apply under the Falsified Medicines Directive and the Windsor Framework?",
     ["Falsified Medicines Directive", "Windsor Framework"]),
    # a sentence's first word is capitalised by grammar
    ("Critical Medicines Act: what does it require?", ["Medicines Act"]),
    ("Regulation of devices: who does it?", []),
    ("Does the Act apply to exports?", []),
    ("Under 21 CFR Part 11, what is an electronic signature?", []),
    ("What does the regulation say about the code of practice?", []),
    # in capitals or title case, case names nothing
    ("WHAT IS THE PUNISHMENT FOR THEFT UNDER THE INDIAN PENAL CODE?", []),
    ("What Is The Retention Period Under This Code?", []),
])
def test_named_titles_reads_the_titles_a_question_gives(question, titles):
    assert named_titles(question) == titles


def test_a_title_is_mentioned_whatever_its_case_spacing_punctuation_or_number():
    assert mentions_title("Falsified Medicines Directive",
                          "... under the falsified-medicines\nDIRECTIVES (2011/62/EU) ...")
    assert mentions_title("FD&C Act", "section 501 of the FD&C Act")
    assert not mentions_title("Critical Medicines Act", "critical medicines are listed; the Act")
    assert not mentions_title("Medicines Act", "the Human Medicines Actuary")


def test_an_instrument_no_retrieved_passage_names_is_outside_the_documents():
    check = ANSWER_CHECKS.get("named_titles")
    q = "What obligations would the proposed EU Critical Medicines Act place on manufacturers?"
    pool = ("guideline.pdf\nGMP for IMPs\n\nManufacturers of critical medicines co-operate "
            "with sponsors as the Act requires.",)
    assert check(Draft(q, ("Manufacturers co-operate with sponsors.",), pool=pool)) == \
        "not_in_documents"
    named = pool + ("proposal.pdf\nThe Critical Medicines Act\n\nManufacturers shall ...",)
    assert check(Draft(q, ("Manufacturers shall ...",), pool=named)) is None
    # no title named: nothing to check
    assert check(Draft("What must manufacturers do?", ("They shall.",), pool=pool)) is None


NAME = st.lists(st.sampled_from("Critical Medicines Windsor Falsified Penal Indian Health "
                                "Federal Export Administration Human".split()),
                min_size=1, max_size=4).map(" ".join)
NOUN = st.sampled_from(["Act", "Directive", "Regulations", "Framework", "Code"])


@settings(max_examples=100)
@given(NAME, NOUN, st.sampled_from(["What does the {} say?", "Under the {}, who signs?",
                                    "Is a licence needed under the {} for this?"]))
def test_property_a_title_the_pool_names_never_refuses(name, noun, form):
    """Whatever title a question gives, a pool holding it (in any case) lets the answer stand,
    and the titles read are words of the question ending with a title noun."""
    q = form.format(f"{name} {noun}")
    titles = named_titles(q)
    assert titles and all(t.endswith(noun) and t in q for t in titles)
    pool = (f"doc.pdf\nTitle\n\nAs the {name.upper()} {noun.lower()} provides, ...",)
    assert ANSWER_CHECKS.get("named_titles")(Draft(q, ("A sentence.",), pool=pool)) is None
    assert ANSWER_CHECKS.get("named_titles")(Draft(q, ("A sentence.",),
                                                   pool=("doc.pdf\n\nNo such text.",))) \
        == "not_in_documents"
