"""The bundled cross-encoder (real ONNX inference): a pair's score is a function of the pair."""

from __future__ import annotations

from ragd.retrieval.cross_encoder import CrossEncoder, shared

QUESTION = "What must a signed electronic record show?"
PASSAGES = [
    "Signed electronic records shall contain the printed name of the signer, the date and "
    "time when the signature was executed, and the meaning of the signature.",
    "The date and time when the signature was executed.",
    "Batch records should be kept for one year after the expiry date of the batch. " * 6,
    "Computer systems, controls and attendant documentation shall be readily available for "
    "FDA inspection.",
]


def test_a_pairs_score_does_not_depend_on_what_it_is_scored_beside():
    model = shared(320)
    alone = [float(model.score(QUESTION, [p])[0]) for p in PASSAGES]
    together = [float(s) for s in model.score(QUESTION, PASSAGES)]
    backwards = [float(s) for s in model.score(QUESTION, PASSAGES[::-1])][::-1]
    # read in one padded int8 batch, these differed by up to 0.09 logit
    assert together == alone and backwards == alone
    assert alone[0] > 0 > alone[2]          # the answer above the floor, the filler below


def test_the_shared_model_is_one_per_token_budget():
    assert shared(320) is shared(320) and shared(192) is not shared(320)
    assert isinstance(shared(192), CrossEncoder) and shared(192).max_tokens == 192
