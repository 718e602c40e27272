"""The answering pipeline's own helpers, tested alone."""

from __future__ import annotations

from ragd.profiles import load_profile


def test_a_list_follower_is_barred_by_what_it_is_not_by_its_relevance_alone():
    """The next chunk a list runs on into may be one the checks, reading it alone, find
    answers nothing (the list's introduction is elsewhere): that is no bar. A duplicate,
    or a repealed passage judged now, stays out."""
    from ragd.answer.pipeline import _validated
    from ragd.evidence.base import Outcome
    from ragd.types import Candidate

    def passage(i: int, **metadata) -> Candidate:
        return Candidate(doc_id="law.txt", chunk_index=i, score=0.5, rank=i + 1,
                         text=f"Item {i}: the holder shall keep the records.",
                         metadata=metadata)

    head, dup, weak, fresh, repealed = (passage(0), passage(1), passage(2), passage(3),
                                        passage(4, repealed=True))
    outcome = Outcome(accepted=(head,), rejected=((dup, "duplicate", "dedupe"),
                                                  (weak, "not_an_answer", "cross_encoder")))
    prof = load_profile("legal-in")          # its checks include status_guard
    valid = _validated("Which records shall the holder keep?", outcome,
                       [head, dup, weak, fresh, repealed], prof)
    assert valid(head) and not valid(dup)
    assert valid(weak) and valid(fresh)
    assert not valid(repealed)
