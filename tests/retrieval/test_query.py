"""The query rewrite every search and answer gets: abbreviated references to a
document's parts spelled out."""

from __future__ import annotations

import pytest

from ragd import Document, Plan, retrieve
from ragd.ingest.pipeline import ingest_documents
from ragd.retrieval.query import spell_out_parts


@pytest.mark.parametrize("query, spelled", [
    ("EU GMP Ch.3: do QC labs have to be kept apart?",
     "EU GMP Chapter 3: do QC labs have to be kept apart?"),
    ("chap. IV of the guide", "Chapter IV of the guide"),
    ("Art. 5 and App. B", "Article 5 and Appendix B"),
    ("see Para. 12", "see paragraph 12"),
    ("research (Ch. 2)", "research (Chapter 2)"),
])
def test_an_abbreviated_part_before_its_number_is_spelled_out(query, spelled):
    assert spell_out_parts(query) == spelled
    assert spell_out_parts(spelled) == spelled          # once is all it takes


@pytest.mark.parametrize("query", [
    "Sec. 740.8: NAC versus ACA?",     # the citation schemes read "Sec." themselves
    "the arch. 3 dogs", "a chapter. 3 items", "the app. is slow", "Art. deco buildings",
    "I checked the app. i think it works",
])
def test_anything_else_is_left_as_written(query):
    assert spell_out_parts(query) == query


def test_a_search_for_ch_n_finds_the_chapter_its_words_do_not_name(toy_collection):
    ingest_documents([
        Document("gmp-3", "Chapter 3 Premises. Laboratories should be separated from "
                          "production areas."),
        Document("gmp-5", "Production areas must be kept clean.")], toy_collection)
    abbreviated = retrieve("Ch.3 production areas", Plan(mode="lexical", k=2), toy_collection)
    spelled = retrieve("Chapter 3 production areas", Plan(mode="lexical", k=2), toy_collection)
    assert [(c.key, c.score) for c in abbreviated] == [(c.key, c.score) for c in spelled]
    assert abbreviated[0].doc_id == "gmp-3"


def test_a_plan_or_profile_may_leave_the_parts_as_written(toy_collection):
    from ragd.profiles import load_profile

    ingest_documents([
        Document("gmp-3", "Chapter 3 Premises. Laboratories should be separated from "
                          "production areas."),
        Document("gmp-5", "Production areas must be kept clean.")], toy_collection)
    literal = Plan(mode="lexical", k=2, spell_parts=False)
    as_written = retrieve("Ch.3 production areas", literal, toy_collection)
    spelled = retrieve("Chapter 3 production areas", literal, toy_collection)
    # "Ch.3" read literally: "chapter" is not searched, and the chapter scores less
    top = {c.doc_id: c.score for c in spelled}
    assert {c.doc_id: c.score for c in as_written}["gmp-3"] < top["gmp-3"]
    assert [(c.key, c.score) for c in retrieve("Ch.3 production areas", Plan(
        mode="lexical", k=2), toy_collection)] == [(c.key, c.score) for c in spelled]
    # the profile's [retrieval] spell_parts (default on) makes the plan's
    assert load_profile("default").plan().spell_parts is True
    assert load_profile("default").retrieval["spell_parts"] is True


def test_an_answer_reads_the_spelled_out_question_and_shows_it_as_asked(toy_collection):
    from ragd.answer import answer as ask

    ingest_documents([Document("gmp-3", "Chapter 3 Premises. Quality control laboratories "
                                        "should be separated from production areas.")],
                     toy_collection)
    asked = ask("Ch.3: should laboratories be separated from production areas?",
                toy_collection)
    spelled = ask("Chapter 3: should laboratories be separated from production areas?",
                  toy_collection)
    assert asked.question == "Ch.3: should laboratories be separated from production areas?"
    assert asked.trace.read_as.startswith("Chapter 3: should laboratories")
    assert (asked.status, asked.answer) == (spelled.status, spelled.answer)
    assert [e.key for e in asked.evidence] == [e.key for e in spelled.evidence]


def test_a_query_spelling_out_would_take_past_the_limit_is_left_as_written():
    from ragd.retrieval.query import MAX_QUERY_CHARS

    query = ("see ch.1 " * 222).strip()
    assert len(query) <= MAX_QUERY_CHARS
    assert spell_out_parts(query) == query
