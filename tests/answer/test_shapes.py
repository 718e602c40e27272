"""Sentence shapes: headings run into a statement, glossary entries, titles."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.analysis import analyze
from ragd.answer.extractive import synthesize
from ragd.answer.extractive import defines_in
from ragd.answer.shapes import (defined_abbreviation, defined_term, defines, described_term,
                               enumerates, glossary, is_heading, lead)
from ragd.answer.subjects import definition_subject, definition_subjects
from ragd.answer.terms import question_terms, weights
from ragd.answer.types import Evidence, Fact


def rest(sentence: str) -> str:
    return sentence[lead(sentence):]


def test_a_heading_in_capitals_or_numbered_title_case_is_cut_off_its_statement():
    assert rest("ICH HARMONISED GUIDELINE QUALITY RISK MANAGEMENT Q9(R1) Draft version "
                "endorsed on 18 November 2021") == "Draft version endorsed on 18 November 2021"
    assert rest("PRODUCT QUALITY This section describes the lifecycle goals.") == (
        "This section describes the lifecycle goals.")
    assert rest("3.2 Pharmaceutical Quality System Elements The elements described below "
                "apply.") == "The elements described below apply."
    assert rest("1.6.2 Quality Risk Management Quality risk management is integral to it.") == (
        "Quality risk management is integral to it.")
    assert rest("5.3.2 The effort assigned to data governance should be commensurate.") == (
        "The effort assigned to data governance should be commensurate.")
    # two numbered headings run together, the statement opened by an acronym's plural
    assert rest("3.2 ECs in the Regulatory Submission 3.2.1 ECs Definition ECs are legally "
                "binding information.") == "ECs are legally binding information."
    assert rest("2.1 General OOS results are investigated by the unit.") == (
        "2.1 General OOS results are investigated by the unit.")
    # a heading numbered in roman numerals
    assert rest("V. Computer Software Assurance Computer software assurance is a risk-based "
                "approach.") == "Computer software assurance is a risk-based approach."


def test_a_regulations_source_note_is_never_an_answer():
    for note in ("Source: 43 FR 45077, Sept. 29, 1978, unless otherwise noted. § 211.110 "
                 "Sampling and testing of in-process materials and drug products.",
                 "Authority: 21 U.S.C. 321-393; 42 U.S.C. 262 and the rest of the list.",
                 "[62 FR 13464, Mar. 20, 1997, as amended at 69 FR 71655, Dec. 9, 2004]"):
        assert is_heading(note), note
    for statement in ("The source of the data shall be recorded with the batch record.",
                      "Authority to release a batch rests with the qualified person."):
        assert not is_heading(statement), statement


def test_a_short_labelled_heading_in_sentence_case_is_a_heading():
    # a paragraph's label, spaced as the eCFR writes it, adds no words to its heading
    for heading in ("( c ) License exceptions.", "(c) License exceptions.", "( a ) General."):
        assert is_heading(heading), heading
    for statement in ("( c ) No license exceptions apply.", "(iv) Records must be kept."):
        assert not is_heading(statement), statement


def test_a_notice_about_the_document_is_never_an_answer():
    for notice in ("Reproduction prohibited for commercial purposes.",
                   "Reproduction for internal use is authorised, provided that the source is "
                   "acknowledged.", "© European Medicines Agency, 2023. All rights reserved.",
                   "Copyright 2021 PIC/S, reproduction for commercial use is not allowed."):
        assert is_heading(notice), notice
    for statement in ("Reproduction of the test results must be possible from the raw data.",
                      "The reproducibility of the method should be demonstrated."):
        assert not is_heading(statement), statement


def test_statements_that_only_look_like_headings_stay_whole():
    for sentence in ("3.2 Elements of the PQS are described below in detail.",
                     "21 CFR 211.180 requires records to be kept.",
                     "2.5 mg of the substance is used daily here.",
                     "FDA CDER Guidance says that this is fine.",
                     "EU GMP Annex 1 requires a contamination control strategy.",
                     "NOTE TO PARAGRAPH (b): The license requirement applies.",
                     "The FDA and EMA agree on this point.",
                     "ICH HARMONISED GUIDELINE QUALITY Draft only."):  # too short a rest
        assert lead(sentence) == 0, sentence


def test_a_glossary_term_in_capitals_defines_but_a_longer_title_does_not():
    subject = analyze("quality risk management")
    assert defines("QUALITY RISK MANAGEMENT (QRM) A systematic process for the assessment "
                   "of risks.", subject)
    assert not defines("PRINCIPLES OF QUALITY RISK MANAGEMENT 75 Two primary principles of "
                       "quality risk management are:", subject)
    assert not defines("QUALITY RISK MANAGEMENT (QRM) A systematic process.", analyze("CAPA"))
    assert glossary("QUALITY RISK MANAGEMENT (QRM) ")          # the term stays with its definition
    assert not glossary("ICH GUIDELINE QUALITY RISK MANAGEMENT Q9(R1) ")   # a title does not


def test_titles_in_capitals_or_title_case_are_headings_statements_are_not():
    assert is_heading("PART I: CONTINUOUS MANUFACTURING OF DRUG SUBSTANCES AND PRODUCTS 1.")
    assert is_heading("( e ) Destination Control Statement.")
    assert is_heading("(iv) Military End Users.")
    assert is_heading("Part 11 Electronic Records; Electronic Signatures Subpart A General")
    assert is_heading("§ 11.100 General requirements. § 11.200 Electronic signature components "
                      "and controls. § 11.300 Controls for identification codes.")
    assert not is_heading("Records under § 11.10 must be kept. Copies under § 11.30 are kept.")
    assert not is_heading("( a ) The Secretary may act on it.")
    assert not is_heading("You may be required to enter a Destination Control Statement.")


def _fact(key: str, text: str, title: str = "Guide") -> Fact:
    e = Evidence(key=key, doc_id=f"{key}.pdf", chunk_id=f"c{key}", chunk_index=0, score=0.7,
                 relevance=0.7, section_id=None, citation=f"{key}.pdf, p1", text=text,
                 title=title, context=title)
    return Fact(key, text, e, 0.7)


def _texts(facts: list[Fact], question: str, **options) -> list[str]:
    """The extractive picks' texts for ``question`` over ``facts``."""
    terms = question_terms(question)
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    return [p.text for p in synthesize(terms, weight, facts, **options)]


