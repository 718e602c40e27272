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
