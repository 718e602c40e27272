"""Question terms against the evidence: codes written without their separators, typos."""

from __future__ import annotations

from ragd.analysis import analyze
from ragd.answer.checks import outside_terms, unanswered_terms
from ragd.answer.terms import held, missing_terms


def test_a_code_written_without_separators_is_held_by_its_pieces():
    vocabulary = set(analyze("ICH Q8(R2) pharmaceutical development; ISO 14644 cleanrooms; Q13"))
    assert {"q8", "r2", "iso", "14644", "q13"} <= vocabulary
    assert held("q8r2", vocabulary) and held("iso14644", vocabulary) and held("q13", vocabulary)
    assert not held("q8r3", vocabulary)        # r3 is not there
    assert not held("q9r1", vocabulary)        # neither piece
    assert not held("5a991", vocabulary)       # one run of letters between digits, unknown
    assert missing_terms(["q8r2", "q9r1", "pharmaceut"], vocabulary) == ["q9r1"]


def test_a_question_naming_a_code_as_the_documents_write_it_otherwise_is_not_outside():
    passages = ["ICH Q8(R2) defines design space as the multidimensional combination of input "
                "variables.", "Q13 covers continuous manufacturing."]
    pool = [set(analyze(p)) for p in passages + ["Batch records are kept.", "Water systems.",
                                                  "Cleaning validation."]]
    vocabulary = set().union(*pool)
    assert outside_terms("design space q8r2?", [], vocabulary) == []
    assert outside_terms("design space q9r1?", [], vocabulary) == ["q9r1"]
    assert unanswered_terms("design space q8r2?", passages[:1], pool) == []
    assert unanswered_terms("design space q8r2?", passages[1:], pool) == ["q8r2"]


def test_an_acronym_naming_the_cited_document_is_not_required_of_the_answer():
    cited = ["A fourfold extrapolation of accelerated stability data may be acceptable."]
    same_document = set(analyze("The IMPD should contain the stability data of the product."))
    other = [set(analyze(t)) for t in ("Batch records are kept.", "Water systems.",
                                       "Cleaning validation.", "Audit trails are reviewed.")]
    pool = [set(analyze(cited[0])), same_document, *other]
    q = "How much extrapolation is acceptable according to the IMPD guideline?"
    # "IMPD" is in 1 of 6 retrieved passages: not the corpus' common word, so an answer not
    # saying it does not answer ...
    assert unanswered_terms(q, cited, pool) == ["impd"]
    # ... unless a retrieved passage of the cited document holds it: it names that document
    assert unanswered_terms(q, cited, pool, documents=[pool[0], same_document]) == []
    # passages of other documents do not count
    assert unanswered_terms(q, cited, pool, documents=[pool[0], *other]) == ["impd"]


def test_an_acronym_is_answered_by_its_long_form_as_the_documents_define_it():
    cited = ["Decision makers should take responsibility for coordinating quality risk "
             "management across various functions."]
    pool = [set(analyze(t)) for t in (cited[0], "Batch records are kept.", "Water systems.",
                                      "Cleaning validation.", "Audit trails are reviewed.")]
    q = "QRM decision makers responsibilities"
    assert unanswered_terms(q, cited, pool) == ["qrm"]
    assert unanswered_terms(q, cited, pool, long_forms={"QRM": "quality risk management"}) == []
    # a long form the cited passages hold only in part does not answer it
    assert unanswered_terms(q, cited, pool,
                            long_forms={"QRM": "quality review meeting"}) == ["qrm"]


def test_a_question_asking_a_period_wants_a_duration():
    from ragd.answer.checks import answer_type, satisfies

    assert answer_type("How long must batch records be kept?") == "duration"
    assert answer_type("21 CFR 211.180 record retention period?") == "duration"
    assert answer_type("What is the storage time for samples?") == "duration"
    assert answer_type("What does the retention sample show?") is None
    assert satisfies("duration", ["It shall be retained for at least 1 year after expiry."])
    assert not satisfies("duration", ["Records shall be readily available for inspection."])


def test_only_amounts_numbers_and_durations_are_preferred_in_sentences():
    from ragd.answer.pipeline import _typed

    assert _typed("duration")("Records shall be retained for 5 years.")
    assert not _typed("duration")("Records shall be retained.")
    assert _typed("time") is None and _typed(None) is None   # "when may ...": a condition
    assert _typed("date")("The evaluation is due by 1 December 2015.")


