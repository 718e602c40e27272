"""Threshold rules are pure functions over relevance scores."""

from hypothesis import given
from hypothesis import strategies as st

import pytest

from ragd.errors import ConfigError
from ragd.retrieval.threshold import judge


def test_mean_of_qualifying_as_the_contract_says():
    v = judge([0.9, 0.7, 0.5, 0.2], 0.6, 5, "mean-of-qualifying")
    assert (v.kept, v.meets) == (2, True) and v.avg == pytest.approx(0.8)
    v = judge([0.5, 0.4, 0.3], 0.6, 2, "mean-of-qualifying")  # none qualifies: top-2 mean
    assert (v.kept, v.meets) == (0, False) and v.avg == pytest.approx(0.45)
    v = judge([0.9, 0.8, 0.7], 0.6, 2, "mean-of-qualifying")  # at most `limit`
    assert v.kept == 2 and v.avg == pytest.approx(0.85)
    assert judge([], 0.6, 5, "mean-of-qualifying") == judge([], 0.6, 5, "mean-of-qualifying")
    assert not judge([], 0.6, 5, "mean-of-qualifying").meets


def test_top_and_none_rules():
    assert judge([0.7, 0.1], 0.6, 5, "top").kept == 1
    assert not judge([0.5, 0.4], 0.6, 5, "top").meets
    assert judge([0.1, 0.05], 0.9, 1, "none").kept == 1
    with pytest.raises(ConfigError, match="unknown threshold rule"):
        judge([0.1], 0.1, 1, "vote")


@given(st.lists(st.floats(0, 1), max_size=12).map(lambda xs: sorted(xs, reverse=True)),
       st.floats(0, 1), st.integers(1, 8))
def test_property_kept_chunks_qualify_and_a_refusal_keeps_none(scores, threshold, limit):
    v = judge(scores, threshold, limit, "mean-of-qualifying")
    assert 0 <= v.kept <= min(limit, len(scores))
    assert all(s >= threshold for s in scores[:v.kept])
    assert v.meets == (v.kept > 0)
    if v.meets:
        assert v.avg >= threshold
