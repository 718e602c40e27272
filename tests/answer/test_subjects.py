"""What a question asks to define: definitional and keyword questions, topic questions,
comparisons, acronyms and spelt-out prefixes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.analysis import analyze, name_terms
from ragd.answer.subjects import (asks_for_list, compared_subjects, definition_subject,
                                  definition_subjects, undesignated)


def test_a_bare_keyword_question_asks_what_the_thing_it_names_is():
    # a few words, no question form: the thing named, without the document's designation
    assert definition_subject("ICH Q13 continuous manufacturing?") == ["continu", "manufactur"]
    assert definition_subject("design space q8r2?") == ["design", "space"]
    assert definition_subject("Part 11 audit trail") == ["audit", "trail"]
    assert definition_subject("21 CFR 211.180 retention period") == ["retent", "period"]
    assert definition_subject("FEFO?") == ["fefo"]
    # a question in words, or a long run of keywords, is not one
    assert definition_subject("Is continuous manufacturing allowed?") == []
    assert definition_subject("how long do we keep batch records") == []
    assert definition_subject("batch record retention period for sterile products eu") == []


@pytest.mark.parametrize(("question", "subjects"), [
    ("What is the difference between a reference sample and a retention sample under EU "
     "GMP Annex 19?", [["refer", "sampl"], ["retent", "sampl"]]),
    ("reference vs retention sample annex 19", [["refer"], ["retent", "sampl"]]),
    ("How does a deviation differ from an OOS result?", [["deviat"], ["oo", "result"]]),
    ("Compare batch records and master production records",
     [["batch", "record"], ["master", "product", "record"]]),
    ("IQ versus OQ?", [["iq"], ["oq"]]),
])
def test_a_comparison_asks_to_define_both_things(question, subjects):
    assert compared_subjects(question) == subjects
    # a side of one word is also read with the other side's head noun, as a third subject
    shared = [[*one, many[-1]] for one, many in (subjects, subjects[::-1])
              if len(one) == 1 and len(many) > 1]
    assert definition_subjects(question) == subjects + shared


def test_a_shared_head_noun_is_a_reading_more():
    assert definition_subjects("reference vs retention sample annex 19") == [
        ["refer"], ["retent", "sampl"], ["refer", "sampl"]]
    assert definition_subjects("IQ versus OQ?") == [["iq"], ["oq"]]


def test_two_verbs_sharing_an_object_are_each_a_subject_alone():
    # "reprocessing and reworking a batch": the batch is what both are done to
    assert definition_subjects("What's the difference between reprocessing and reworking a "
                               "batch?") == [["reprocess"], ["rework", "batch"],
                                             ["reprocess", "batch"], ["rework"]]
    # not for a shared head noun: "retention" alone is no subject
    assert ["retent"] not in definition_subjects("reference vs retention sample")


def test_a_subject_written_with_e_dash_is_also_read_spelt_out():
    assert definition_subjects("Part 11 e-signature?") == [["e", "signatur"],
                                                           ["electron", "signatur"]]
    assert definition_subjects("what is an e-record") == [["e", "record"],
                                                         ["electron", "record"]]
    assert definition_subjects("vitamin e?") == [["vitamin", "e"]]   # no prefix: as written


def test_a_subjects_acronym_in_parentheses_is_a_subject_too():
    # as a user writes it, or as retrieval reads it from the documents ("read as")
    assert definition_subjects("ICH Q13 continuous manufacturing (CM)?") == [
        ["continu", "manufactur"], ["cm"]]
    assert definition_subjects("What is an e-signature (ES)?") == [
        ["e", "signatur"], ["electron", "signatur"], ["es"]]
    # an acronym outside the subject (in a qualifier) is not the subject's
    assert definition_subjects("what is RTD in continuous manufacturing (CM)") == [["rtd"]]
    # no subject, no acronym; a parenthesis of lower case is no acronym
    assert definition_subjects("what is (CM)") == []
    assert definition_subjects("What is a batch (see below)?") == [["batch"]]


def test_what_a_document_says_about_a_thing_asks_first_what_it_is():
    assert definition_subjects("What does EU GMP say about retention samples?") == [
        ["retent", "sampl"]]
    assert definition_subjects("what does ICH say about continuous processing (CM) of drug "
                               "products") == [["continu", "process", "drug", "product"], ["cm"]]
    assert definition_subjects("What does Section 437 CrPC say about bail in non-bailable "
                               "offences?") == [["bail"]]
    # a second question, or no document saying: no term to define
    assert definition_subjects("what does the guidance say about how to investigate it") == []
    assert definition_subjects("what do you say about that") == []


def test_what_compares_nothing_asks_one_definition_or_none():
    assert compared_subjects("What is an electronic signature under 21 CFR Part 11?") == []
    assert definition_subjects("What is an electronic signature under 21 CFR Part 11?") == [
        ["electron", "signatur"]]
    assert definition_subjects("Who must certify each batch?") == []
    # the same thing twice is no comparison
    assert compared_subjects("batch record vs batch records") == []


def test_a_second_question_run_into_the_first_leaves_the_first_its_subject():
    """"what is X and what ...?": two questions, the first asking what X is, as it would
    alone; a question word inside the subject itself still names no term."""
    assert definition_subjects("What is a QP confirmation and what responsibility does the "
                               "confirming QP take on?") == [["qp", "confirm"]]
    assert definition_subjects("What is the purpose of the PIC/S GDP aide-memoire and how "
                               "is it structured?") == definition_subjects(
        "What is the purpose of the PIC/S GDP aide-memoire?")
    assert definition_subjects("What is the product which the batch holds?") == []


def test_a_lead_in_before_a_dash_is_no_part_of_the_subject():
    assert definition_subjects("EU GMP Annex 16 - what is a QP 'confirmation'?") == [
        ["qp", "confirm"]]
    assert definition_subjects("MHRA DI guidance – what is a validated scanning process?") == [
        ["valid", "scan", "process"]]
    assert definition_subjects("Section 11 CPC - what is res judicata?") == [["res", "judicata"]]
    # a dash inside a term is no lead-in
    assert definition_subjects("What is a co-packer?") == [["co", "packer"]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["what", "is", "the", "difference", "between", "and", "vs",
                                 "versus", "compare", "with", "how", "does", "differ", "from",
                                 "a", "reference", "sample", "retention", "annex", "19", "?",
                                 "under", "EU", "GMP", "(QRM)", "batch", "records"]),
                max_size=14))
def test_property_a_comparison_names_two_different_things_or_none(words):
    question = " ".join(words)
    pair = compared_subjects(question)
    assert pair == [] or (len(pair) == 2 and all(pair) and set(pair[0]) != set(pair[1]))
    subjects = definition_subjects(question)
    assert all(subjects)
    base = pair or subjects[:1]
    assert subjects[:len(base)] == base
    # beyond them: a side read with the other's head noun, a subject's "e-" spelt out, or
    # an acronym the question writes in parentheses
    for extra in subjects[len(base):]:
        assert ((len(extra) == 2 and [extra[0]] in pair) or "electron" in extra
                or (len(extra) == 1 and f"({extra[0]})" in question.lower()))


def test_a_keyword_questions_words_naming_the_document_are_no_part_of_its_subject():
    names = name_terms("others/MHRA_GxP_data_integrity_guide_March_edited_Final.pdf")
    assert {"mhra", "gxp", "data", "integr", "guid"} <= names      # "GxP" whole and split
    subject = definition_subject("mhra gxp data integrity guidance metadata definition")
    assert subject == ["mhra", "gxp", "data", "integr", "guidanc", "metadata"]
    # "guidance" is named by the file's "guide" (one begins the other)
    assert undesignated(subject, names) == ["metadata"]
    # another document names none of it; a subject all of whose words name the document
    # is the subject itself ("data integrity definition"): nothing to take away
    assert undesignated(subject, name_terms("ich/Q9.pdf")) == []
    assert undesignated(["data", "integr"], names) == []
    assert undesignated(["risk"], name_terms("ich/Q9.pdf")) == []
    # short words are not read as beginnings of one another ("p" of "GxP" names no "prefix")
    assert undesignated(["pr", "metadata"], names) == []
    assert undesignated(["ich", "q9", "risk"], name_terms("ich/Q9.pdf")) == ["risk"]
    # the term's own words a file name shares are no designation: the subject stays whole
    assert undesignated(["data", "govern"], names) == []
    assert undesignated(["data", "integr", "risk", "assess"], names) == []
    assert undesignated(["process", "valid"], name_terms(
        "fda/Final GFI BIMO Processes and Practices -- 12-17-25.pdf")) == []


def test_a_compared_side_ends_where_a_question_runs_on_and_starts_after_a_lead_in():
    assert compared_subjects("Analytical procedure versus analytical method: what does the "
                             "EMA IMPD quality guideline say distinguishes the two?") == [
        ["analyt", "procedur"], ["analyt", "method"]]
    assert compared_subjects("Sec. 740.8: NAC versus ACA?") == [["nac"], ["aca"]]
    assert compared_subjects("reference vs retention sample, which one is kept longer?") == [
        ["refer"], ["retent", "sampl"]]
    # "WHO" the authority is no question word
    assert compared_subjects("What is the difference between EU GMP and the WHO GMP "
                             "guidelines?") == [["eu", "gmp"], ["gmp", "guidelin"]]


def test_a_definitional_question_wrapped_in_a_request_names_its_subject():
    assert definition_subjects("could you tell me how ICH Q12 actually defines established "
                               "conditions (EC)?") == [["establish", "condit"], ["ec"]]
    assert definition_subjects("Tell me how the guide defines metadata") == [["metadata"]]
    assert definition_subjects("Explain what is meant by a batch") == [["batch"]]
    # a request for something else names no term
    assert definition_subjects("Explain where the WHO GMP main principles draw the line") == []
    assert definition_subjects("could you tell me how long records are kept?") == []


def test_a_question_asking_for_the_items_of_a_list():
    for q in ("Which in-process controls does 21 CFR 211.110 list for sampling?",
              "21 CFR 211.110 in-process controls listed for sampling",
              "What are the four PQS elements in ICH Q10?",
              "21 CFR 11.50 signature manifestation contents",
              "What must a signed electronic record contain?",
              "Which records does the batch file include?",
              "proces validaton stages fda",
              "What details should be given when discussing the differences between the "
              "processes?", "Which particulars must be stated on the label?"):
        assert asks_for_list(q), q
    for q in ("What is an electronic signature?", "How long must batch records be kept?",
              "Does the guide include biologics in its scope?",
              "What are the responsibilities of the QP?",
              "What details of a deviation are important?"):
        assert not asks_for_list(q), q


def test_a_lead_in_naming_where_to_look_is_no_part_of_the_subject():
    assert definition_subjects("MHRA GxP DI guidance: definition of metadata?") == [
        ["metadata"]]
    assert definition_subjects("ICH Q9: what is risk?") == [["risk"]]
    # a lead-in that asks is the question itself; a colon question asking no definition
    # names nothing
    assert definition_subjects("What is X: a question?") == [["x", "question"]]
    assert definition_subjects("EU GMP Ch.3: do QC labs have to be kept apart?") == []


def test_a_difference_asked_after_a_lead_in_names_both_sides():
    assert compared_subjects("eu gmp annex 19 difference between a reference sample and a "
                             "retention sample") == [["refer", "sampl"], ["retent", "sampl"]]
    assert compared_subjects("Is there a difference between a batch and a lot?") == [
        ["batch"], ["lot"]]


def test_no_list_is_asked_by_a_count_of_time_or_a_word_ending_in_s():
    for q in ("Are batch records kept for the 3 years after release?",
              "How long is the 12 months stability study?",
              "What does the 2011 guidance say is required?"):
        assert not asks_for_list(q), q
    assert asks_for_list("the 3 stages of process validation")


def test_the_authority_who_before_a_colon_is_no_question_word():
    assert definition_subjects("WHO TRS 1010: what is a retest period?") == [
        ["retest", "period"]]
    assert definition_subjects("ICH Q9: could you tell me what is meant by hazard?") == [
        ["hazard"]]


def test_how_a_text_describes_a_thing_asks_what_it_is():
    assert definition_subjects("How does ICH Q13 describe continuous manufacturing?") == [
        analyze("continuous manufacturing")]
    assert definition_subjects("I need to know how the WHO data integrity guideline "
                               "describes a data integrity risk assessment.") == [
        analyze("data integrity risk assessment")]
    assert definition_subjects("How is a batch described in Annex 16?") == [analyze("batch")]
    # describing what to do is no definition
    assert definition_subjects("Describe how deviations must be recorded.") == []


@pytest.mark.parametrize(("question", "subject"), [
    ("What makes an e-signature an 'advanced electronic signature' under the PIC/S guide?",
     ["advanc", "electron", "signatur"]),
    ("What counts as a critical deviation?", ["critic", "deviat"]),
    ("What qualifies as a starting material?", ["start", "materi"]),
    ("What constitutes a major change under ICH Q12?", ["major", "chang"]),
    ("When is a change considered a major variation?", ["major", "variat"]),
    # what it takes to be something, asked of no named thing: no subject
    ("What makes a batch release valid?", []),
    ("What makes the process robust?", []),
])
def test_what_it_takes_to_be_a_thing_asks_what_the_thing_is(question, subject):
    assert definition_subject(question) == subject