def test_a_question_asking_by_when_wants_a_date_not_an_acts_number_nor_the_verb_may():
    from ragd.answer.checks import answer_type, satisfies

    for q in ("From what date did the safety features become mandatory?",
              "Chapter 3 revision: deadline for the toxicological evaluation?"):
        assert answer_type(q) == "date", q
    assert answer_type("When may a batch be released?") == "time"
    # which date a rule counts from is answered by naming it ("the manufacturing date of the
    # oldest tailings"), not by a date
    for q in ("If we blend tailings, what date should the expiry date of the blend be "
              "based on?", "Which date is the retest period counted from?"):
        assert answer_type(q) is None, q
    # an event or a condition answers these as often ("before the batch is released")
    for q in ("By when must the toxicological evaluation be done?",):
        assert answer_type(q) == "time", q
    for q in ("Who sets the deadline for CAPA closure?", "Which expiry date applies?",
              "What year-end reporting is needed?", "What proportion of units is sampled?"):
        assert answer_type(q) is None, q
    assert satisfies("date", ["Submit it by 31/12/2025."])
    # a past event asks its date; a share asks a percentage, not any number
    assert answer_type("When did the FDA issue its first warning letter on this?") == "date"
    assert answer_type("When was the guideline adopted?") == "date"
    assert answer_type("What percentage of inspections found data integrity problems?") == \
        "percent"
    assert answer_type("How many batches are placed on stability?") == "number"
    assert satisfies("percent", ["Some 12 % of the sites were cited."])
    assert satisfies("percent", ["Ten percent of the units are inspected."])
    assert not satisfies("percent", ["In recent years, FDA has observed 21 CFR violations."])
    assert satisfies("date", ["It applies from 1 December 2015."])
    assert satisfies("date", ["Revised in May 2019."]) and satisfies("date", ["due 9 May"])
    # a year inside a legal act's number dates the act; "may" is mostly the verb
    assert not satisfies("date", ["The safety features referred to in Article 54(o) of "
                                  "Directive 2001/83/EC have been affixed."])
    assert not satisfies("date", ["Regulation (EU) No 536/2014 and (EU) 2016/161 apply."])
    assert not satisfies("date", ["For certain products, special guidance may apply."])


def test_proper_names_are_the_uncommon_capitalised_words_not_opening_a_sentence():
    """A company's or a product's name is a capitalised word no ordinary English word
    spells; a place ("Germany") is an ordinary word of the model's vocabulary, a word
    opening a sentence or a parenthesis is capitalised by grammar, and a name joined by a
    hyphen ("Pfizer-BioNTech") or a dotted form ("U.S.-origin") is read elsewhere."""
    from ragd.answer.checks import proper_names

    assert proper_names("What did FDA's warning letter to Aurobindo Pharma Unit VII say, "
                        "and did Aurobindo reply?") == ["Aurobindo", "Pharma"]
    assert proper_names("Which bacterium was in the EzriCare tears?") == ["EzriCare"]
    assert proper_names("When was Pfizer's Kalamazoo site inspected?") == ["Pfizer", "Kalamazoo"]
    assert proper_names("Can we ship from Germany to Brazil under Annex 16?") == []
    assert proper_names("Assuming a licence, are Keytruda (Pembrolizumab) vials kept cold? "
                        "Pembrolizumab is stored how?") == ["Keytruda"]
    assert proper_names("Comirnaty (Pfizer-BioNTech) and U.S.-origin parts") == []
    assert proper_names("What is an electronic signature under 21 CFR Part 11?") == []


def test_an_acronym_written_with_a_hyphen_is_held_as_the_documents_write_it():
    """"FT-IR" is indexed as ft, ir: read as one term "ftir", a passage writing "FT-IR"
    did not hold it and an answer citing it was refused (fresh 20's z021). Either way of
    writing it answers the other; an acronym no passage writes still does not."""
    vocabulary = set(analyze("such as an FT-IR instrument"))
    assert outside_terms("Can we keep the FT-IR printout?", [], vocabulary) == []
    assert outside_terms("Can we keep the FT-IR printout?", [], set(analyze("the FTIR"))) == []
    assert outside_terms("Can we keep the FT-IR printout?", [], set(analyze("a pH meter"))) \
        == ["ft ir"]
    passages = ["Is it acceptable to retain paper printouts from an FT-IR instrument?"]
    for question in ("Our FT-IR printout?", "Our FTIR printout?"):
        assert unanswered_terms(question, passages, [set()]) == [], question
    assert unanswered_terms("Our NMR printout?", passages, [set()]) == ["nmr"]