def test_synthesis_quotes_the_statement_without_its_heading_and_a_glossary_entry_whole():
    facts = [_fact("E1", "3.2 Pharmaceutical Quality System Elements The four elements of "
                         "the pharmaceutical quality system are listed below."),
             _fact("E2", "QUALITY RISK MANAGEMENT (QRM) A systematic process for the "
                         "assessment, control, communication and review of risks.")]
    for q, expected in (
            ("What are the pharmaceutical quality system elements?",
             "The four elements of the pharmaceutical quality system are listed below."),
            ("What is quality risk management?",
             "QUALITY RISK MANAGEMENT (QRM) A systematic process for the assessment, control, "
             "communication and review of risks.")):
        terms = question_terms(q)
        weight = weights(terms, [set(analyze(f.quote)) for f in facts])
        picks = synthesize(terms, weight, facts, max_sentences=2, min_coverage=0.3,
                           define=[analyze(q.split(" is ")[-1])] if " is " in q else ())
        assert expected in [p.text for p in picks]


_WORDS = st.sampled_from(["QUALITY", "RISK", "A", "I", "1.2", "3.", "Q9(R1)", "The", "This",
                          "Quality", "risk", "of", "the", "elements", "described", "FDA",
                          "(QRM)", "are", "is", "below", "Elements", "21", "CFR"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=14))
def test_property_a_cut_leaves_a_suffix_of_four_words_or_more(words):
    sentence = " ".join(words) + "."
    cut = lead(sentence)
    assert 0 <= cut < len(sentence)
    if cut:
        assert sentence.endswith(sentence[cut:]) and len(sentence[cut:].split()) >= 4
        assert not sentence[cut - 1].strip()            # cut at a word's start


