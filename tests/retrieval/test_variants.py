"""Learned query variants end to end, through a real store: misspelt words corrected to the
collection's words, acronyms followed by their defined long forms, both searched by gather."""

from __future__ import annotations

import pytest

from ragd import Document, Plan
from ragd.ingest.pipeline import ingest_documents
from ragd.retrieval.gather import gather
from ragd.retrieval.variants import learn

DOCS = [
    Document("oos", "An out of specification (OOS) result is a test result that falls outside "
             "the specifications or acceptance criteria. Every OOS result is investigated."),
    Document("oos-2", "OOS results of the laboratory are reported to the quality unit."),
    Document("part11", "Electronic signature means a computer data compilation of any symbol "
             "executed by an individual to be the legally binding equivalent of a signature."),
    Document("pv", "Process validation is the collection and evaluation of data, from the "
             "process design stage through commercial production."),
]
ON = {"spelling": True, "acronyms": True}


@pytest.fixture
def coll(toy_collection):
    ingest_documents(DOCS, toy_collection)
    return toy_collection


def test_corrections_and_long_forms_are_learned_from_the_store(coll):
    learned = learn("electornic signture definition", coll, ON)
    if coll.store.url.startswith("postgres"):   # no word list there: spelling is a no-op
        assert not learned.changed and learned.query == "electornic signture definition"
    else:
        assert dict(learned.corrections) == {"electornic": "electronic",
                                              "signture": "signature"}
        assert learned.query == learned.corrected == "electronic signature definition"
    oos = learn("what is OOS", coll, ON)
    assert dict(oos.long_forms) == {"OOS": "out of specification"}
    assert oos.query == "what is OOS out of specification"
    assert learn("what is oos", coll, ON).long_forms == {"OOS": "out of specification"}


def test_off_or_in_vocabulary_nothing_changes(coll):
    assert learn("electornic signture", coll, {}).query == "electornic signture"
    assert not learn("electronic signature", coll, ON).changed
    assert not learn("process validation stages", coll, ON).changed   # no acronym defined
    # a definition already said in the query is not added again
    assert not learn("out of specification OOS", coll, ON).changed


def test_a_write_is_seen_by_the_next_lookup(coll):
    assert not learn("what is CCS", coll, ON).changed
    ingest_documents([Document("an1", "A Contamination Control Strategy (CCS) should be "
                               "implemented across the facility.")], coll)
    assert learn("what is CCS", coll, ON).long_forms == {
        "CCS": "contamination control strategy"}


def test_gather_searches_the_learned_variant(coll):
    settings = {"k": 3, **ON}
    got = gather("what is OOS", coll, settings, Plan(k=10, pool=10))
    assert got.variants == ("what is OOS", "what is OOS out of specification")
    assert got.asked == "what is OOS"   # long forms are searched, not answered
    assert got.notes["long_forms"] == {"OOS": "out of specification"}
    plain = gather("what is OOS", coll, {"k": 3}, Plan(k=10, pool=10))
    assert plain.variants == ("what is OOS",) and plain.asked == "what is OOS"


def test_gather_expands_the_corrected_query_by_the_rules_too(coll):
    if coll.store.url.startswith("postgres"):
        pytest.skip("spelling is a no-op on PostgreSQL")
    settings = {"k": 3, **ON, "expansions": {"process validation": ["commercial production"]}}
    got = gather("proces validaton", coll, settings, Plan(k=10, pool=10))
    assert got.variants == ("proces validaton", "process validation",
                            "process validation commercial production")
    assert got.candidates[0].doc_id == "pv" and got.asked == "process validation"


def test_an_answer_reads_the_corrected_question_and_traces_the_variants(store, toy, tmp_path):
    if store.url.startswith("postgres"):
        pytest.skip("spelling is a no-op on PostgreSQL")
    from ragd.answer.pipeline import answer
    from ragd.collection import open_collection
    from ragd.profiles import load_profile

    path = tmp_path / "typos.toml"
    path.write_text('name = "typos"\n[retrieval]\nspelling = true\nacronyms = true\n')
    coll = open_collection(store, "typos", toy, create=True, profile=load_profile(path))
    ingest_documents(DOCS, coll)
    got = answer("process validaton", coll)
    assert got.trace.variants == ("process validaton", "process validation")
    assert got.to_dict()["trace"]["variants"] == ["process validaton", "process validation"]
    assert got.status == "answered" and "Process validation is" in got.answer


def test_the_evidence_checks_read_the_corrected_question(store, toy, tmp_path):
    """A cross-encoder reading "process validaton" misjudges which passage answers: the
    evidence validators get the question as the reranker and the answer read it."""
    if store.url.startswith("postgres"):
        pytest.skip("spelling is a no-op on PostgreSQL")
    from ragd.answer.pipeline import answer
    from ragd.collection import open_collection
    from ragd.evidence.base import VALIDATORS, Step
    from ragd.profiles import load_profile

    seen: list[str] = []

    def record(question, candidates, ctx):
        seen.append(question)
        return Step(tuple(candidates))

    VALIDATORS.register("test_record_question", record, replace=True)
    try:
        path = tmp_path / "typos-checked.toml"
        path.write_text('name = "typos-checked"\n[retrieval]\nspelling = true\n'
                        '[evidence]\nvalidators = ["test_record_question"]\n')
        coll = open_collection(store, "typos", toy, create=True, profile=load_profile(path))
        ingest_documents(DOCS, coll)
        got = answer("process validaton", coll)
    finally:
        VALIDATORS.unregister("test_record_question")
    assert seen == ["process validation"]
    assert got.question == "process validaton"          # the answer keeps what was asked


