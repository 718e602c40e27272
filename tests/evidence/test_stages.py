"""The context stage as a profile configures it: a passage the caller keeps (one defining what
a definitional question asks about) stays in the context wherever the order puts it."""

from __future__ import annotations

from ragd.evidence.stages import build_context
from ragd.profiles import load_profile
from ragd.types import Candidate


def _passages(n: int, defining: int) -> list[Candidate]:
    return [Candidate(doc_id=f"g{i:02d}.pdf", chunk_index=0, score=1.0 - i / 100, rank=i + 1,
                      text=("Design Space: The multidimensional combination of input variables."
                            if i == defining else f"Passage {i} says something about design."),
                      page=i + 1, metadata={"pdf": f"g{i:02d}.pdf", "page": i + 1})
            for i in range(n)]


def test_a_kept_passage_takes_the_last_place_of_the_context():
    prof = load_profile("pharma-qa")
    limit = int(prof.data["context"]["max_chunks"])
    passages = _passages(limit + 3, defining=limit + 1)
    plain = build_context("design space?", passages, prof)
    assert [c.doc_id for c in plain.assembled.used] == [c.doc_id for c in passages[:limit]]
    keep = lambda c: {0} if c.text.startswith("Design Space:") else set()  # noqa: E731
    kept = build_context("design space?", passages, prof, keep=keep, keep_limit=1)
    used = [c.doc_id for c in kept.assembled.used]
    assert len(used) == limit and used[-1] == passages[limit + 1].doc_id
    assert used[:-1] == [c.doc_id for c in passages[:limit - 1]]
    # what it displaced is dropped for the context's size, named as such
    assert (passages[limit - 1].doc_id, "max_chunks") in [
        (c.doc_id, why) for c, why in kept.assembled.dropped]
    # no limit: the order as before
    assert build_context("design space?", passages, prof, keep=keep,
                         keep_limit=0).assembled.used == plain.assembled.used


def test_the_passage_a_list_runs_on_into_follows_its_introduction():
    """``follow`` names the passage that must stand right after one (the next chunk of a
    list a passage ends inside): the first of the context's passages to have one brings it
    there from below the context's size, and what it displaces is dropped last."""
    prof = load_profile("pharma-qa")
    limit = int(prof.data["context"]["max_chunks"])
    passages = _passages(limit + 3, defining=-1)
    later = passages[limit + 2]
    follow = lambda c: later if c.doc_id == passages[1].doc_id else None  # noqa: E731
    built = build_context("design?", passages, prof, follow=follow)
    used = [c.doc_id for c in built.assembled.used]
    assert used[:3] == [passages[0].doc_id, passages[1].doc_id, later.doc_id]
    assert len(used) == limit and passages[limit - 1].doc_id not in used
    # one already in the context is not moved; none named: the order as before
    inside = lambda c: passages[3] if c.doc_id == passages[1].doc_id else None  # noqa: E731
    assert build_context("design?", passages, prof, follow=inside).assembled.used == \
        build_context("design?", passages, prof).assembled.used