def test_a_picked_list_introduction_brings_its_items_and_a_cut_heading_still_counts():
    facts = [_fact("E1", "The elements described below apply in part. These four elements "
                         "are: • Process performance monitoring system; • Corrective action "
                         "system; • Change management system; • Management review. Other "
                         "guidance covers the rest of the lifecycle.")]
    texts = _texts(facts, "What are the four quality system elements?", max_sentences=6,
                   min_coverage=0.3, relative=0.99)
    assert texts[0] == "These four elements are:"
    assert texts[1:] == ["Process performance monitoring system;", "Corrective action system;",
                         "Change management system;", "Management review."]
    # the heading cut off a statement still tells what the statement is about
    facts = [_fact("E1", "4 CHANGE MANAGEMENT PROTOCOL (PACMP) 4.1 Definition of a PACMP A "
                         "PACMP is a regulatory tool for planned changes."),
             _fact("E2", "Changes are planned by the holder of the authorisation.")]
    terms = question_terms("What is a change management protocol?")
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    picks = synthesize(terms, weight, facts, max_sentences=1, min_coverage=0.3)
    assert [p.text for p in picks] == [
        "Definition of a PACMP A PACMP is a regulatory tool for planned changes."]
    assert picks[0].coverage == 1.0


def test_a_list_label_ending_a_sentence_goes_with_the_item_it_labels():
    facts = [_fact("E1", "Assessment of each batch for certification may include as "
                         "appropriate: i. Batch records, including control reports; ii. "
                         "Production conditions. Other text follows about something else.")]
    texts = _texts(facts, "What may the assessment of each batch for certification include?",
                   max_sentences=6, min_coverage=0.3, relative=0.99)
    assert texts == ["Assessment of each batch for certification may include as appropriate:",
                     "i. Batch records, including control reports;",
                     "ii. Production conditions."]


def test_defined_term_names_what_a_plain_definition_defines():
    assert defined_term("(5) Digital signature means an electronic signature based upon "
                        "cryptographic methods.") == ["digit", "signatur"]
    assert defined_term("Batch refers to a specific quantity of a drug.") == ["batch"]
    assert defined_term("REFERENCE SAMPLE A sample representative of the test sample.") == [
        "refer", "sampl"]
    for statement in ("The regulations in Part 11 set forth the criteria under which FDA "
                      "considers electronic records trustworthy.",
                      "This means that the firm must validate the process.",
                      "(1) The printed name of the signer;",
                      "A design space is the multidimensional combination of inputs.",
                      "Records kept by the firm under the contract with the agency for its "
                      "review means of storage are described."):
        assert defined_term(statement) == [], statement


_GLOSSARY = ("(5) Digital signature means an electronic signature based upon cryptographic "
             "methods of originator authentication. (6) Electronic record means any "
             "combination of text or data in digital form. (7) Electronic signature means a "
             "computer data compilation of any symbol executed by an individual to be the "
             "legally binding equivalent of the handwritten signature. (8) Handwritten "
             "signature means the scripted name of an individual.")


def test_a_defined_term_is_answered_without_the_glossarys_other_entries():
    facts = [_fact("E1", "The regulations in Part 11 set forth the criteria under which "
                         "electronic signatures are trustworthy. In general, Part 11 applies "
                         "to records in electronic form."),
             _fact("E2", _GLOSSARY, title="21 CFR Part 11")]
    q = "What is an electronic signature under 21 CFR Part 11?"
    texts = _texts(facts, q, max_sentences=6, min_coverage=0.3, relative=0.5, follow=2,
                   context_terms=True, define=definition_subjects(q))
    # the definition leads (its passage holds the best sentence), no other term's entry
    # is picked or followed into
    assert texts[0].startswith("(7) Electronic signature means")
    assert not any(t.startswith(("(5)", "(6)", "(8)")) for t in texts)
    # asked about no definition, the glossary's entries are sentences like any other
    q = "Which signatures are based upon cryptographic methods?"
    assert any(t.startswith("(5) Digital signature means")
               for t in _texts(facts, q, max_sentences=6, min_coverage=0.3, relative=0.5))