def test_gather_searches_and_asks_with_the_acronym_of_a_long_form(coll):
    ingest_documents([
        Document("cm-1", "This guideline describes the lifecycle of continuous manufacturing (CM)."),
        Document("cm-2", "CM involves the feeding of input materials into a line.")], coll)
    settings = {"k": 3, **ON}
    got = gather("How is continuous manufacturing described?", coll, settings,
                 Plan(k=10, pool=10))
    annotated = "How is continuous manufacturing (CM) described?"
    assert got.variants == ("How is continuous manufacturing described?", annotated)
    assert got.short_forms == {"CM": "continuous manufacturing"} == got.notes["short_forms"]
    assert got.asked == annotated     # the answer reads "CM" as the question's subject
    assert "cm-2" in {c.doc_id for c in got.pool}
    off = gather("How is continuous manufacturing described?", coll, {"k": 3},
                 Plan(k=10, pool=10))
    assert len(off.variants) == 1 and not off.short_forms


def test_an_acronym_only_a_documents_name_spells_is_searched_and_read_spelled_out(
        toy_collection):
    ingest_documents([
        Document("fda/guidance-computer-software-assurance-production.pdf", "Computer "
                 "software assurance is a risk-based approach for establishing confidence "
                 "that software is fit for its intended use."),
        Document("ich/q9-quality-risk-management.pdf", "Risk is the combination of the "
                 "probability of occurrence of harm and the severity of that harm.")],
        toy_collection)
    names = {**ON, "acronym_names": True}
    assert not learn("CSA definition", toy_collection, ON).long_forms   # off by default
    learned = learn("CSA definition", toy_collection, names)
    assert dict(learned.long_forms) == dict(learned.named_forms) == {
        "CSA": "computer software assurance"}
    got = gather("CSA definition", toy_collection, {"k": 3, **names}, Plan(k=10, pool=10))
    # the passages never write "CSA": the reranker and the reader get its long form too
    assert got.asked == "CSA (computer software assurance) definition"
    # written in lower case it is a word, not an acronym the names are read for
    assert not learn("csa definition", toy_collection, names).long_forms
    # a text's own definition wins over a name
    ingest_documents([Document("other", "A Clinical Study Agreement (CSA) is signed first.")],
                     toy_collection)
    text = learn("CSA definition", toy_collection, names)
    assert dict(text.long_forms) == {"CSA": "clinical study agreement"}
    assert not text.named_forms


def test_a_hyphenated_word_the_collection_writes_solid_is_searched_solid_too(coll):
    """"mix-ups" is analysed as "mix" and "up", two other terms than the "mixups" a
    document writes: both forms are searched, and the one written solid is found."""
    ingest_documents([Document("qmsr", "Labeling and packaging operations shall be "
                               "established to prevent mixups."),
                      Document("mix", "Mix the buffer and set it up on the bench.")], coll)
    learned = learn("packaging controls to avoid mix-ups", coll, ON)
    if coll.store.url.startswith("postgres"):   # no word list there: a no-op
        assert not learned.changed
        return
    assert dict(learned.joined) == {"mix-ups": "mixups"}
    assert learned.corrected == "packaging controls to avoid mix-ups"   # as asked
    assert learned.query == "packaging controls to avoid mix-ups mixups"
    # a hyphenated word no text writes solid is left alone; so is one off
    assert not learn("avoid non-sterile set-ups", coll, ON).joined
    assert not learn("avoid mix-ups", coll, {}).changed
    got = gather("avoid mix-ups", coll, {"k": 2, **ON}, Plan(k=10, pool=10))
    assert got.notes["joined"] == {"mix-ups": "mixups"}
    assert got.variants == ("avoid mix-ups", "avoid mix-ups mixups")
    assert "qmsr" in [c.doc_id for c in got.candidates]


def test_an_acronym_no_text_writes_is_searched_and_read_as_the_words_they_write(
        toy_collection):
    ingest_documents([
        Document("t1", "An out of trend result is reviewed by the laboratory."),
        Document("t2", "Out of trend data are reported to the quality unit."),
        Document("t3", "Investigations of out of trend results are closed before release."),
        Document("x", "Process validation is the collection and evaluation of data.")],
        toy_collection)
    q = "Must OOT investigations be closed?"
    spelt = "Must out of trend (OOT) investigations be closed?"
    got = gather(q, toy_collection, {"k": 3, **ON, "acronym_names": True},
                 Plan(k=10, pool=10))
    # searched as the documents word it, and read so by the reranker and the answer
    assert got.variants[-1] == spelt and got.asked == spelt
    assert {c.doc_id for c in got.pool} >= {"t1", "t2", "t3"}
    # off (a collection whose titles spell acronyms as words): the question as asked
    off = gather(q, toy_collection, {"k": 3, **ON}, Plan(k=10, pool=10))
    assert spelt not in off.variants and off.asked == q
