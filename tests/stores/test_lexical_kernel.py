"""The compiled BM25 loop (``ragd.stores.lexical_kernel``) returns exactly what the numpy
path returns: same rows, same scores to the bit, same tie order, on seeded random corpora
with ties, deletes, deltas and filters, on saved (mapped) postings and on real prose; and
it is used only as the mode says."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ragd.analysis import query_analyze, term_hash
from ragd.stores import lexical_file, lexical_kernel

from helpers import load_terms, random_queries, synced_with_delta, vocabulary, zipf_texts

RULEBOOK = Path(__file__).resolve().parent.parent / "fixtures" / "rulebook"

pytest.importorskip("numba")


@pytest.fixture
def compiled():
    """The kernel, loaded in the foreground."""
    fast = lexical_kernel.load()
    assert fast is not None
    return fast


def assert_same(view, queries, limits, allowed=None, k1=1.2, b=0.75) -> int:
    """Both paths on every query and limit; the number of non-empty results."""
    answered = 0
    for terms in queries:
        for limit in limits:
            fast = view.top(terms, limit, allowed, k1, b, compiled=True)
            slow = view.top(terms, limit, allowed, k1, b, compiled=False)
            assert fast == slow  # keys, order and float scores, bit for bit
            answered += bool(fast)
    return answered


def test_compiled_equals_numpy_on_a_seeded_random_corpus(compiled):
    rng = np.random.default_rng(20261126)
    words = vocabulary(300)
    texts = zipf_texts(rng, words, 3000)
    texts += texts[:200]  # exact duplicates: ties broken by key
    view = load_terms(texts).view()
    queries = random_queries(rng, words, 150)
    assert assert_same(view, queries, (1, 10, 50, 400)) > 400
    # both ways of reading the rows back are exercised: the list of rows touched (few
    # postings) and the pass over the whole score array (at least one posting per row)
    from ragd.stores._lexical_jit import DENSE_SHARE

    postings = [sum(len(view.main.get(t)[0]) for t in set(q)) for q in queries]
    dense = sum(p * DENSE_SHARE >= len(view.keys) for p in postings)
    assert 10 < dense < len(queries) - 10


def test_compiled_equals_numpy_with_deletes_deltas_and_filters(compiled):
    rng = np.random.default_rng(12)
    words = vocabulary(200)
    view = synced_with_delta(rng, words).view()
    assert len(view.delta.terms) and not view.alive.all()
    queries = random_queries(rng, words, 80)
    assert assert_same(view, queries, (3, 20, 200)) > 100
    allowed = rng.choice(view.rowids, 900, replace=False)
    assert assert_same(view, queries, (3, 20, 200), allowed=allowed) > 100
    # a filter that leaves nothing, and one row
    assert assert_same(view, queries[:10], (5,),
                       allowed=np.zeros(0, dtype=np.int64)) == 0
    assert_same(view, queries[:10], (5,), allowed=view.rowids[-1:])
    # a limit beyond the rows: everything that scores, and no allocation of its size
    assert assert_same(view, queries[:10], (10**12,)) == 10


def test_compiled_equals_numpy_on_mapped_postings_at_other_k1_and_b(compiled, tmp_path):
    """A saved segment maps read-only int32 rows and uint16 counts (the other layout)."""
    rng = np.random.default_rng(5)
    words = vocabulary(150)
    view = load_terms(zipf_texts(rng, words, 1500)).view()
    path = tmp_path / "seg.lexical"
    assert lexical_file.save_view(path, view, {"name": "c"})
    rows = [(int(r), f"d{i // 3:05d}", i % 3) for i, r in enumerate(view.rowids)]

    def read(sql, params):
        return rows

    opened = lexical_file.open_view(path, 1, view.version, {"name": "c"}, read)
    assert opened is not None
    mapped = opened[0]
    assert mapped.main.rows.dtype == np.int32 and not mapped.main.rows.flags.writeable
    for k1, b in ((1.2, 0.75), (0.9, 0.4), (2.0, 1.0), (1.2, 0.0)):
        queries = random_queries(rng, words, 30)
        assert assert_same(mapped, queries, (10,), k1=k1, b=b) > 20
        for terms in queries:  # the mapped view scores as the one it was saved from
            assert mapped.top(terms, 10, None, k1, b) == view.top(terms, 10, None, k1, b)


def test_compiled_equals_numpy_on_real_prose(compiled):
    text = " ".join(p.read_text(encoding="utf-8") for p in sorted(RULEBOOK.glob("*.md")))
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n\n+", text) if len(s.split()) > 2]
    view = load_terms(sentences).view()
    rng = np.random.default_rng(1)
    queries = [[term_hash(t) for t in query_analyze([sentences[i]])]
               for i in rng.choice(len(sentences), 120, replace=False)]
    assert assert_same(view, queries, (1, 10, 100)) > 300


def test_the_score_array_is_left_zeroed(compiled):
    """The thread's scratch scores are reset after each query (else the next would add
    to stale sums)."""
    rng = np.random.default_rng(2)
    words = vocabulary(100)
    view = load_terms(zipf_texts(rng, words, 500)).view()
    for terms in random_queries(rng, words, 20):
        view.top(terms, 5)
        assert not lexical_kernel._scratch(len(view.keys)).any()


def test_modes(monkeypatch, compiled):
    monkeypatch.setenv(lexical_kernel.ENV, "numpy")
    assert lexical_kernel.kernel(10**9) is None
    monkeypatch.setenv(lexical_kernel.ENV, "numba")
    assert lexical_kernel.kernel() is compiled
    monkeypatch.setenv(lexical_kernel.ENV, "bogus")
    assert lexical_kernel.mode() == "auto"


def test_auto_mode_loads_in_the_background_once_it_pays(monkeypatch):
    """``auto``: small collections in a short process stay on numpy; a big one (or many
    searches) starts a background load, after which the kernel serves."""
    monkeypatch.setenv(lexical_kernel.ENV, "auto")
    monkeypatch.setattr(lexical_kernel, "_state", {})
    monkeypatch.setattr(lexical_kernel, "_searches", iter(range(1, 10**6)))
    monkeypatch.setattr(lexical_kernel, "AUTO_SEARCHES", 50)
    assert all(lexical_kernel.kernel(1000) is None for _ in range(48))
    assert "loading" not in lexical_kernel._state
    assert lexical_kernel.kernel(lexical_kernel.AUTO_POSTINGS) is None  # starts the load
    assert lexical_kernel.wait_loaded(120) is not None
    assert lexical_kernel.kernel(1000) is not None


def test_ties_at_the_kth_score_beyond_the_collect_buffer_are_all_kept(compiled):
    """The dense read-back collects the rows reaching the k-th score into a buffer of
    2·limit + 16 that grows: 900 rows tied at the best score (same words, same length) all
    come back for a limit of 60, and the cut by key equals numpy's."""
    texts = ["alpha beta"] * 900 + ["alpha alpha beta gamma"] * 50 + ["delta"] * 100
    view = load_terms(texts).view()
    query = [term_hash(t) for t in query_analyze(["alpha", "beta"])]
    for limit in (1, 10, 60, 100, 950):
        assert view.top(query, limit, compiled=True) == view.top(query, limit, compiled=False)
    rows, scores = lexical_kernel.top_candidates(
        compiled, *_segments(view, query), len(view.keys), None, None, 60)
    assert sorted(rows.tolist()) == list(range(900)) and len(set(scores.tolist())) == 1


def _segments(view, query):
    hashes = np.fromiter(dict.fromkeys(query), dtype=np.int64)
    parts, df = lexical_kernel.query_spans(
        lexical_kernel.load(), [(view.main.terms, view.main.indptr, view.main.rows,
                                 view.main.tf)], hashes, None)
    n_live, norm = view.norms(1.2, 0.75)
    weight = np.log(1.0 + (n_live - df + 0.5) / (df + 0.5)) * 2.2
    return parts, weight, norm