_SENTENCES = st.sampled_from([
    "A batch record means the record of one batch.", "Electronic records must be retained.", "Signatures are linked to records.",
    "The batch record is reviewed by the quality unit.", "Records are kept for one year.",
    "A signature is unique to one individual.", "The quality unit approves the batch.",
    "Audit trails record changes to electronic records.", "Retention samples are kept."])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_SENTENCES, min_size=1, max_size=4), min_size=1, max_size=4),
       st.sampled_from(["How long are electronic records retained?",
                        "Who approves the batch record?", "Is a signature unique?",
                        "What is a batch record?"]))
def test_property_passages_keep_the_context_order_each_in_its_own_order(passages, question):
    facts = [_fact(f"E{i + 1}", " ".join(p)) for i, p in enumerate(passages)]
    terms = question_terms(question)
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    define = definition_subjects(question)
    picks = synthesize(terms, weight, facts, max_sentences=6, min_coverage=0.2, relative=0.5,
                       define=define)
    keys = [p.fact.key for p in picks]
    # each passage's sentences together, in the order they stand in it
    assert keys == sorted(keys, key=keys.index)
    for key in set(keys):
        positions = [p.position for p in picks if p.fact.key == key]
        assert positions == sorted(positions)
    # passages in the facts' order, but for one defining the asked term, which leads: one
    # plainly defining it ("A batch record means ...") when one does
    plain = {p.fact.key for p in picks if any(set(defined_term(p.text)) == set(d) for d in define)}
    defining = plain or {p.fact.key for p in picks if any(defines(p.text, d) for d in define)}
    rest = [k for k in dict.fromkeys(keys) if k not in defining]
    assert rest == sorted(rest, key=lambda k: int(k[1:]))
    assert all(k in defining for k in keys[:len([k for k in keys if k in defining])])


def test_a_description_of_what_a_thing_involves_defines_it_when_it_opens_the_sentence():
    text = ("1.2. Scope This guideline applies to CM of drug substances. CM involves the "
            "continuous feeding of input materials into, and the concomitant removal of "
            "output materials from, a manufacturing process. While this description may "
            "apply to a unit operation, this guideline focuses on integrated systems.")
    assert described_term("CM involves the continuous feeding of input materials.") == ["cm"]
    assert described_term("The reserve sample consists of at least twice the quantity.") == [
        "reserv", "sampl"]
    assert defines("CM involves the continuous feeding of input materials.", ["cm"])
    assert defines_in(text, [["cm"]]) and not defines_in(text, [["continu", "manufactur"]])
    # not what opens the sentence, or a long opening: no description of the subject
    assert not defines("The change involves the CM process.", ["cm"])
    assert described_term("This should involve the qualified person.") == []
    assert described_term("Each of the many various different unit operations of the "
                          "process involves a transformation.") == []
    # a plain definition is still no mere description
    assert defined_term("CM involves the continuous feeding.") == []


def test_a_numbered_heading_echoed_by_its_definition_names_the_term():
    assert defined_term("6.3. Metadata Metadata are data that describe the attributes of "
                        "other data.") == ["metadata"]
    assert defined_term("6.4. Data Integrity Data integrity is the degree to which data are "
                        "complete.") == ["data", "integr"]
    # the heading not echoed, or no number: no definition read
    assert defined_term("6.3. Metadata Data are facts collected together.") == []
    assert defined_term("Metadata Metadata are data.") == []
    assert defined_term("6.17.2. Backup A copy of current data.") == []


def test_a_glossary_term_with_its_abbreviation_echoed_defines_both():
    s = ("ESTABLISHED CONDITIONS (ECs) ECs are legally binding information considered "
         "necessary to assure product quality.")
    assert defines(s, ["establish", "condit"]) and defines(s, ["ec"])
    assert not defines(s, ["product"]) and not defines(s, ["establish"])
    # no echo of the abbreviation: the weak-verb rule as before
    assert not defines("Established conditions (ECs) for the product are listed.", ["ec"])


