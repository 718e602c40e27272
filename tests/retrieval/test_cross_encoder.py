"""The bundled cross-encoder (real ONNX inference) and what remembers its scores: only one
answer's stages share them, so an answer never depends on what the process scored before."""

from __future__ import annotations

from ragd.retrieval.cross_encoder import shared
from ragd.retrieval.rerank import rerank, remembering
from ragd.types import Candidate

QUESTION = "What must a signed electronic record show?"
ANSWER = ("Signed electronic records shall contain the printed name of the signer, the date "
          "and time when the signature was executed, and the meaning of the signature.")
SHORT = "The date and time when the signature was executed."
LONG = "Batch records should be kept for one year after the expiry date of the batch. " * 6


def _cands(*texts: str) -> list[Candidate]:
    return [Candidate(doc_id=f"d{i}", chunk_index=0, text=t, score=0.0)
            for i, t in enumerate(texts)]


def _score_of(ranked: list[Candidate], doc_id: str) -> float:
    return next(c.score for c in ranked if c.doc_id == doc_id)


def test_a_pairs_score_depends_on_its_batch_so_scores_are_not_kept_across_answers():
    model = shared(256)
    # the int8 model quantizes each call with one scale: the same pair, another batch
    beside_short = float(model.score(QUESTION, [ANSWER, SHORT])[0])
    beside_long = float(model.score(QUESTION, [ANSWER, LONG])[0])
    assert beside_short != beside_long
    # outside an answer nothing is remembered: each rerank reads its own batch
    first = rerank(QUESTION, _cands(ANSWER, SHORT), model="ms-marco-minilm")
    second = rerank(QUESTION, _cands(ANSWER, LONG), model="ms-marco-minilm")
    assert _score_of(first, "d0") == beside_short and _score_of(second, "d0") == beside_long


def test_within_an_answer_its_stages_share_the_scores():
    with remembering():
        first = rerank(QUESTION, _cands(ANSWER, SHORT), model="ms-marco-minilm")
        again = rerank(QUESTION, _cands(ANSWER, LONG), model="ms-marco-minilm")
        assert _score_of(again, "d0") == _score_of(first, "d0")      # remembered
        with remembering():                                          # a nested answer
            fresh = rerank(QUESTION, _cands(ANSWER, LONG), model="ms-marco-minilm")
            assert _score_of(fresh, "d0") != _score_of(first, "d0")
    after = rerank(QUESTION, _cands(ANSWER, LONG), model="ms-marco-minilm")
    assert _score_of(after, "d0") == _score_of(fresh, "d0")          # forgotten after it
