"""Pruned BM25 (MaxScore) returns exactly the exhaustive top k: same rows, same scores to the
bit, same tie order, on seeded random corpora (with ties, deletes, deltas, filters) and on
real prose."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ragd.analysis import query_analyze, term_hash
from ragd.stores import lexical_index

from helpers import load_terms as load, random_queries, synced_with_delta, vocabulary, zipf_texts

RULEBOOK = Path(__file__).resolve().parent.parent / "fixtures" / "rulebook"


def both(view, terms, limit, allowed=None, k1=1.2, b=0.75):
    exhaustive = view.top(terms, limit, allowed, k1, b, prune=False)
    pruned = view.top(terms, limit, allowed, k1, b, prune=True)
    return exhaustive, pruned


def test_pruned_equals_exhaustive_on_a_seeded_random_corpus():
    rng = np.random.default_rng(20240611)
    words = vocabulary(300)
    texts = zipf_texts(rng, words, 3000)
    texts += texts[:200]  # exact duplicates: ties broken by key
    view = load(texts).view()
    pruned_any = 0
    for terms in random_queries(rng, words, 150):
        for limit in (1, 10, 50, 400):
            exhaustive, pruned = both(view, terms, limit)
            assert pruned == exhaustive
            pruned_any += bool(exhaustive)
    assert pruned_any > 100


def test_pruning_skips_postings(monkeypatch):
    """The pruned path must actually stop early for a selective query (else it is only
    slower): count the rows whose scores it computes in full."""
    rng = np.random.default_rng(3)
    words = vocabulary(300)
    view = load(zipf_texts(rng, words, 3000)).view()
    scored = []
    original = lexical_index.TermPostings.contributions

    def counting(self, rows, tf, norm):
        scored.append(len(rows))
        return original(self, rows, tf, norm)

    monkeypatch.setattr(lexical_index.TermPostings, "contributions", counting)
    rare, common = words[-1], words[0]
    terms = [term_hash(t) for t in query_analyze([rare, common, words[1], words[2]])]
    view.top(terms, 5, prune=True)
    postings = sum(len(view.main.get(t)[0]) for t in terms)
    assert 0 < sum(scored) < postings / 2


def test_pruned_equals_exhaustive_with_deletes_deltas_and_filters():
    rng = np.random.default_rng(11)
    words = vocabulary(200)
    view = synced_with_delta(rng, words).view()
    assert len(view.delta.terms) and not view.alive.all()
    allowed = rng.choice(view.rowids, 900, replace=False)
    for terms in random_queries(rng, words, 80):
        for limit in (3, 20, 200):
            exhaustive, pruned = both(view, terms, limit)
            assert pruned == exhaustive
            exhaustive, pruned = both(view, terms, limit, allowed=allowed)
            assert pruned == exhaustive


def test_pruned_equals_exhaustive_at_other_k1_and_b():
    rng = np.random.default_rng(5)
    words = vocabulary(150)
    view = load(zipf_texts(rng, words, 1500)).view()
    for terms in random_queries(rng, words, 40):
        for k1, b in ((0.9, 0.4), (2.0, 1.0), (1.2, 0.0)):
            exhaustive, pruned = both(view, terms, 10, k1=k1, b=b)
            assert pruned == exhaustive


def test_pruned_equals_exhaustive_on_real_prose():
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted(RULEBOOK.glob("*.md")))
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n\n+", text) if len(s.split()) > 2]
    assert len(sentences) > 200
    view = load(sentences).view()
    rng = np.random.default_rng(1)
    for i in rng.choice(len(sentences), 120, replace=False):
        terms = [term_hash(t) for t in query_analyze([sentences[i]])]
        for limit in (1, 10, 100):
            exhaustive, pruned = both(view, terms, limit)
            assert pruned == exhaustive


def test_term_bounds_are_the_largest_tf_part():
    """The bound the pruning rests on: no posting of a term weighs more."""
    rng = np.random.default_rng(9)
    view = load(zipf_texts(rng, vocabulary(100), 800)).view()
    _, norm, avgdl = view._stats(1.2, 0.75)
    for i in range(len(view.main.terms)):
        rows, tf = view.main.at(i)
        assert view.main.bound(i, 1.2, 0.75, avgdl, norm) == float(np.max(tf / (tf + norm[rows])))


@pytest.mark.parametrize("limit", [1, 7])
def test_all_identical_rows_tie_by_key(limit):
    view = load(["same words here"] * 40 + ["other words"] * 5).view()
    terms = [term_hash(t) for t in query_analyze(["same words"])]
    exhaustive, pruned = both(view, terms, limit)
    assert pruned == exhaustive
    assert [k for k, _ in pruned] == sorted(k for k, _ in pruned)
