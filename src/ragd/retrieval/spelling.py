"""Spelling correction of query words against the collection's own vocabulary.

A query word that no chunk holds (its index term, the Snowball stem, has document
frequency 0) cannot match lexically, and the answer's term coverage can never find it.
When it is a plain word (alphabetic, at least :data:`MIN_LENGTH` letters, not a stop
word) and no English word either, it is replaced by the closest word of the collection
with the same first letter within Damerau-Levenshtein distance 1 (words of 4 to 7
letters) or 2 (8 letters or more); ties go to the word more chunks hold, then to the
first in alphabetical order, so a correction is deterministic.

"No English word": not a whole word of the bundled embedding model's WordPiece
vocabulary (30k entries, offline). A specialised collection lacks most of the language:
without this, "much" became "such", "told" "hold", "anything" "nothing" in question sets
over regulations and statutes where no word was misspelt. The same first letter is the typo
notion :func:`ragd.answer.terms.missing_terms` already uses ("sprained" is no typo of
"trained").

The distance is the optimal-string-alignment form (adjacent transpositions, no substring
edited twice). Candidates are bucketed by length (a word within distance d has a length
within d); in each bucket one numpy pass over per-word letter counts keeps the words whose
bag distance (letters to add, letters to drop: never more than the edit distance) is
within the limit, and only those few are compared exactly. No index beyond the buckets
is built (a deletion neighbourhood of distance 2 would hold ~40 entries per word).
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import numpy as np

from ..analysis import _fold, _stem
from ..embedding.tokenizer import whole_words
from ..text import STOPWORDS, words

MIN_LENGTH = 4
CLIPPED_MORE = 3   # letters a word a query word is cut from has beyond it, at least
LONG = 8          # words this long may be corrected by distance 2, shorter ones by 1
_WORD = re.compile(r"\w+")


def max_distance(word: str) -> int:
    """The largest edit distance a correction of ``word`` may have (0: none allowed)."""
    if len(word) < MIN_LENGTH:
        return 0
    return 2 if len(word) >= LONG else 1


def osa(a: str, b: str, limit: int | None = None) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    adjacent letters, each costing 1 (past ``limit``: some number over it)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            best = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, prev2[j - 2] + 1)
            cur[j] = best
        if limit is not None and min(cur) > limit and min(prev) > limit:
            return limit + 1   # two rows over it: no later row gets back under
        prev2, prev = prev, cur
    return prev[-1]


@lru_cache(maxsize=1)
def english() -> frozenset[str]:
    """Whole English words of the bundled WordPiece vocabulary (ASCII, 2+ letters)."""
    return frozenset(w for w in whole_words() if len(w) >= 2 and w.isascii())


def _letter_counts(codes: np.ndarray) -> np.ndarray:
    """Per row of code points: how many of each letter a-z, and of anything else (27)."""
    slots = np.where((codes >= 97) & (codes <= 122), codes - 97, 26)
    out = np.zeros((len(codes), 27), dtype=np.int16)
    np.add.at(out, (np.repeat(np.arange(len(codes)), codes.shape[1]), slots.ravel()), 1)
    return out


@dataclass
class Vocabulary:
    """The collection's words (folded, alphabetic) with their document frequencies, and the
    index terms present; built once per collection state (:func:`build`)."""

    df: Mapping[str, int]
    terms: frozenset[str]
    _buckets: dict[int, tuple[np.ndarray, np.ndarray, list[str]]] = field(
        default_factory=dict, repr=False)
    _sorted: list[str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        by_length: dict[int, list[str]] = {}
        for w in self.df:
            by_length.setdefault(len(w), []).append(w)
        for length, group in by_length.items():
            group.sort(key=lambda w: (-self.df[w], w))     # the tie order, first wins
            codes = np.array([[ord(ch) for ch in w] for w in group], dtype=np.int32)
            self._buckets[length] = (codes, _letter_counts(codes), group)

    def begins(self, prefix: str, more: int = CLIPPED_MORE) -> bool:
        """Whether some vocabulary word starts with ``prefix`` and has at least ``more``
        letters after it ("reg": "regulations")."""
        if self._sorted is None:
            self._sorted = sorted(self.df)
        i = bisect.bisect_left(self._sorted, prefix)
        while i < len(self._sorted) and self._sorted[i].startswith(prefix):
            if len(self._sorted[i]) >= len(prefix) + more:
                return True
            i += 1
        return False

    def known(self, word: str) -> bool:
        """Whether some chunk holds ``word``'s index term (its stem)."""
        return _stem(word) in self.terms

    def correct(self, word: str) -> str | None:
        """The closest vocabulary word to ``word`` with its first letter, within its allowed
        distance (ties: more chunks, then alphabetical), or None (none close enough)."""
        limit = max_distance(word)
        wanted = _letter_counts(np.array([[ord(ch) for ch in word]], dtype=np.int32))[0]
        best: tuple[int, int, str] | None = None
        for length in range(len(word) - limit, len(word) + limit + 1):
            found = self._buckets.get(length)
            if found is None:
                continue
            codes, counts, group = found
            # the bag distance (letters to add, letters to drop) never exceeds the edit
            # distance; with a length difference of g it is (sum |count differences| + g)
            # / 2: a cheap filter that leaves few words to compare exactly
            spread = np.abs(counts - wanted).sum(axis=1, dtype=np.int32)
            near = np.flatnonzero((spread <= 2 * limit - abs(length - len(word)))
                                  & (codes[:, 0] == ord(word[0])))
            for i in near.tolist():   # rows in tie order: a later one must be nearer
                key = (osa(word, group[i], limit), -self.df[group[i]], group[i])
                if key[0] <= limit and (best is None or key < best):
                    best = key
        return best[2] if best else None


