"""The offline path can only emit quotes of its evidence: properties, not examples alone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.analysis import analyze
from ragd.answer.extractive import defines_in, filter_facts, normal, refers_back, synthesize
from ragd.answer.support import check_sentences, supported
from ragd.answer.terms import coverage, question_terms, weights
from ragd.answer.types import Evidence, Fact, Sentence

WORDS = ["export", "license", "items", "country", "exception", "temporary", "tools", "trade",
         "control", "military", "end", "user", "shipment", "value", "days", "records", "The",
         "A", "must", "may", "not", "under", "within", "30", "§", "(a)", "1."]


def fact(i: int, text: str, score: float = 0.5) -> Fact:
    e = Evidence(key=f"E{i}", doc_id=f"d{i}", chunk_id=f"c{i}", chunk_index=0, text=text,
                 score=score, relevance=score, section_id=None, citation=f"doc {i}")
    return Fact(e.key, normal(text), e, score)


_TEXT = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=16).map(" ".join),
                 min_size=1, max_size=8).map(lambda parts: ". ".join(parts) + ".")

def synthesis_cases(test):
    """Run ``test`` on random passages, a question of their words, and the coverage and
    relative bars."""
    return settings(max_examples=150, deadline=None)(given(
        texts=st.lists(_TEXT, min_size=1, max_size=6),
        question=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join),
        min_cov=st.floats(0, 1), relative=st.floats(0, 1))(test))


def case(texts, question):
    """(facts, question terms, term weights) of one generated case."""
    facts = [fact(i, t, 0.1 + 0.1 * i) for i, t in enumerate(texts)]
    terms = question_terms(question)
    return facts, terms, weights(terms, [set(analyze(t)) for t in texts])


@synthesis_cases
def test_property_every_picked_sentence_is_a_quote_of_its_fact(texts, question, min_cov,
                                                               relative):
    facts, terms, weight = case(texts, question)
    kept, _ = filter_facts(terms, facts, max_facts=6)
    picks = synthesize(terms, weight, kept, max_sentences=6, min_coverage=min_cov,
                       relative=relative)
    assert len(picks) <= 6
    for p in picks:
        assert p.text and p.text in p.fact.quote  # an exact substring (whitespace normalised)
        assert p.coverage >= min_cov
    sentences = [Sentence(p.text, (p.fact.evidence,)) for p in picks]
    kept_s, dropped = check_sentences(sentences, kept, 0.99)
    assert [s.text for s in kept_s] == [p.text for p in picks] and not dropped


def test_sentences_come_in_passage_order_with_the_strong_ones_only():
    facts = [fact(1, "Tools of trade may be exported temporarily. The weather is nice today. "
                     "The tools must stay under the effective control of the exporter.", 0.9),
             fact(2, "Records must be kept for five years.", 0.4)]
    terms = question_terms("May tools of trade be exported temporarily under effective control?")
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    picks = synthesize(terms, weight, facts, max_sentences=6, min_coverage=0.2)
    assert [p.text for p in picks] == [
        "Tools of trade may be exported temporarily.",
        "The tools must stay under the effective control of the exporter."]


def test_a_sentence_referring_back_brings_what_it_refers_to():
    asked = set(question_terms("How long must the QP's certification register be kept?"))
    before = "The certification of a product is recorded by the QP in a register."
    assert refers_back("The record must be kept for five years.", before, asked)
    assert refers_back("It must be kept for five years.", before, asked)
    # the question names it: the sentence says what it speaks of itself
    assert not refers_back("The register must be kept for five years.", before, asked)
    # nothing before introduced it, or it opens otherwise
    assert not refers_back("The audit must be kept for five years.", before, asked)
    assert not refers_back("Records must be kept for five years.", before, asked)

    passage = ("The certification of a product is recorded by the QP in a register provided for "
               "that purpose. The record should show that each batch complies with its "
               "authorisation. The record must be kept up to date and available to the "
               "competent authority for at least five years. Audits are planned yearly.")
    facts = [fact(1, passage, 0.9), fact(2, "Batch documentation must be kept for one year "
                                            "after expiry.", 0.4)]
    terms = question_terms("How long must the QP's certification register be kept available "
                           "to the competent authority?")
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    texts = [p.text for p in synthesize(terms, weight, facts, max_sentences=6,
                                        min_coverage=0.3, follow=1)]
    at = {t: i for i, t in enumerate(texts)}
    record = "The record must be kept up to date and available to the competent authority " \
             "for at least five years."
    # the answer, the sentence it refers back to and the one that one refers back to, in
    # the passage's order
    assert at["The certification of a product is recorded by the QP in a register provided " \
              "for that purpose."] < at["The record should show that each batch complies " \
                                        "with its authorisation."] < at[record]
    # without ``follow`` nothing is brought
    alone = [p.text for p in synthesize(terms, weight, facts, max_sentences=6,
                                        min_coverage=0.3)]
    assert record in alone and not any("should show" in t for t in alone)


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(_TEXT, min_size=1, max_size=6),
       question=st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join),
       follow=st.integers(0, 3))
def test_property_sentences_brought_before_or_after_are_quotes_within_the_limit(texts, question,
                                                                                follow):
    facts, terms, weight = case(texts, question)
    picks = synthesize(terms, weight, facts, max_sentences=4, min_coverage=0.2, follow=follow)
    assert len(picks) <= 4
    sentences = [Sentence(p.text, (p.fact.evidence,)) for p in picks]
    kept, dropped = check_sentences(sentences, facts, 0.99)
    assert len(kept) == len(picks) and not dropped
    # each passage's sentences in its own order
    for key in {p.fact.key for p in picks}:
        positions = [p.position for p in picks if p.fact.key == key and p.anchor is None]
        assert positions == sorted(positions)


def test_support_check_catches_invented_content_and_numbers():
    quote = "A license is required for exports of items in ECCN 5A002 to Country Group D:1."
    assert supported("A license is required for exports of items in ECCN 5A002",
                     [quote], 0.7) is None
    assert supported("A license is required within 30 days.", [quote], 0.7) == \
        "unsupported_number"
    assert supported("Cats are loyal animals who like fish.", [quote], 0.7) == "unsupported"
    assert supported("", [quote], 0.7) == "unsupported"


def test_check_sentences_drops_unknown_citations_and_repeats():
    f1 = fact(1, "Exports of items need a license.")
    stranger = fact(9, "Invented passage.").evidence
    proposed = [Sentence("Exports of items need a license.", (f1.evidence,)),
                Sentence("Exports of items need a license.", (f1.evidence,)),
                Sentence("Invented passage.", (stranger,)),
                Sentence("No citation at all.", ())]
    kept, dropped = check_sentences(proposed, [f1], 0.7)
    assert [s.text for s in kept] == ["Exports of items need a license."]
    assert [d.reason for d in dropped] == ["duplicate", "unknown_citation", "no_citation"]


def test_facts_filter_drops_noise_off_topic_and_duplicates():
    facts = [fact(1, "12 34 56 78 -- 90"), fact(2, "The weather is pleasant in spring."),
             fact(3, "A license is required to export items."),
             fact(4, "A license is required to export items.")]
    kept, dropped = filter_facts(question_terms("Is a license required to export?"), facts,
                                 max_facts=6)
    assert [f.key for f in kept] == ["E3"]
    assert [(f.key, why) for f, why in dropped] == [("E1", "noise"), ("E2", "off_topic"),
                                                    ("E4", "duplicate")]


def test_pdf_options_definitions_follow_fragments_context_and_bullets():
    from ragd.answer.shapes import defines
    from ragd.answer.subjects import definition_subject, definition_subjects

    assert definition_subject("What is an electronic signature under 21 CFR Part 11?") == [
        "electron", "signatur"]
    assert definition_subject("How does ICH Q10 define knowledge management?") == [
        "knowledg", "manag"]
    assert definition_subject("Who must certify each batch?") == []
    assert definition_subject("electronic signature definition under 21 CFR part 11") == [
        "electron", "signatur"]                                   # in keywords
    assert definition_subject("qrm definition ich q9") == ["qrm"]
    assert definition_subject("Define the term batch (lot).") == ["batch"]
    # what a source says about a thing asks first what it is; about its definition, the same
    assert definition_subject("What does the court say about the definition of theft?") == [
        "theft"]
    assert definition_subject("What did the court decide about theft?") == []
    assert defines("(7) Electronic signature means a computer data compilation.",
                   ["electron", "signatur"])
    assert not defines("Electronic signatures shall be linked to records.",
                       ["electron", "signatur"])
    assert defines("For purposes of this document, the term OOS results includes all test "
                   "results that fall outside the specifications.", analyze("OOS"))
    assert defines("For the purposes of this Act, 'court' shall mean a civil court.", ["court"])
    assert not defines("For purposes of this document, records must be kept for 5 years.",
                       analyze("OOS"))
    assert not defines("Records of this kind must be kept.", analyze("records"))  # not "th-is"
    e = Evidence(key="E1", doc_id="p.pdf", chunk_id="c1", chunk_index=0, score=0.7,
                 relevance=0.7, section_id=None, citation="p.pdf, p3",
                 text=("continued from the page before. 20, 1997, as amended at 69 FR 71655. "
                       "(6) Electronic record means any data. "
                       "(7) Electronic signature means a legally binding mark. It is unique to one person. "
                       "Agencies accept it • if certified by the agency • when recorded in the file"),
                 title="21 CFR Part 11", context="21 CFR Part 11 > § 11.3 Definitions")
    f = Fact(e.key, e.text, e, 0.7)
    q = "What is an electronic signature under 21 CFR Part 11?"
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(e.text))])
    picks = synthesize(terms, weight, [f], max_sentences=3, min_coverage=0.3, relative=0.5,
                       context_terms=True, fragments=False, follow=1,
                       define=definition_subjects(q))
    texts = [p.text for p in picks]
    assert "(7) Electronic signature means a legally binding mark." in texts
    assert "It is unique to one person." in texts            # follows the definition
    assert not any(t.startswith(("continued", "20,")) for t in texts)  # nor a fragment
    assert all(t in e.text for t in texts)
    every = synthesize(terms, weight, [f], max_sentences=6, min_coverage=0.0, relative=0.0,
                       context_terms=True)
    # bullets completing the words before them read as one sentence with them
    assert "Agencies accept it • if certified by the agency • when recorded in the file" in [
        p.text for p in every]


def test_a_passages_first_line_restating_its_heading_is_never_an_answer():
    heading = "Section 158. Being hired to take part in an unlawful assembly or riot."
    statement = ("Whoever is hired to take part in an unlawful assembly shall be punished "
                 "with imprisonment.")
    e = Evidence(key="E1", doc_id="ipc", chunk_id="c1", chunk_index=0, score=0.7,
                 relevance=0.7, section_id="IPC-158", citation="Section 158, IPC",
                 text=f"{heading}\n{statement}",
                 context="Section 158, IPC — Being hired to take part in an unlawful assembly "
                         "or riot")
    f = Fact(e.key, e.text, e, 0.7)
    q = "What if someone is hired to take part in an unlawful assembly or riot?"
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(e.text))])
    texts = [p.text for p in synthesize(terms, weight, [f], max_sentences=6, min_coverage=0.0,
                                        relative=0.0)]
    assert heading not in texts and statement in texts
    # the same words inside the passage (not its first line) are a statement, and are kept
    later = Evidence(**{**e.__dict__, "text": f"{statement} {heading}"})
    texts = [p.text for p in synthesize(terms, weight, [Fact(e.key, later.text, later, 0.7)],
                                        max_sentences=6, min_coverage=0.0, relative=0.0)]
    assert heading in texts


@synthesis_cases
def test_property_a_candidate_sentence_always_leaves_an_answer(texts, question, min_cov,
                                                               relative):
    """When some sentence reaches the coverage bar, the relative bars never reject them all."""
    facts, terms, weight = case(texts, question)
    everything = synthesize(terms, weight, facts, max_sentences=50, min_coverage=min_cov,
                            relative=0.0)
    picks = synthesize(terms, weight, facts, max_sentences=6, min_coverage=min_cov,
                       relative=relative)
    assert bool(picks) == bool(everything)


def test_a_strong_sentence_is_kept_when_a_wider_passage_holds_only_weak_ones():
    # E1 answers with one sentence (3 of 5 terms); E2 holds every term, one per sentence
    facts = [fact(1, "Alpha beta gamma rules apply here."),
             fact(2, "Delta holds here today. Epsilon holds here today. Alpha holds here "
                     "today. Beta holds here today. Gamma holds here today.")]
    terms = question_terms("alpha beta gamma delta epsilon")
    weight = {t: 1.0 for t in terms}
    picks = synthesize(terms, weight, facts, max_sentences=6, min_coverage=0.2, relative=0.75)
    assert [p.text for p in picks] == ["Alpha beta gamma rules apply here."]


def test_a_passage_plainly_defining_the_term_leads_one_merely_saying_what_it_is():
    from ragd.answer.subjects import definition_subject

    said = fact(1, "Design space is described in the submission by the applicant. "
                   "Scaling factors can be used if the design space is intended to span "
                   "scales.", 0.9)
    glossary = fact(2, "Control Strategy: A planned set of controls for the process. "
                       "Design Space: The multidimensional combination of input variables "
                       "that provides assurance of quality.", 0.5)
    q = "design space q8r2?"
    define = definition_subject(q)
    assert define == ["design", "space"]
    assert defines_in(glossary.quote, [define]) and not defines_in(said.quote, [define])
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(f.quote)) for f in (said, glossary)])
    picks = synthesize(terms, weight, [said, glossary], max_sentences=4, min_coverage=0.3,
                       relative=0.3, define=[define])
    texts = [p.text for p in picks]
    assert texts[0].startswith("Design Space: The multidimensional")
    assert not any(t.startswith("Control Strategy") for t in texts)   # another term's entry
    assert any(t.startswith("Design space is described") for t in texts)


def test_the_sentence_the_model_reads_as_answering_best_passes_the_passage_bar():
    # the question's own words ("main reason") are in the other passage; the answer says
    # "primary purpose": the similarity model's best sentence stays, wherever its passage
    q = "What is the main reason for the advance notice before an inspection?"
    answering = ("The primary purpose for pre-announcing an inspection is to confirm the "
                 "location and ensure that the records will be available.")
    facts = [fact(1, "Notice is given a reasonable time before the inspection for the main "
                     "site. The main reason to give the notice before is timing."),
             fact(2, answering)]
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])

    def similarity(texts):   # the model's reading: the pre-announcement sentence answers
        return [0.9 if "primary purpose" in t else 0.6 for t in texts]

    options = dict(max_sentences=3, min_coverage=0.3, relative=0.75, similarity_weight=0.8,
                   min_similarity=0.5)
    picked = [p.text for p in synthesize(terms, weight, facts, similarity=similarity,
                                         **options)]
    assert answering in picked
    # without the model the passage bar holds: the lexical reading alone keeps it out
    assert answering not in [p.text for p in synthesize(terms, weight, facts, **options)]
    # a best sentence the model itself doubts (under min_similarity) gets no pass
    weak = [p.text for p in synthesize(terms, weight, facts, **options,
                                       similarity=lambda ts: [0.45 if "primary" in t else 0.3
                                                              for t in ts])]
    assert answering not in weak


def test_the_passage_bar_is_its_own_share_of_the_best_passage():
    """A strong sentence whose passage covers two thirds of what the best passage covers
    ("kept for at least one year", without the question's "batch" and "retained") is
    barred at a passage share of 0.75 and kept at 0.5; its own score bar is unchanged."""
    q = "How long must batch production records be retained after the expiry date?"
    best = "Batch production records must be retained after the expiry date of the batch."
    other = "Production records should be kept for at least one year after the expiry date."
    facts = [fact(1, best), fact(2, other)]
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    share = (coverage(terms, weight, set(analyze(other)))
             / coverage(terms, weight, set(analyze(best))))
    assert 0.5 <= share < 0.75

    def similarity(texts):   # the model reads both as answering, the first a little better
        return [0.9 if t.startswith("Batch") else 0.85 for t in texts]

    options = dict(max_sentences=3, min_coverage=0.3, relative=0.75, similarity_weight=0.8,
                   min_similarity=0.5, similarity=similarity)
    assert [p.text for p in synthesize(terms, weight, facts, **options)] == [best]
    assert [p.text for p in synthesize(terms, weight, facts, passage_relative=0.5,
                                       **options)] == [best, other]
    assert [p.text for p in synthesize(terms, weight, facts, relative=0.95,
                                       passage_relative=0.5, **{k: v for k, v in options.items()
                                                                if k != "relative"})] == [best]


def test_a_definition_outside_the_shortlist_is_still_read_by_the_model():
    """"How does ICH Q9 define 'risk'?": every sentence of the guideline names risk, so
    the shortlist (by terms, passage and place) fills with the first passage's, and the
    glossary's entry in a later passage was never read by the model. A sentence defining
    the subject asked about is read whatever the shortlist; it then leads the answer."""
    q = "How does ICH Q9 define risk?"
    entry = ("Risk: The combination of the probability of occurrence of harm and the "
             "severity of that harm.")
    facts = [fact(1, "Risk assessment identifies hazards. Risk control reduces risk. "
                     "Risk review checks the risk."),
             fact(2, f"Risk Acceptance: The decision to accept risk. {entry}")]
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    read: list[str] = []

    def similarity(texts):
        read.extend(texts)
        return [0.95 if t.startswith("Risk: The") else 0.6 for t in texts]

    options = dict(max_sentences=3, min_coverage=0.3, relative=0.75, similarity_weight=0.8,
                   min_similarity=0.5, shortlist=2, similarity=similarity)
    picked = synthesize(terms, weight, facts, define=[["risk"]], **options)
    assert entry in read
    assert picked[0].text == entry and picked[0].similarity == 0.95
    read.clear()
    synthesize(terms, weight, facts, **options)   # no subject asked: the shortlist alone
    assert entry not in read and len(read) == 2


def test_a_glossary_term_in_lower_case_joins_the_definition_it_names():
    # WHO glossaries: "term. Definition." — a splitter leaves the term at the end of the
    # entry before; it belongs to the sentence that defines it
    quote = ("intermediate product. Partly processed product that must undergo further "
             "steps before it becomes a bulk product. large-volume parenterals. Sterile "
             "solutions intended for parenteral application with a volume of 100 ml or more "
             "in one container. manufacturer. A company that carries out production.")
    facts = [fact(1, quote)]
    q = "What volume makes a large-volume parenteral?"
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(quote))])
    picked = [p.text for p in synthesize(terms, weight, facts, max_sentences=1,
                                         min_coverage=0.3, fragments=False)]
    assert picked == ["large-volume parenterals. Sterile solutions intended for parenteral "
                      "application with a volume of 100 ml or more in one container."]
    # outside a glossary (one such term alone), after an abbreviation the splitter keeps
    # whole, a clause opening with "and", or words with figures, nothing moves
    for text, kept in (
            ("Data that describe other data e.g. audit trails. Metadata also permit it. "
             "Other data. Some more.", "Data that describe other data e.g. audit trails."),
            ("The hold time for samples is max. two hours at room temperature. Samples are "
             "then discarded. Or kept.",
             "The hold time for samples is max. two hours at room temperature."),
            ("Hold the batch no. twelve. The batch is released. kept apart. Then it goes.",
             "Hold the batch no. twelve."),
            ("IBR approved for section 820. and (b) Applicable requirements. Comply with "
             "them. Another line.", "IBR approved for section 820. and (b) Applicable "
             "requirements."),
            ("A single entry closes the text. lone term. Its definition is here.",
             "A single entry closes the text. lone term.")):
        f = fact(2, text)
        got = [p.text for p in synthesize(question_terms(text), weights(
            question_terms(text), [set(analyze(text))]), [f], max_sentences=3,
            min_coverage=0.0, relative=0.0)]
        assert kept in got, (text, got)


def test_a_list_introduction_gets_no_pass_from_its_similarity_alone():
    # the model's best reading is a list's introduction whose items are elsewhere: it
    # answers nothing, and the passage bar still applies to it
    q = "What is the main reason for the advance notice before an inspection?"
    intro = "You may not rely on the notice if any of the following apply:"
    facts = [fact(1, "Notice is given a reasonable time before the inspection for the main "
                     "site. The main reason to give the notice before is timing."),
             fact(2, intro)]
    terms = question_terms(q)
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    picked = [p.text for p in synthesize(
        terms, weight, facts, max_sentences=3, min_coverage=0.3, relative=0.75,
        similarity_weight=0.8, min_similarity=0.5,
        similarity=lambda ts: [0.9 if "following" in t else 0.6 for t in ts])]
    assert intro not in picked and picked


def test_what_follows_a_picked_sentence_never_crowds_out_the_best_read_one():
    # two strong sentences bring their continuations and a list's items; the sentence the
    # model reads as answering best (its passage ranked lower, so its score too) keeps a
    # place among them, and a list's introduction without room for an item is left out
    first = fact(1, "The shelf life and its extrapolation should be defined from the "
                    "stability profile of the active substance. Stability data for "
                    "representative batches should be provided in a tabulated form. "
                    "Extrapolation may be used provided that stability studies are conducted "
                    "in parallel to the clinical studies. Shelf life extrapolation can be made "
                    "under the following conditions: • Results at long-term and accelerated "
                    "storage conditions are available; • No significant changes in stability "
                    "behaviour are observed.")
    best = ("A fourfold extrapolation of accelerated stability data may be acceptable up to "
            "12 months.")
    second = fact(2, f"Depending on the data available for the product. {best} Other schemes "
                     "may be possible but should be justified.")
    terms = question_terms("shelf life extrapolation")
    weight = weights(terms, [set(analyze(f.quote)) for f in (first, second)])

    def similarity(texts):
        return [0.8 if "fourfold" in t else 0.75 if "shelf life" in t.lower() else 0.2
                for t in texts]

    options = dict(max_sentences=5, min_coverage=0.3, relative=0.75, similarity_weight=0.8,
                   min_similarity=0.5, follow=2)
    picks = synthesize(terms, weight, [first, second], similarity=similarity, **options)
    picked = [p.text for p in picks]
    assert best in picked and len(picked) == 5
    # the strongest sentence still comes first with its continuations
    assert picked[:2] == ["The shelf life and its extrapolation should be defined from the "
                          "stability profile of the active substance.",
                          "Stability data for representative batches should be provided in a "
                          "tabulated form."]
    assert not any(t.endswith(":") for t in picked)
    # without the model there is no best read to keep a place for: the list fills it
    lexical = [p.text for p in synthesize(terms, weight, [first, second], **options)]
    assert best not in lexical and len(lexical) == 5
    assert lexical[3].endswith("conditions:") and lexical[4].startswith("Results at")


def test_bulleted_items_completing_a_stem_are_one_sentence_with_it():
    # "Decision makers should • take ...; and • assure ..." reads as one sentence: alone,
    # the stem looks like a heading and each item like a fragment, and neither is picked
    quote = ("All participants should address the potential for subjectivity. Decision makers "
             "should • take responsibility for coordinating quality risk management across "
             "functions; and • assure that adequate resources and knowledge are available. "
             "Tools are listed below: • risk ranking • fault tree analysis")
    f = fact(1, quote)
    q = "What should decision makers take responsibility for?"
    terms = question_terms(q)
    picked = [p.text for p in synthesize(terms, weights(terms, [set(analyze(quote))]), [f],
                                         max_sentences=2, min_coverage=0.3,
                                         fragments=False)]
    assert picked[0] == ("Decision makers should • take responsibility for coordinating "
                         "quality risk management across functions; and • assure that "
                         "adequate resources and knowledge are available.")
    # items after a colon, or capitalised, stay sentences of their own
    from ragd.answer.sentences import spans as _spans
    texts = [quote[a:b] for a, b in _spans(quote)]
    assert texts[-3:] == ["Tools are listed below:", "risk ranking", "fault tree analysis"]


def test_a_list_introduction_whose_items_a_passage_cut_off_does_not_follow_a_sentence():
    # the passage ends at the introduction: alone it answers nothing, and the page's next
    # passage (holding its items) is the one to read
    quote = ("Software used directly is assured by testing. Software with the following "
             "intended uses is considered to support production:")
    f = fact(1, quote)
    terms = question_terms("How is software used directly assured?")
    picked = [p.text for p in synthesize(terms, weights(terms, [set(analyze(quote))]), [f],
                                         max_sentences=3, min_coverage=0.3, follow=2)]
    assert picked == ["Software used directly is assured by testing."]
    # with its items in the passage it follows, items and all
    whole = fact(2, quote + " • development tools; and • record-keeping software.")
    picked = [p.text for p in synthesize(terms, weights(terms, [set(analyze(whole.quote))]),
                                         [whole], max_sentences=4, min_coverage=0.3,
                                         follow=2)]
    assert picked == ["Software used directly is assured by testing.",
                      "Software with the following intended uses is considered to support "
                      "production:", "development tools; and", "record-keeping software."]


def test_a_documents_title_block_is_no_answer():
    # a title page's text restates the question's words best, and says nothing
    from ragd.answer.sentences import title_block

    title = "Investigating Out-of-Specification (OOS) Test Results for Pharmaceutical Production"
    block = ("Investigating Out-ofSpecification (OOS) Test Results for Pharmaceutical "
             "Production Guidance for Industry U.S. Department of Health and Human Services "
             "Food and Drug Administration May 2022")
    answer = ("For purposes of this document, the term OOS results includes all test results "
              "that fall outside the specifications or acceptance criteria.")
    e = Evidence(key="E1", doc_id="oos.pdf", chunk_id="c1", chunk_index=0, text=f"{block}. "
                 f"{answer}", score=0.7, relevance=0.7, section_id=None, citation="oos.pdf, p1",
                 title=title)
    f = Fact(e.key, normal(e.text), e, 0.7)
    terms = question_terms("What counts as an OOS test result under the FDA guidance?")
    picked = [p.text for p in synthesize(terms, weights(terms, [set(analyze(e.text))]), [f],
                                         max_sentences=3, min_coverage=0.0, relative=0.0)]
    assert picked == [answer]
    # only the whole title opening a sentence; a short title marks nothing
    from ragd.answer.sentences import letters as _letters
    assert title_block(block, _letters(title))
    assert not title_block(answer, _letters(title))
    assert not title_block("Investigating Out-of-Specification results is required.",
                           _letters(title))


def test_a_sentence_the_passage_end_cuts_off_is_not_picked_without_fragments():
    # a chunk ends inside a sentence: its head says less than the sentence, whose whole
    # stands in the next chunk of the page; the tail of a cut sentence is left out already
    from ragd.answer.sentences import cut_off

    whole = "Retention samples should be retained for at least one year after the expiry date."
    head = "The reference sample should be contained in its finished primary"
    f = fact(1, f"{whole} {head}")
    terms = question_terms("How long should the reference and retention samples be retained?")
    w = weights(terms, [set(analyze(f.quote))])
    options = dict(max_sentences=3, min_coverage=0.0, relative=0.0)
    assert [p.text for p in synthesize(terms, w, [f], fragments=False, **options)] == [whole]
    assert head in [p.text for p in synthesize(terms, w, [f], **options)]
    # followed: the cut head does not come along either
    assert [p.text for p in synthesize(terms, w, [f], fragments=False, follow=2,
                                       **options)] == [whole]
    assert cut_off(head) and cut_off("Change control systems should provide a")
    assert not cut_off(whole) and not cut_off("The items are listed as follows:")
    assert not cut_off("risk ranking")          # too short to tell an item from a cut
    # a bulleted last item ending in lower case is an item, not a cut sentence
    g = fact(2, "Tools include: • Risk ranking and filtering • Fault tree analysis of risks")
    t2 = question_terms("Which tools include fault tree analysis?")
    picked = [p.text for p in synthesize(t2, weights(t2, [set(analyze(g.quote))]), [g],
                                         fragments=False, **options)]
    assert "Fault tree analysis of risks" in picked


def chunk(doc: str, index: int, text: str, key: str, score: float = 0.5) -> Fact:
    """A fact of one chunk of a document (consecutive chunks go on from each other)."""
    e = Evidence(key=key, doc_id=doc, chunk_id=f"{doc}#{index}", chunk_index=index, text=text,
                 score=score, relevance=score, section_id=None, citation=f"{doc}, #{index}")
    return Fact(key, normal(text), e, score)


RECORD = ("A full-scale investigation should consist of a timely, thorough review. A written "
          "record of the review should include the following information. 1. A clear "
          "statement of the reason for the investigation. 2. A summary of the aspects of the "
          "process that may have caused the problem.")
# the next chunk repeats the last one's tail (chunks overlap), then goes on with the list
RECORD_NEXT = ("statement of the reason for the investigation. 2. A summary of the aspects of "
               "the process that may have caused the problem. 3. The results of a "
               "documentation review, with the assignment of a probable cause. 4. The results "
               "of a review made to determine if the problem has occurred previously.")


def test_a_list_a_passage_ends_inside_is_read_on_in_the_documents_next_passage():
    from ragd.answer.shapes import enumerates

    q = "What should the written record of the review of an investigation contain?"
    first, second = chunk("oos.pdf", 27, RECORD, "E2"), chunk("oos.pdf", 28, RECORD_NEXT, "E1")
    facts = [second, first]                      # (the next chunk ranked above it)
    terms = question_terms(q)
    w = weights(terms, [set(analyze(f.quote)) for f in facts])
    options = dict(max_sentences=6, min_coverage=0.2, follow=2, listed=enumerates)
    picks = synthesize(terms, w, facts, **options)
    texts = [p.text for p in picks]
    # an introduction ending in "." that announces "the following" brings its items; "3."
    # read as a heading's number is still an item's label; the repeated tail is read once
    assert texts[texts.index("A written record of the review should include the following "
                             "information."):] == [
        "A written record of the review should include the following information.",
        "1. A clear statement of the reason for the investigation.",
        "2. A summary of the aspects of the process that may have caused the problem.",
        "The results of a documentation review, with the assignment of a probable cause.",
        "The results of a review made to determine if the problem has occurred previously."]
    assert [p.fact.key for p in picks[-2:]] == ["E1", "E1"]      # each cites its own chunk
    for p in picks:
        assert p.text in p.fact.quote
    # without the next chunk, the list stops where its passage does
    alone = [p.text for p in synthesize(terms, w, [first], **options)]
    assert alone[-1].startswith("2. A summary") and len(alone) == len(texts) - 2
    # another document's chunk numbered next is no continuation
    other = chunk("other.pdf", 28, RECORD_NEXT, "E1")
    assert [p.text for p in synthesize(terms, w, [other, first], **options)
            if p.fact.key == "E1" and p.text.startswith("The results")] == []


LISTY_WORDS = WORDS + ["following", "include", "the", "should"]
_LISTY = st.lists(st.tuples(st.lists(st.sampled_from(LISTY_WORDS), min_size=1,
                                     max_size=10).map(" ".join),
                            st.sampled_from([". ", ": ", "; ", " • ", ". 2. ", ". (b) ",
                                             ", and "])),
                  min_size=1, max_size=8).map(lambda parts: "".join(a + b for a, b in parts))


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(_LISTY, min_size=2, max_size=5), overlap=st.integers(0, 40),
       question=st.lists(st.sampled_from(LISTY_WORDS), min_size=1, max_size=8).map(" ".join),
       follow=st.integers(0, 2), asks_list=st.booleans(), order=st.randoms())
def test_property_a_list_read_across_passages_quotes_each_passage(texts, overlap, question,
                                                                  follow, asks_list, order):
    """Consecutive chunks of one document, each repeating the last one's tail, in any order:
    every pick, read on across passages or not, is a quote of the passage it cites."""
    from ragd.answer.shapes import enumerates

    quotes = [texts[0]] + [texts[i - 1][-overlap:] + " " + texts[i] if overlap else texts[i]
                           for i in range(1, len(texts))]
    facts = [chunk("d.pdf", i, t, f"E{i + 1}") for i, t in enumerate(quotes)]
    order.shuffle(facts)
    terms = question_terms(question)
    w = weights(terms, [set(analyze(f.quote)) for f in facts])
    picks = synthesize(terms, w, facts, max_sentences=6, min_coverage=0.0, relative=0.0,
                       follow=follow, listed=enumerates if asks_list else None)
    assert len(picks) <= 6
    for p in picks:
        assert p.text and p.text in p.fact.quote
    sentences = [Sentence(p.text, (p.fact.evidence,)) for p in picks]
    kept, dropped = check_sentences(sentences, facts, 0.99)
    assert [s.text for s in kept] == [p.text for p in picks] and not dropped


def test_a_list_read_on_skips_only_the_repeated_end_and_a_cut_item_once():
    """The next chunk's opening sentences are skipped only as the end of the passage
    before (not wherever they occur in it), and an item the passage's end cuts is read
    whole from the next chunk, once."""
    from ragd.answer.shapes import enumerates

    first = chunk("gdp.pdf", 3, "Temperature control matters. • Humidity is recorded. The "
                  "following conditions should be monitored during storage: • temperature "
                  "• relative humidity of the", "E1")
    second = chunk("gdp.pdf", 4, "relative humidity of the warehouse air • Humidity is "
                   "recorded. • Light exposure", "E2")
    q = "Which conditions should be monitored during storage?"
    terms = question_terms(q)
    w = weights(terms, [set(analyze(f.quote)) for f in (first, second)])
    picks = synthesize(terms, w, [first, second], max_sentences=6, min_coverage=0.2,
                       listed=enumerates)
    texts = [p.text for p in picks]
    at = texts.index("The following conditions should be monitored during storage:")
    assert texts[at + 1:at + 5] == ["temperature", "relative humidity of the warehouse air",
                                    "Humidity is recorded.", "Light exposure"]
    assert "relative humidity of the" not in texts
    for p in picks:
        assert p.text in p.fact.quote


def test_below_or_the_following_day_announce_no_list():
    quote = ("The product should be stored below 25 degrees. (a) Keep it dry. (b) Keep it "
             "dark.")
    f = fact(1, quote)
    terms = question_terms("At what temperature should the product be stored?")
    picks = [p.text for p in synthesize(terms, weights(terms, [set(analyze(quote))]), [f],
                                        max_sentences=6, min_coverage=0.3)]
    assert picks == ["The product should be stored below 25 degrees."]



def test_a_continuation_brings_the_sentence_qualifying_it():
    q = "Does this guideline apply to submissions of drug substances during clinical research?"
    text = ("This guideline applies to drug substances and their submissions in clinical "
            "research. It is relevant to Module 3. The guideline does not apply to submissions "
            "during clinical research. Nevertheless, its principles are important to consider. "
            "Changes are not covered.")
    f = fact(0, text, 0.9)
    terms = question_terms(q)
    picks = synthesize(terms, weights(terms, [set(analyze(text))]), [f], max_sentences=6,
                       min_coverage=0.3, follow=2)
    # two sentences follow the first; the one qualifying the second of them comes too
    assert [p.text for p in picks][2:4] == [
        "The guideline does not apply to submissions during clinical research.",
        "Nevertheless, its principles are important to consider."]


def test_the_first_passage_of_the_context_is_never_barred_by_its_terms():
    q = "Who selects which drug products get surveyed by the program?"
    first = fact(0, "A working group selects them each year. The group meets yearly.", 0.9)
    other = fact(1, "Drug products are surveyed by the program.", 0.8)
    terms = question_terms(q)
    w = weights(terms, [set(analyze(f.quote)) for f in (first, other)])
    picks = synthesize(terms, w, [first, other], max_sentences=6, min_coverage=0.1,
                       relative=0.6)
    # the passage the evidence checks put first answers "who", though it shares fewer of
    # the question's terms than the other: its strong sentence stays
    assert [p.text for p in picks] == ["A working group selects them each year.",
                                       "Drug products are surveyed by the program."]
    # a later passage sharing as few is barred still
    picks = synthesize(terms, w, [other, first], max_sentences=6, min_coverage=0.1,
                       relative=0.6)
    assert [p.text for p in picks] == ["Drug products are surveyed by the program."]


def test_a_list_read_on_skips_the_next_chunks_opening_fragment_the_passage_holds():
    """Chunks overlapping inside a sentence: the next chunk opens with the tail of a
    sentence the passage before holds; read on from a list's introduction, that tail is
    not an item (it repeats the passage, cut mid-sentence)."""
    from ragd.answer.lists import next_passages

    first = chunk("ch3.pdf", 6, "Production Area. It may be necessary to dedicate premises "
                  "for manufacturing operations to control the risk presented by some "
                  "products. Dedicated facilities are required when a product presents a "
                  "risk because:", "E1")
    second = chunk("ch3.pdf", 7, "operations to control the risk presented by some products. "
                   "Dedicated facilities are required when a product presents a risk because: "
                   "i. the risk cannot be controlled by technical measures, ii. residue "
                   "limits cannot be determined by a validated method.", "E2")
    assert next_passages([first, second])["E1"] == (second, 1)
    q = "When are dedicated facilities required?"
    terms = question_terms(q)
    w = weights(terms, [set(analyze(f.quote)) for f in (first, second)])
    picks = synthesize(terms, w, [first, second], max_sentences=6, min_coverage=0.2, follow=2)
    texts = [p.text for p in picks]
    assert "operations to control the risk presented by some products." not in texts
    assert any(t.startswith("Dedicated facilities are required") and "validated method" in t
               for t in texts)
    assert all(p.text in p.fact.quote for p in picks)
    # a fragment the passage before does not hold is left where it is (not skipped)
    third = chunk("ch3.pdf", 7, "measures to reduce the risk. i. the risk cannot be "
                  "controlled.", "E2")
    assert next_passages([first, third])["E1"] == (third, 0)


def test_a_picked_list_item_brings_the_sentence_introducing_its_list():
    from ragd.answer.lists import introduction
    from ragd.answer.shapes import enumerates

    scribes = chunk("mhra.pdf", 18, "5.2 The use of scribes to record activity on behalf of "
                    "another operator can be considered where justified, for example: "
                    "• The act of contemporaneous recording compromises the product, e.g. "
                    "documenting line interventions by sterile operators. • Necropsy (GLP) "
                    "• To accommodate literacy or language limitations.", "E1")
    q = "Can line interventions by sterile operators be documented by someone else?"
    terms = question_terms(q)
    w = weights(terms, [set(analyze(scribes.quote))])
    texts = [p.text for p in synthesize(terms, w, [scribes], max_sentences=6,
                                        min_coverage=0.2, follow=2)]
    intro = ("The use of scribes to record activity on behalf of another operator can be "
             "considered where justified, for example:")
    item = ("The act of contemporaneous recording compromises the product, e.g. documenting "
            "line interventions by sterile operators.")
    assert intro in texts and item in texts and texts.index(intro) < texts.index(item)
    # not without ``follow`` (its reading of neighbours), and only across items
    assert intro not in [p.text for p in synthesize(terms, w, [scribes], max_sentences=6,
                                                     min_coverage=0.2, follow=0)]
    assert enumerates is not None and callable(introduction)


def test_a_picked_sentence_is_not_followed_into_the_next_glossary_entry():
    # "follow" brings what continues a picked sentence; the next entry of a glossary
    # ("semi-permeable containers. Containers that ...") defines something else
    quote = ("For labile substances a shelf life is more appropriate than a retest period. "
             "The same may be true for certain antibiotics. semi-permeable containers. "
             "Containers that allow the passage of solvent, usually water. Transport is "
             "driven by a partial-pressure gradient.")
    q = "When should a shelf life rather than a retest period be given to labile substances?"
    terms = question_terms(q)
    picked = [p.text for p in synthesize(terms, weights(terms, [set(analyze(quote))]),
                                         [fact(1, quote)], max_sentences=4, min_coverage=0.3,
                                         fragments=False, follow=2)]
    assert picked[0].startswith("For labile substances")
    assert "The same may be true for certain antibiotics." in picked
    assert not any("semi-permeable" in t or "Transport" in t for t in picked), picked


def test_a_sentence_answering_one_ask_of_several_is_read_with_that_ask():
    # "How often ..., and can the review revisit risk acceptance?": the second ask's answer
    # shares little with the whole question, and is read as answering only beside that ask
    first = fact(1, "Risk management should be an ongoing part of the quality management "
                    "process. The output of the risk management process should be reviewed "
                    "to take into account new knowledge. The frequency of any review should "
                    "be based upon the level of risk. Risk review might include "
                    "reconsideration of risk acceptance decisions.", 0.9)
    other = fact(2, "The outputs of quality risk management include decisions on the "
                    "hazards. Review of the quality risk management process output is "
                    "documented. Quality risk management supports science-based decisions.",
                 0.6)
    question = ("How often should the output of a quality risk management process be "
                "reviewed, and can the review revisit risk acceptance?")
    terms = question_terms(question)
    weight = weights(terms, [set(analyze(f.quote)) for f in (first, other)])
    second = "Risk review might include reconsideration of risk acceptance decisions."

    def whole(texts):
        return [0.3 if "acceptance" in t else 0.9 if "frequency" in t
                else 0.8 if "review" in t.lower() else 0.55 for t in texts]

    def revisit(texts):
        return [0.95 if "acceptance" in t else 0.3 for t in texts]

    options = dict(max_sentences=4, min_coverage=0.3, relative=0.75, similarity_weight=0.8,
                   min_similarity=0.5, follow=0)
    without = [p.text for p in synthesize(terms, weight, [first, other], similarity=whole,
                                          **options)]
    assert second not in without
    picks = synthesize(terms, weight, [first, other], similarity=whole,
                       asks=[(question_terms("can the review revisit risk acceptance?"),
                              revisit)], **options)
    picked = [p.text for p in picks]
    assert second in picked and len(picked) <= 4
    assert "The frequency of any review should be based upon the level of risk." in picked
    assert all(p.text in p.fact.quote for p in picks)
    assert next(p for p in picks if p.text == second).similarity == 0.95


def test_an_ask_reads_only_sentences_naming_its_terms():
    # the model reads "accelerated stability data" as answering "accelerated assessment":
    # a sentence answers an ask only when it holds enough of the ask's terms
    facts = [fact(1, "A fourfold extrapolation of accelerated stability data may be "
                     "acceptable up to a shelf life of 12 months.", 0.6)]
    question = ("What are the eligibility criteria for the PRIME scheme, and does a PRIME "
                "product automatically get accelerated assessment?")
    terms = question_terms(question)
    weight = weights(terms, [set(analyze(f.quote)) for f in facts])
    ask = "does a PRIME product automatically get accelerated assessment?"

    def low(texts):
        return [0.2 for _ in texts]

    def reads_as_answering(texts):
        return [0.9 for _ in texts]

    options = dict(max_sentences=6, min_coverage=0.3, relative=0.75, similarity_weight=0.8,
                   min_similarity=0.5)
    assert synthesize(terms, weight, facts, similarity=low,
                      asks=[(question_terms(ask), reads_as_answering)], **options) == []
    # a sentence naming the ask's terms is read with it
    named = [fact(1, "A PRIME product may get accelerated assessment automatically.", 0.6)]
    picks = synthesize(terms, weight, named, similarity=low,
                       asks=[(question_terms(ask), reads_as_answering)], **options)
    assert [p.similarity for p in picks] == [0.9]
