"""A question naming a document by its file name's parts ("WHO TRS 1010") names the
documents, not something they lack."""

from __future__ import annotations

from ragd import Document
from ragd.answer import answer as ask
from ragd.ingest.pipeline import ingest_documents


def test_a_question_naming_a_document_by_its_file_name_is_not_outside_the_documents(
        toy_collection):
    ingest_documents([
        Document("who/trs1010-annex10-stability.md", "Stability testing. For an API with a "
                 "retest period of at least 12 months, long-term testing should be every "
                 "three months over the first year.", title="Stability testing of APIs"),
        Document("who/trs957-annex5-distribution.md", "Distribution. Storage areas should "
                 "be clean and dry.", title="Good distribution practices")], toy_collection)
    named = ask("TRS 1010: how often is long-term stability testing done for an API?",
                toy_collection)
    assert named.refusal_reason != "not_in_documents", named.trace
    # a code no document holds, in its text or its name, still is
    other = ask("IMPD: how often is long-term stability testing done for an API?",
                toy_collection)
    assert other.refusal_reason == "not_in_documents"
    assert other.trace.refused_by == "outside_terms: impd"


def test_a_term_is_held_anywhere_when_some_passage_of_the_collection_holds_it(
        toy_collection):
    from ragd.analysis import analyze
    from ragd.answer.pipeline import _held_anywhere

    ingest_documents([Document("lab", "The LIMS stores laboratory results."),
                      Document("val", "Retrospective validation is not an option for new "
                               "systems.")], toy_collection)
    assert _held_anywhere(toy_collection, " ".join(analyze("LIMS")))
    assert _held_anywhere(toy_collection, " ".join(analyze("laboratory results")))
    assert not _held_anywhere(toy_collection, " ".join(analyze("LIMS HIPAA")))