def build(texts: Iterable[str]) -> Vocabulary:
    """The vocabulary of ``texts`` (one per chunk): each alphabetic word of 2+ letters
    (stop words aside: no correction) with the number of texts holding it, and the index
    terms of every word."""
    df: Counter[str] = Counter()
    seen: set[str] = set()
    for text in texts:
        distinct = set(words(_fold(text)))
        seen |= distinct
        df.update(w for w in distinct if len(w) >= 2 and w.isalpha() and w.isascii()
                  and w not in STOPWORDS)
    terms = frozenset(_stem(w) for w in seen if w not in STOPWORDS)
    return Vocabulary(dict(df), terms)


def correctable(word: str) -> bool:
    """A query word correction applies to: alphabetic, long enough, no stop word, no
    English word."""
    return (len(word) >= MIN_LENGTH and word.isalpha() and word.isascii()
            and word not in STOPWORDS and word not in english())


def clipped(word: str, vocab: Vocabulary) -> str:
    """The start of a longer word of the collection that ``word`` is cut from, a plural
    "s" aside ("regs": "reg", of "regulations"; "specs": "spec"), or "" (none is)."""
    base = word[:-1] if word.endswith("s") else word
    return base if len(base) >= 3 and vocab.begins(base) else ""


def corrections(query: str, vocab: Vocabulary) -> dict[str, str]:
    """{misspelt word: correction} for the words of ``query`` no chunk holds (folded). A
    word cut from a longer one of the collection (:func:`clipped`: "regs") is a user's
    short form, not a typo: it is corrected only to a word it begins ("complian" to
    "compliance"), never to a word of its length ("regs" is no "rems")."""
    out: dict[str, str] = {}
    for w in dict.fromkeys(words(_fold(query))):
        if not correctable(w) or vocab.known(w):
            continue
        fixed = vocab.correct(w)
        cut = clipped(w, vocab) if fixed is not None else ""
        if fixed is not None and fixed != w and (not cut or fixed.startswith(cut)):
            out[w] = fixed
    return out


_HYPHENATED = re.compile(r"(?<![\w-])([A-Za-z]+)-([A-Za-z]+)(?![\w-])")


def joined_forms(query: str, vocab: Vocabulary) -> dict[str, str]:
    """{hyphenated word: the same word written solid} for each of ``query``'s two-part
    hyphenated words that the collection writes solid ("mix-ups" → "mixups", "re-export"
    → "reexport"): analysed, the hyphenated form is two other terms ("mix", "up")."""
    out: dict[str, str] = {}
    for m in _HYPHENATED.finditer(query):
        solid = _fold(m.group(1) + m.group(2))
        if solid not in STOPWORDS and vocab.known(solid):
            out[m.group()] = solid
    return out


def rewrite(query: str, fixes: Mapping[str, str]) -> str:
    """``query`` with each word that ``fixes`` names replaced (the rest as written)."""
    if not fixes:
        return query
    return _WORD.sub(lambda m: fixes.get(_fold(m.group()), m.group()), query)


__all__: Sequence[str] = ("Vocabulary", "build", "corrections", "correctable", "english",
                          "joined_forms", "max_distance", "osa", "rewrite")
