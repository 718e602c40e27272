"""The in-memory BM25 index: exact scores, deltas equal a fresh load, dead rows vanish."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragd.analysis import analyze, pack_terms, query_analyze, term_hash
from ragd.stores.lexical_index import LexicalDelta, LexicalIndex

TEXTS = {
    ("a", 0): "Export licences are required for controlled items.",
    ("b", 0): "Licence exceptions allow some exports without a licence.",
    ("c", 0): "The punishment for cheating is imprisonment.",
    ("d", 0): "Cheating and theft; theft of property.",
}


def load(texts: dict) -> LexicalIndex:
    index = LexicalIndex()
    keys = list(texts)
    index.load(0, np.arange(1, len(keys) + 1, dtype=np.int64), keys,
               [pack_terms(texts[k]) for k in keys])
    return index


def bm25(query: str, texts: dict, k1: float = 1.2, b: float = 0.75) -> dict:
    """Textbook BM25 (Lucene idf) over analysed terms: the reference the index must match."""
    docs = {k: analyze(t) for k, t in texts.items()}
    n = len(docs)
    avgdl = sum(len(d) for d in docs.values()) / n
    scores = {}
    for key, terms in docs.items():
        score = 0.0
        for q in query_analyze([query]):
            df = sum(q in d for d in docs.values())
            tf = terms.count(q)
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(terms) / avgdl))
        if score > 0:
            scores[key] = score
    return scores


def hashes(query: str) -> list[int]:
    return [term_hash(t) for t in query_analyze([query])]


@pytest.mark.parametrize("query", ["licence exports", "theft", "cheating theft licence", "zzz"])
def test_scores_match_textbook_bm25(query):
    got = dict(load(TEXTS).top(hashes(query), 10))
    want = bm25(query, TEXTS)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], rel=1e-12)


def test_stemming_and_diacritics_fold():
    assert analyze("Licences LICENSING café Café") == ["licenc", "licens", "cafe", "cafe"]
    assert query_analyze(["the", "of"]) == ["the", "of"]  # stop words kept when alone
    assert query_analyze(["the export"]) == ["export"]


def test_deltas_score_exactly_like_a_fresh_load():
    index = load(dict(list(TEXTS.items())[:2]))
    index.record(LexicalDelta(1, np.zeros(0, np.int64), np.array([3, 4]), [("c", 0), ("d", 0)],
                              [pack_terms(TEXTS[("c", 0)]), pack_terms(TEXTS[("d", 0)])]))
    index.record(LexicalDelta(2, np.array([1]), np.array([5]), [("a", 0)],
                              [pack_terms("Export of items needs a licence.")]))
    assert index.sync(2)
    fresh_texts = {("b", 0): TEXTS[("b", 0)], ("c", 0): TEXTS[("c", 0)],
                   ("d", 0): TEXTS[("d", 0)], ("a", 0): "Export of items needs a licence."}
    fresh = load(fresh_texts)
    for query in ("licence export", "theft cheating", "items"):
        assert index.top(hashes(query), 10) == fresh.top(hashes(query), 10)


def test_gaps_in_versions_force_a_reload_and_filters_restrict():
    index = load(TEXTS)
    index.record(LexicalDelta(2, np.zeros(0, np.int64), np.zeros(0, np.int64), [], []))
    assert index.sync(2) is False
    top = index.top(hashes("theft cheating"), 10, allowed=np.array([3]))
    assert [k for k, _ in top] == [("c", 0)]
