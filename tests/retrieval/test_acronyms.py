"""Acronyms of a query and the long forms documents define for them ("Long Form (LF)")."""

from __future__ import annotations

import pytest

from ragd.retrieval.acronyms import (acronym_of, annotate, annotate_synonyms, best_long_form,
                                     candidates, long_forms, named_long_form, short_forms,
                                     spell_after, used_short_forms, written_out)


@pytest.mark.parametrize(("text", "acronym", "forms"), [
    ("Results that fall outside are out of specification (OOS) results.", "OOS",
     ["out of specification"]),
    ("8.36 Out-of-specification (OOS) investigations", "OOS", ["out of specification"]),
    ("2.3 A Contamination Control Strategy (CCS) should be implemented.", "CCS",
     ["contamination control strategy"]),
    ("for an investigational medicinal product (IMP) the sponsor", "IMP",
     ["investigational medicinal product"]),
    ("corrective action and preventive action (CAPA) system", "CAPA",
     ["corrective action and preventive action"]),
    ("the Established Conditions (ECs) of the product", "EC", ["established conditions"]),
    ("First Expiry, First Out (FEFO) rules apply", "FEFO", ["first expiry first out"]),
])
def test_definitions_are_read(text, acronym, forms):
    assert long_forms(text, acronym) == forms


@pytest.mark.parametrize(("text", "acronym"), [
    ("the conditions listed in paragraph (a) apply", "A"),
    ("see the steps (1) and (2)", "S"),
    ("as described in the annex (see below) of the guide", "SB"),
    ("the quality system (QS) is described", "CCS"),           # another acronym
    ("the overall control strategy (CCS) is described", "CCS"),  # initials do not spell it
    ("a sterile product. (CCS) follows", "CCS"),                 # nothing before it
    ("of the (OOS)", "OOS"),                                     # small words only
])
def test_no_definition(text, acronym):
    assert long_forms(text, acronym) == []


def test_the_long_form_most_texts_define_wins_ties_alphabetical():
    texts = ["European Medicines Agency (EMA) guidance",
             "Economically Motivated Adulteration (EMA) risk",
             "the European Medicines Agency (EMA) published"]
    assert best_long_form(texts, "EMA") == "european medicines agency"
    assert best_long_form(texts[:2], "EMA") == "economically motivated adulteration"
    assert best_long_form(texts[1::-1], "EMA") == "economically motivated adulteration"
    assert best_long_form(["no definition here"], "EMA") is None


def test_query_tokens_that_may_be_acronyms():
    assert acronym_of("OOS") == "OOS" and acronym_of("ECs") == "EC"
    assert acronym_of("oos") == "OOS"              # plain words: only a definition decides
    assert acronym_of("the") is None and acronym_of("Q12") is None
    assert acronym_of("A") is None and acronym_of("SPECIFICATION") is None
    assert candidates("what r ECs in Q12 under the GMP of the EU", ignore={"under"}) == [
        "EC", "GMP", "EU"]


def test_a_long_form_the_query_spells_out_gets_the_acronym_texts_define():
    texts = ["lifecycle management of continuous manufacturing (CM). This guideline",
             "Continuous Manufacturing (CM) of drug substances",
             "Quality Risk Management (QRM) A systematic process"]
    q = "How does ICH Q13 describe continuous manufacturing?"
    assert short_forms(q, texts) == {"CM": "continuous manufacturing"}
    assert annotate(q, {"CM": "continuous manufacturing"}) == (
        "How does ICH Q13 describe continuous manufacturing (CM)?")
    # most texts first, then alphabetical; at most ``limit``
    both = "continuous manufacturing and quality risk management"
    assert list(short_forms(both, texts)) == ["CM", "QRM"]
    assert list(short_forms(both, texts, limit=1)) == ["CM"]


def test_an_acronym_passages_use_where_their_document_writes_the_long_form_out():
    q = "Is RTRT mandatory if we switch to continuous manufacturing under ICH Q13?"
    passages = [("q13.pdf", "RTRT is not a regulatory requirement for CM implementation."),
                ("q13.pdf", "Continuous manufacturing allows material to flow without holds."),
                ("other.pdf", "CM units are listed in the Annex. Records and SOPs apply.")]
    assert used_short_forms(q, passages) == {"CM": "continuous manufacturing"}
    # no document of the retrieved passages writes the long form out: not read as one
    assert used_short_forms(q, [passages[0], passages[2]]) == {}
    # the query holds the acronym, or spells out no run of words whose initials it is
    assert used_short_forms(q + " (CM)", passages) == {}
    assert used_short_forms("Is RTRT mandatory for manufacturing?", passages) == {}
    # a clause naming the rules the question is asked under names no subject
    rules = [("gdp.pdf", "There should be a periodic audit with regard to GDP."),
             ("gdp.pdf", "These good distribution practices apply to all parties.")]
    assert used_short_forms("Under WHO good distribution practices, may a wholesaler ship "
                            "products close to expiry?", rules) == {}
    assert used_short_forms("May a wholesaler ignore good distribution practices?", rules) == \
        {"GDP": "good distribution practices"}
    # a stop word in capitals is no acronym ("AND" of a heading in capitals)
    shouting = [("d.pdf", "STORAGE AND DISTRIBUTION of products"),
                ("d.pdf", "apply normal distribution practice")]
    assert used_short_forms("Do we apply normal distribution rules?", shouting) == {}