def test_a_glossary_entrys_parenthesis_is_an_abbreviation_not_a_note():
    assert defined_term("Critical Quality Attribute (CQA): A physical property.") == [
        "critic", "qualiti", "attribut"]
    assert defined_term("ECs (refer to Chapter 3): The ECs for the product should be "
                        "listed in the PLCM document.") == []


def test_a_definition_after_a_lead_in_is_found():
    sentence = ("Samples may therefore fall into two categories: Reference sample: a sample of "
                "a batch of starting material which is stored for the purpose of being analysed.")
    assert defines(sentence, ["refer", "sampl"])
    assert defined_term(sentence) == ["refer", "sampl"]
    # no lead-in: nothing is read after an inner colon that opens no capitalised clause
    assert defined_term("Samples fall into two categories: reference and retention.") == []
    assert not defines("Samples may therefore fall into two categories.", ["refer", "sampl"])


def test_a_comparison_answer_defines_both_things_first():
    facts = [_fact("E1", "Where reference samples and retention samples are presented "
                         "identically, the samples may be regarded as interchangeable. "
                         "Samples should be kept at the site."),
             _fact("E2", "Reference sample: a sample of a batch of starting material which "
                         "is stored for the purpose of being analysed. Retention sample: a "
                         "sample of a fully packaged unit from a batch of finished product. "
                         "It is stored for identification purposes.")]
    q = "What is the difference between a reference sample and a retention sample?"
    options = dict(max_sentences=6, min_coverage=0.3, relative=0.75, follow=1)
    texts = _texts(facts, q, **options, define=definition_subjects(q))
    assert texts[0].startswith("Reference sample: a sample")     # the definitions lead
    assert any(t.startswith("Retention sample: a sample") for t in texts)
    assert "It is stored for identification purposes." in texts  # and their continuation
    # read as one subject ("difference between ..."), neither entry is a definition of it
    one = _texts(facts, q, **options, define=[definition_subject(q)])
    assert not one[0].startswith("Reference sample")


def test_a_glossary_term_in_lower_case_before_a_full_stop_defines_it():
    # WHO's glossaries: "reprocessing. Subjecting all or part of a batch ..."
    text = ("reprocessing. Subjecting all or part of a batch or lot of an in-process medicine "
            "to a previous step in the validated manufacturing process.")
    assert defines(text, analyze("reprocessing"))
    assert not defines(text, analyze("batch"))                 # the term, word for word
    assert not defines("process. The batch should be tested.", analyze("batch"))


def test_a_glossary_term_standing_alone_before_its_definition_defines_it():
    subject = analyze("data integrity risk assessment")
    assert defines("Data integrity risk assessment (DIRA).", subject)
    assert defines("(b) Data integrity risk assessment", subject)
    assert not defines("Data integrity risk assessment of systems.", subject)  # more words
    assert not defines("Data integrity.", subject)                              # fewer
    assert not defines("5.1. Data Integrity Risk Assessment (DIRA) should be carried out.",
                       subject)
    facts = [_fact("E1", "5.1. Data Integrity Risk Assessment (DIRA) should be carried out "
                         "to identify risk. The DIRAs should be risk-based. The DIRAs should "
                         "be documented."),
             _fact("E2", "Data governance. The sum total of arrangements for data quality. "
                         "Data integrity risk assessment (DIRA). The process to map out "
                         "procedures and systems that generate data.")]
    q = "What is a data integrity risk assessment (DIRA)?"
    texts = _texts(facts, q, max_sentences=4, min_coverage=0.3, relative=0.75, follow=1,
                   define=definition_subjects(q))
    # the term, short as a heading, is kept for its definition, which follows it
    assert texts[:2] == ["Data integrity risk assessment (DIRA).",
                         "The process to map out procedures and systems that generate data."]


