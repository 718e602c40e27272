"""Answer checks (ragd.answer.gates): pure functions of a drafted answer, registered by name."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings, strategies as st

from ragd.answer.checks import salient_units
from ragd.answer.gates import (ANSWER_CHECKS, Draft, asked_action, asked_group, asked_office,
                               asks_wording, holder_asked, members_asked, named_parts, numbers_in, run_checks,
                               stated_figures,
                               steps_asked, unsupplied, usual_or_current, wording_asked)
from ragd.errors import ConfigError
from ragd.profiles import load_profile

WORDS = st.lists(st.sampled_from(
    "the license export item shipment may be required for a an of to in what how many days "
    "section part court trial punishment rule records years seller buyer goods".split()),
    min_size=1, max_size=14).map(" ".join)


# facts_supplied ---------------------------------------------------------------------------

@pytest.mark.parametrize("question", [
    "Is my product 5A002?",
    "Is my customer a military end user?",
    "Are our goods controlled?",
    "Can I ship this order under the low value exception?",
    "Do these items need a licence?",
    # a clause naming the rules describes no case
    "Under the Export Administration Regulations, can I ship this order to Canada?",
    "Per 21 CFR Part 11, is this system compliant?",
])
def test_a_verdict_on_an_undescribed_thing_of_the_askers_is_refused(question):
    assert unsupplied(question)
    assert ANSWER_CHECKS.get("facts_supplied")(Draft(question, ("A sentence.",))) == \
        "facts_not_supplied"


@pytest.mark.parametrize("question", [
    "Can my lawyer be forced to reveal what I told him in confidence?",
    "Do I have the right to defend my house and belongings against a thief?",
    "My accountant was trusted with the company's money and spent it. What is this offence "
    "called?",
    "What is the punishment for cheating?",
    "Is it a crime to publish something that harms another person's reputation?",
    "What does this mean for exporters?",
    # described in the same long sentence, before "this" / "these" points back at it
    "We make valves and pumps and ship them to Canada; do these items need a licence?",
    "Our QC lab is moving from paper logbooks to a new LIMS, and the supplier told us its "
    "change-tracking feature is optional; what does Annex 11 expect of a computerised "
    "system like this one?",
    "In our plant we make valves and pumps for refineries, can these items be exported?",
])
def test_questions_that_describe_their_case_or_ask_the_rule_are_not(question):
    assert not unsupplied(question)
    assert ANSWER_CHECKS.get("facts_supplied")(Draft(question, ("A sentence.",))) is None


@given(WORDS)
def test_a_described_case_before_the_question_is_never_unsupplied(words):
    # only the first sentence can point at a thing nothing has described yet
    assume(not unsupplied(words))
    assert not unsupplied(f"{words}. Is my product controlled? Can I ship this order?")


# usual_or_current -------------------------------------------------------------------------

def test_usual_or_current_words_are_found_whole():
    assert usual_or_current("How long does a trial usually take?") == ["usually"]
    assert usual_or_current("Who is currently the Assistant Secretary?") == ["currently"]
    assert usual_or_current("How many cases are pending right now, on average?") == \
        ["right now", "on average"]
    assert usual_or_current("Is the current applicable? Is it concurrent?") == ["current"]
    assert usual_or_current("The unusual currency rules") == []


def test_currently_before_a_participle_says_what_the_askers_thing_is():
    # the asker's own state of affairs, not a question about the present one
    assert usual_or_current("Can we run the resin for more cycles than currently "
                            "claimed?") == []
    assert usual_or_current("Is a change to the presently approved process minor?") == []
    assert usual_or_current("What does current good manufacturing practice require?") == []
    # still asked: the present state itself
    assert usual_or_current("Is the site currently open?") == ["currently"]
    assert usual_or_current("What is the current version of Annex 1?") == ["current"]


def test_a_question_about_practice_needs_a_sentence_that_speaks_of_it():
    check = ANSWER_CHECKS.get("usual_or_current")
    q = "How long does a murder trial usually take?"
    assert check(Draft(q, ("The trial shall be completed within two months.",))) == \
        "undetermined"
    assert check(Draft(q, ("A trial usually takes three years.",))) is None
    assert check(Draft("How long may a trial take?",
                       ("The trial shall be completed within two months.",))) is None


@given(WORDS, st.lists(WORDS, min_size=1, max_size=4))
def test_usual_or_current_passes_every_question_without_those_words(question, sentences):
    assume(not usual_or_current(question))
    assert ANSWER_CHECKS.get("usual_or_current")(Draft(question, tuple(sentences))) is None


# stated_figures ---------------------------------------------------------------------------

def test_rates_and_sums_a_question_states_are_read_as_numerals():
    assert stated_figures("Is the threshold 10% or 25 percent?") == ["10", "25"]
    assert stated_figures("Is a fee of $1,500 or 300 rupees due?") == ["1500", "300"]
    # quantities of the asker's case are held against a limit the text states otherwise
    assert stated_figures("A 56-bit key, within 24 hours, for 12 months?") == []


def test_numbers_are_read_in_digits_and_in_words():
    assert numbers_in("within twenty-four hours or fifteen days") >= {"24", "15"}
    assert numbers_in("one hundred, 1,000.0 and ninety") >= {"100", "1000", "90"}
    assert "25" not in numbers_in("more than a de minimis amount of controlled content")


def test_a_rate_no_accepted_passage_states_is_refused():
    check = ANSWER_CHECKS.get("stated_figures")
    q = "Is the de minimis threshold 10% or 25%?"
    passages = ("Items incorporating more than a de minimis amount of controlled content.",)
    assert check(Draft(q, passages, passages, passages)) == "not_in_documents"
    held = ("The threshold is 25 percent; for some destinations ten percent.",)
    assert check(Draft(q, passages, passages, passages + held)) is None
    assert check(Draft("What is the de minimis threshold?", passages, passages,
                       passages)) is None


@given(WORDS, st.lists(WORDS, min_size=1, max_size=4),
       st.lists(st.integers(1, 99999), min_size=1, max_size=3))
def test_stated_figures_pass_whenever_the_evidence_states_them(q, evidence, figures):
    question = q + " " + " or ".join(f"{n}%" for n in figures) + "?"
    stated = tuple(evidence) + (" ".join(f"{n:,} percent" for n in figures),)
    assert stated_figures(question) == list(dict.fromkeys(str(n) for n in figures))
    assert ANSWER_CHECKS.get("stated_figures")(Draft(question, (), (), stated)) is None


# the registry and profiles ----------------------------------------------------------------

# steps_asked, wording_asked ----------------------------------------------------------------

@pytest.mark.parametrize("question, action", [
    ("How do I apply to OFAC for a specific license?", "appl"),
    ("How can a manufacturer obtain approval?", "obta"),
    ("How to register as an exporter?", "regist"),
    ("how do I get anticipatory bail", None),             # a light verb names no action
    ("How does the rule apply to software?", None),        # not a how-to question
    ("What must I submit?", None),
    # a comparison asks how two things stand, not a way ("the quality" is no agent)
    ("How do the quality data expectations for an IMP dossier differ from those of a "
     "marketing authorisation application?", None),
    ("How do I compare two suppliers' audit reports?", None),
])
def test_a_how_to_question_names_the_action_it_asks_the_way_to_do(question, action):
    assert asked_action(question) == action


def test_a_how_to_answer_must_speak_of_the_action():
    q = "How do I apply to OFAC for a specific license?"
    assert steps_asked(Draft(q, ("OFAC maintains controls on transactions with Cuba.",))) == \
        "undetermined"
    assert steps_asked(Draft(q, ("Submit an application to OFAC.",))) is None
    assert steps_asked(Draft(q, ("Exporters apply through the online system.",))) is None


def test_a_question_for_the_exact_wording_needs_a_quote_or_its_introduction():
    q = "What exact wording must the destination control statement contain?"
    assert asks_wording(q) and not asks_wording("What does the statement say about resale?")
    assert wording_asked(Draft(q, ("You may be required to enter an appropriate Destination "
                                   "Control Statement.",))) == "undetermined"
    assert wording_asked(Draft(q, ("The statement must read: “These items are controlled by "
                                   "the U.S. Government.”",))) is None
    assert wording_asked(Draft(q, ("The statement shall read as follows:",))) is None


@settings(max_examples=100)
@given(WORDS, st.lists(WORDS, min_size=1, max_size=3))
def test_steps_wording_and_members_pass_every_question_that_asks_none(question, sentences):
    assume(asked_action(question) is None and not asks_wording(question)
           and asked_group(question) is None)
    d = Draft(question, tuple(sentences))
    assert steps_asked(d) is None and wording_asked(d) is None and members_asked(d) is None


def test_a_question_for_a_groups_members_needs_a_sentence_saying_what_it_holds():
    q = "Which countries are in Country Group A:5?"
    assert asked_group(q) == "Country Group A:5"
    assert asked_group("Which countries are eligible destinations under GOV?") is None
    assert asked_group("Which offences are compoundable under s.320?") is None
    passing = "Joint ventures of companies headquartered in Country Group A:5 and A:6; or"
    assert members_asked(Draft(q, (passing,))) == "undetermined"
    for holds in ("Country Group A:5 includes Argentina, Australia and Austria.",
                  "The countries in Country Group A:5 are Argentina, Australia, Austria.",
                  "Country Group A:5 (see supplement no. 1): Argentina, Australia.",
                  "Country group A:5 consists of the following countries."):
        assert members_asked(Draft(q, (passing, holds))) is None, holds


# named_parts --------------------------------------------------------------------------------

# holder_asked -------------------------------------------------------------------------------

@pytest.mark.parametrize("question, office", [
    ("Who was the CDER director when FDA finalised its data integrity guidance in 2018?",
     "director"),
    ("Who chaired the ICH Q9(R1) expert working group?", "chair"),
    ("Who currently chairs the PIC/S Committee?", "chair"),
    ("Who is the current Executive Director of the European Medicines Agency?", "director"),
    ("Who is currently the Assistant Secretary for Export Enforcement?", "secretary"),
    ("Who is the current Chief Justice of India?", "chief"),
    ("Who is currently heading the agency?", "head"),
    ("Who led the task force on nitrosamines?", "lead"),
    ("Who signed the guidance?", "signatory"),
    # a role: what the rules say someone must, may or does do
    ("Who must certify each batch of finished product before release?", None),
    ("Under WHO GDP, who is allowed to sell medicines over the internet?", None),
    ("Who should write the test scripts, the supplier or the regulated user?", None),
    ("Who decides which companies are added to the Entity List?", None),
    ("Who leads the investigation of an OOS result?", None),
    ("Who heads the quality unit?", None),
    ("Who won the 2022 FIFA World Cup?", None),
])
def test_a_question_for_who_held_an_office_names_the_office(question, office):
    assert asked_office(question) == office


def test_an_answer_that_never_names_the_office_does_not_say_who_held_it():
    q = "Who was the CDER director when FDA finalised its data integrity Q&A guidance?"
    title = ("Data Integrity and Compliance With Drug CGMP Questions and Answers Guidance for "
             "Industry Center for Drug Evaluation and Research (CDER) December 2018")
    assert holder_asked(Draft(q, (title,))) == "undetermined"
    assert holder_asked(Draft(q, (title, "Janet Woodcock, M.D., Director, CDER."))) is None
    chaired = "Who chaired the ICH Q9(R1) expert working group?"
    assert holder_asked(Draft(chaired, ("The Expert Working Group agreed the draft.",))) \
        == "undetermined"
    assert holder_asked(Draft(chaired, ("The group was chaired by the EU topic leader.",))) \
        is None
    # a role question is never read as one
    role = "Who must certify each batch before release?"
    assert holder_asked(Draft(role, ("Each batch must be certified by a Qualified Person.",))) \
        is None


@settings(max_examples=100)
@given(WORDS, st.lists(WORDS, min_size=1, max_size=3))
def test_property_holder_asked_refuses_only_an_answer_without_the_office(question, sentences):
    """Whatever the words, the check refuses only when the question asks for an office's
    holder, and never once a sentence names that office."""
    for q in (question, "Who was the director of " + question + "?"):
        verdict = holder_asked(Draft(q, tuple(sentences)))
        assert verdict in (None, "undetermined")
        if asked_office(q) is None:
            assert verdict is None
        named = tuple(sentences) + ("The " + asked_office(q) + " then was Dr. A. Person.",) \
            if asked_office(q) else tuple(sentences)
        assert holder_asked(Draft(q, named)) is None


def test_a_named_part_no_retrieved_passage_mentions_is_outside_the_documents():
    q = "What are the requirements of EU GMP Annex 23 for cannabis cultivation?"
    assert named_parts(q) == [("annex", "23")]
    assert named_parts("What does Annex IV of the Directive require?") == [("annex", "iv")]
    # a number that goes on is a reference into the part, read by citation schemes
    assert named_parts("Under 21 CFR 11.50, what must a record show?") == []
    assert named_parts("What does Article 5(2) require?") == []
    assert named_parts("What role do civil servants play in part of the process?") == []
    check = ANSWER_CHECKS.get("named_parts")
    pool = ("2015-10_annex15.pdf\nAnnex 15\n\nQualification and validation ...",
            "pe-009-17.pdf\nPIC/S GMP Guide\nANNEX 2\nManufacture of biological products.",
            "guide.pdf\nGuide\n\nAs described in Annex 230 of the other guide.")
    assert check(Draft(q, ("Annex 15 describes validation.",), pool=pool)) == \
        "not_in_documents"
    for asked in ("What does Annex 15 require for process validation?",   # its text
                  "What does annex 2 cover?",                               # a heading
                  "Which Annex 15 rules apply?"):
        assert check(Draft(asked, ("A sentence.",), pool=pool)) is None, asked
    # a file name spells it too
    assert check(Draft("What is in annex 19?", ("A sentence.",),
                       pool=("2005_12_14_annex19_en.pdf\n\n\nReference samples ...",))) is None


@settings(max_examples=100, deadline=None)
@given(WORDS, st.integers(1, 40))
def test_property_a_part_the_pool_names_never_refuses(words, number):
    for noun in ("Annex", "chapter", "PART"):
        q = f"{words} {noun} {number}?"
        pool = (f"doc.pdf\nTitle\n\n{noun.upper()} {number} sets out the rules.",)
        assert ANSWER_CHECKS.get("named_parts")(Draft(q, ("A sentence.",), pool=pool)) is None


def test_run_checks_returns_the_first_refusal_in_the_listed_order():
    d = Draft("Is my product usually controlled?", ("It is controlled.",))
    assert run_checks(["usual_or_current", "facts_supplied"], d) == \
        ("undetermined", "usual_or_current")
    assert run_checks(["facts_supplied", "usual_or_current"], d) == \
        ("facts_not_supplied", "facts_supplied")
    assert run_checks([], d) is None


@settings(max_examples=50)
@given(st.sampled_from(sorted(ANSWER_CHECKS.names())))
def test_every_registered_check_accepts_a_plain_answer(name):
    d = Draft("What is the punishment for theft?", ("Theft is punished with prison.",))
    assert ANSWER_CHECKS.get(name)(d) is None


def test_profiles_name_checks_that_exist(tmp_path):
    for name in ("ear", "legal-in", "pharma-qa"):
        assert set(load_profile(name).data["answer"]["checks"]) <= set(ANSWER_CHECKS.names())
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[answer]\nchecks = ["vibes"]\n')
    with pytest.raises(ConfigError, match="vibes"):
        load_profile(str(bad))


def test_a_number_joined_to_a_word_is_a_quantity_not_a_code():
    assert salient_units("Encryption with only a 56-bit key under ENC?") == [("enc",)]
    assert salient_units("Is a 30-day review period counted?") == []
    assert salient_units("Is my product 5A002 or DSP-5 or Q13?") == [("5a002",), ("dsp", "5"),
                                                                   ("q13",)]


# end to end: a profile lists the checks, answer() refuses with their reasons -------------

@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    from helpers import VOCABULARY
    from ragd import ingest, open_collection
    from ragd.embedding.toy import ToyEmbedder

    root = tmp_path_factory.mktemp("gated")
    docs = root / "docs"
    docs.mkdir()
    (docs / "logs.md").write_text("# Logging policy\n\nAudit logs must be retained for 400 days. "
                                  "Logs older than 400 days are deleted.\n")
    profile = root / "gated.toml"
    profile.write_text('name = "gated"\n[evidence]\nvalidators = ["relevance_floor", "dedupe"]\n'
                       '[answer]\nchecks = ["facts_supplied", "usual_or_current", '
                       '"stated_figures"]\n')
    toy = ToyEmbedder(list(dict.fromkeys(list(VOCABULARY) + ["retained", "deleted"])))
    coll = open_collection(root / "store", "docs", toy, create=True, profile=str(profile))
    ingest([docs], coll)
    yield coll
    coll.close()


@pytest.mark.parametrize("question, reason, by", [
    ("How long are audit logs retained?", None, ""),
    ("How long are audit logs usually retained?", "undetermined", "check usual_or_current"),
    ("Are my audit logs retained?", "facts_not_supplied", "check facts_supplied"),
    ("Are audit logs retained for 10% longer than 400 days?", "not_in_documents",
     "check stated_figures"),
])
def test_a_profile_lists_the_checks_that_may_refuse(gated, question, reason, by):
    from ragd.answer import answer

    a = answer(question, gated)
    assert a.refusal_reason == reason, a.answer
    assert a.answered == (reason is None)
    assert a.trace.refused_by == by          # which check refused, in the trace
    if reason:
        assert a.answer == gated.profile.data["answer"]["refusal_text"] and not a.sentences


def test_how_a_text_defines_a_thing_is_no_how_to():
    from ragd.answer.gates import asked_action

    assert asked_action("How do the WHO good distribution practices define sampling?") is None
    assert asked_action("How does Annex 1 describe a dead leg?") is None
    assert asked_action("How do I apply for a licence?") == "appl"