def test_no_acronym_for_words_not_spelt_out_or_already_said():
    texts = ["lifecycle management of continuous manufacturing (CM). This guideline"]
    assert short_forms("continuous manufacturing CM", texts) == {}        # already said
    assert short_forms("continuous processing", texts) == {}              # not the long form
    assert short_forms("manufacturing", texts) == {}                      # a part of it
    assert short_forms("What is a batch (lot)?", ["A batch (lot) is one run."]) == {}
    assert annotate("batch records", {"CM": "continuous manufacturing"}) == "batch records"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.sampled_from(["continuous", "manufacturing", "(CM)", "CM", "quality", "risk",
                          "management", "(QRM)", "of", "the", "-", "?", "(", ")", "Q13",
                          "process", "(a)", "data", "integrity"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORDS, max_size=12), st.lists(st.lists(_WORDS, max_size=20), max_size=4))
def test_property_annotating_only_adds_acronyms_the_texts_define(query_words, texts):
    query = " ".join(query_words)
    found = short_forms(query, [" ".join(t) for t in texts])
    annotated = annotate(query, found)
    # nothing of the question is lost or reordered: only " (ACRONYM)" is inserted
    stripped = annotated
    for acronym in found:
        stripped = stripped.replace(f" ({acronym})", "", 1)
    assert stripped == query
    for acronym, form in found.items():
        assert acronym.isupper() and acronym not in query.upper().split()
        assert any(form in long_forms(" ".join(t), acronym) for t in texts)


def test_a_synonym_an_expansion_rule_reads_as_a_long_form_takes_its_acronym():
    rules = {"continuous processing": ["continuous manufacturing", "ICH Q13"]}
    forms = {"CM": "continuous manufacturing"}
    assert annotate_synonyms("what does ICH say about continuous processing of drugs", forms,
                             rules) == "what does ICH say about continuous processing (CM) of drugs"
    # the long form itself: annotated once, as annotate does
    assert annotate_synonyms("continuous manufacturing or continuous processing?", forms,
                             rules) == "continuous manufacturing (CM) or continuous processing?"
    # no rule reading the phrase as that long form, or no such phrase: as annotate leaves it
    assert annotate_synonyms("continuous processing", {"BM": "batch manufacturing"},
                             rules) == "continuous processing"
    assert annotate_synonyms("batch processing", forms, rules) == "batch processing"


def test_the_long_form_a_documents_name_spells():
    names = ["fda/guidance-computer-software-assurance-production-quality-system.pdf",
             "fda/Process-Validation--General-Principles-and-Practices.pdf",
             "others/MHRA_GxP_data_integrity_guide_March.pdf", "Data Integrity guide"]
    assert named_long_form(names, "CSA") == "computer software assurance"
    assert named_long_form(names, "PV") == "process validation"
    assert named_long_form(names, "DI") == "data integrity"      # two names, one form
    assert named_long_form(names, "QC") is None
    assert named_long_form([], "CSA") is None
    # a name's words only: no single letter ("part i"), no small word giving a letter
    assert named_long_form(["gmp-guide-part-i"], "PI") is None
    assert named_long_form(["products-in-clinical-trials"], "PIC") is None


def test_an_acronym_is_followed_by_its_long_form_where_first_written():
    assert spell_after("CSA definition, CSA scope", {"CSA": "computer software assurance"}) \
        == "CSA (computer software assurance) definition, CSA scope"
    assert spell_after("nothing here", {"CSA": "computer software assurance"}) == "nothing here"
    # its plural, in capitals only
    assert spell_after("what are csa and CSAs?", {"CSA": "computer software assurance"}) \
        == "what are csa and CSAs (computer software assurance)?"


def test_an_acronym_the_passages_never_write_reads_as_the_long_form_they_write_out():
    texts = ["Each manufacturer shall document a quality management system that complies.",
             "The quality management system requirements of ISO 13485 apply.",
             "Quality management system records are kept."]
    assert written_out("Which std must a device mfr's QMS comply with?", texts) == (
        "Which std must a device mfr's quality management system (QMS) comply with?")
    # written by the passages themselves: the acronym is theirs, nothing to read
    assert written_out("What does the QMS need?", texts + ["The QMS shall be reviewed."]) == (
        "What does the QMS need?")
    # one passage writing the words is no reading (a chance run of initials), nor are runs
    # broken by a small word, nor other initials
    assert written_out("Is ITAR covered?", ["International traffic arms regulations."]) == (
        "Is ITAR covered?")
    assert written_out("REMS?", ["risk evaluation and mitigation strategies"] * 3) == "REMS?"
    assert written_out("What is a CAPA?", texts) == "What is a CAPA?"
    # a run never crosses a clause's end ("... of the process. Analytical testing ..." is
    # no "process analytical testing"), and a long form the question writes is not doubled
    ends = ["It ends the process. Analytical testing follows."] * 3
    assert written_out("Is PAT needed?", ends) == "Is PAT needed?"
    assert written_out("Is a quality management system (QMS) needed?", texts) == (
        "Is a quality management system (QMS) needed?")


def test_an_of_inside_a_long_form_written_out_gives_its_letter():
    texts = ["All out of trend results are investigated.", "An out of trend value was seen.",
             "Results out of specification (OOS) are reported."]
    assert written_out("Must OOS or OOT investigations be closed?", texts) == (
        "Must OOS or out of trend (OOT) investigations be closed?")
    # only inside, never first or last ("of trend results" is no OTR), and only "of"
    assert written_out("Is OTR needed?", texts) == "Is OTR needed?"
    assert written_out("Is RAI needed?", ["results and investigations"] * 3) == "Is RAI needed?"
    # one read otherwise already (a long form defined, or spelt by names) is left alone
    assert written_out("Must OOT results be closed?", texts, known={"OOT"}) == (
        "Must OOT results be closed?")
    # a document's name is read strictly still: no small word gives a letter
    assert named_long_form(["certificate-of-analysis"], "COA") is None