def test_a_sentence_holding_what_the_question_asks_for_gains_and_passes_the_passage_bar():
    from ragd.answer.checks import satisfies

    facts = [_fact("E1", "(c) All records required under this part shall be readily available "
                         "for inspection during the retention period at the establishment. "
                         "Records that can be retrieved from another location by computer "
                         "meet the requirements of this paragraph. (d) Records required under "
                         "this part may be retained either as original records or as copies."),
             _fact("E2", "(a) Any production record associated with a batch shall be retained "
                         "for at least 1 year after the expiration date of the batch.")]
    q = "record retention period?"
    options = dict(max_sentences=3, min_coverage=0.2, relative=0.75, similarity=None)
    plain = _texts(facts, q, **options)
    typed = _texts(facts, q, **options, typed=lambda text: satisfies("duration", [text]),
                   type_bonus=0.5)
    period = ("(a) Any production record associated with a batch shall be retained for at "
              "least 1 year after the expiration date of the batch.")
    assert period not in plain and period in typed


def test_a_plain_definition_defines_the_abbreviation_its_term_carries():
    entry = ("Residence Time Distribution (RTD): A measure of the range of residence times "
             "experienced by material passing through a process.")
    assert defined_abbreviation(entry) == ["rtd"] and defines(entry, ["rtd"])
    assert defines(entry, ["resid", "time", "distribut"])           # the term still is
    assert defined_abbreviation("(4) Quality risk management (QRM) means a systematic "
                                "process.") == ["qrm"]
    assert defined_abbreviation("QUALITY RISK MANAGEMENT (QRM) A systematic process for "
                                "the assessment of risks.") == ["qrm"]
    # an abbreviation inside the definition is not the term's
    assert defined_abbreviation("Batch: A quantity of starting material (API) processed "
                                "in one process.") == []
    # no plain definition, or a parenthesis that is no abbreviation: nothing
    for text in ("Continuous manufacturing (CM) is an approach to production.",
                 "The data (see 3.1) are kept for one year.",
                 "Records of the RTD (residence time) must be kept.",
                 "Run Time: The time interval used to produce a quantity of output."):
        assert defined_abbreviation(text) == [] and not defines(text, ["rtd"]), text


def test_a_sentence_holds_a_list_when_it_introduces_items_or_runs_them_on():
    assert enumerates("These four elements are:")
    assert enumerates("Such control procedures shall include, the following, where "
                      "appropriate: (1) Tablet weight variation; (2) Disintegration time.")
    assert enumerates("Records shall show: a. the name; b. the date.")
    # run on after "include" or "for example,": "(1) ..., (2) ..."
    assert enumerates("The information should include, for example, (1) the identity of the "
                      "batches, (2) the manufacturing site, (3) the batch size.")
    assert enumerates("Controls including (a) access checks; (b) audit trails.")
    # one labelled item after a colon, a colon inside, or no items: no list
    assert not enumerates("Laboratory controls shall include: (1) Determination of "
                          "conformance to written specifications.")
    assert not enumerates("Note: the weight of each tablet is recorded.")
    assert not enumerates("Table 1:") and not enumerates("Scope:")     # labels, not lists
    assert not enumerates("The records are kept for (1) year under paragraph (2) of this part.")
    # a whole said to be made of two parts or more
    assert enumerates("Risk assessment consists of the identification of hazards and the "
                      "analysis and evaluation of risks.")
    assert enumerates("The system comprises hardware, software and procedures.")
    assert not enumerates("The batch record consists of one document.")


def test_a_question_asking_for_a_list_takes_the_sentence_holding_it_first():
    facts = [_fact("E1", "Examination and testing of samples shall assure that in-process "
                         "material conforms to specifications. In-process materials shall be "
                         "tested for identity and strength during the production process."),
             _fact("E2", "In-process control procedures shall include the following: (1) Tablet "
                         "weight variation; (2) Disintegration time; (3) Dissolution rate.")]
    q = "Which in-process controls does the regulation list for testing in-process materials?"
    options = dict(max_sentences=4, min_coverage=0.2, relative=0.75, similarity=None)
    plain = _texts(facts, q, **options)
    listed = _texts(facts, q, **options, listed=enumerates)
    # (the list written inside the sentence is read as its introduction and its items)
    items = ["In-process control procedures shall include the following:",
             "(1) Tablet weight variation;", "(2) Disintegration time;", "(3) Dissolution rate."]
    assert plain[0] != items[0]
    assert listed == items, listed


def test_a_term_in_sentence_case_before_a_colon_and_a_dash_heading():
    subject = analyze("retention sample")
    # "Term: a ..." in sentence case is a plain glossary entry
    assert defined_term("Retention sample: a sample of a fully packaged unit.") == subject
    assert defined_term("Retention sample: sample of a unit.") == []   # no article: not read
    # a dash before words in title case is a heading, not a definition
    assert not defines("8. Retention Samples – General Points 8.1 A retention sample should "
                       "represent a batch.", subject)
    assert defines("Retention samples – the samples kept for identification.", subject)
    assert defines("Annual Review – An evaluation, conducted at least annually.",
                   analyze("annual review"))


def test_a_title_case_term_before_a_colon_is_a_glossary_entry():
    assert defined_term("Design Space: The multidimensional combination of inputs.") == [
        "design", "space"]
    assert defined_term("Critical Quality Attribute (CQA): A physical property.") == [
        "critic", "qualiti", "attribut"]
    assert defined_term("See also: Annex 11 for computerised systems.") == []
    assert defined_term("Note: this applies to all sites.") == []
    assert defined_term("Design space is described in the submission.") == []


def test_a_weak_verb_defines_only_what_opens_the_sentence():
    # "X is ...", "X are ...": X itself must open it, nearly alone
    assert defines("ECs are legally binding information.", ["ec"])
    assert defines("Quality risk management is a systematic process.",
                   ["qualiti", "risk", "manag"])
    assert not defines("The rationales for the ECs are provided in the CTD modules.", ["ec"])
    assert not defines("Scaling factors can be included if the design space is intended to "
                       "span scales.", ["design", "space"])
    # a strong verb or a glossary's colon reads further
    assert defines("For the purposes of this Act, the word court shall mean a civil court.",
                   ["court"])
    assert defines("Design space: The multidimensional combination.", ["design", "space"])




def test_a_definition_asked_for_comes_before_a_list_in_the_same_context():
    from ragd.answer.subjects import definition_subjects

    facts = [_fact("E1", "The application shall include the following: (1) the name of the "
                         "reference listed drug; (2) the strength of the drug."),
             _fact("E2", "Reference listed drug means the listed drug identified by FDA as "
                         "the drug product upon which an applicant relies.")]
    q = "What is a reference listed drug?"
    texts = _texts(facts, q, max_sentences=1, min_coverage=0.2, relative=0.5,
                   similarity=None, define=definition_subjects(q), listed=enumerates)
    assert texts == ["Reference listed drug means the listed drug identified by FDA as the "
                     "drug product upon which an applicant relies."]


def test_a_remark_in_parentheses_is_read_without_its_own_verbs():
    # "which is defined in ICH GCP" inside the remark defines nothing; the sentence
    # defines raw data
    text = ("Raw data (synonymous with 'source data' which is defined in ICH GCP) Raw data is "
            "defined as the original record (data) which can be described as the first-capture "
            "of information.")
    assert defines(text, analyze("raw data"))
    assert set(defined_term(text)) == {"raw", "data"}
    # read without its remark, only a plain definition ("means", "is defined as") counts:
    # a term left alone, or a weak "is", is none
    assert not defines("Audit trail (see also section 9 of Annex 11 for further detail).",
                       analyze("audit trail"))
    assert not defines("The batch record (which must be reviewed by the quality unit before "
                       "release) is retained for one year.", analyze("batch record"))
    assert defined_term("Audit trail (see also section 9 of Annex 11 for further detail).") \
        == []


def test_a_glossary_term_in_lower_case_before_its_capitalised_definition():
    entry = "sampling Operations designed to obtain a representative portion of a product."
    assert defined_term(entry) == analyze("sampling")
    assert defines(entry, analyze("sampling"))
    assert defined_term("quality system An appropriate infrastructure.") == analyze(
        "quality system")
    # a passage's cut-off head is no entry: its words are small, or no capital follows
    assert defined_term("with the Agency rules.") == []
    assert defined_term("distributor or a responsible agency.") == []
