"""Lexical analysis: text → index terms, the same at ingest and at query time.

Unicode word tokens, lower-cased with diacritics folded, English stop words
removed, Snowball (Porter 2) stems from PyStemmer. Each term is identified by
a stable 64-bit hash (blake2b), so term ids agree across stores and machines
without a shared vocabulary table.

:func:`analyze` is the reference, one text at a time. :func:`analyze_batch` gives the
same terms for many texts at once, with word positions, in flat numpy arrays: it folds
and tokenises the batch as one string and stems each distinct word once, which makes it
several times cheaper per text on bulk loads.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Iterable, Sequence

import numpy as np
import Stemmer

from .text import STOPWORDS, words

_STEMMER = Stemmer.Stemmer("english")


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _unmarked(run: re.Match) -> str:
    return "".join(ch for ch in run.group() if not unicodedata.combining(ch))


def _fold(text: str) -> str:
    """Lower case with diacritics removed (``Café`` → ``cafe``), locale-independent."""
    lowered = text.lower()
    if lowered.isascii():  # NFKD leaves ASCII as it is, and it has no combining marks
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    # no ASCII character is a combining mark: only the (rare) non-ASCII runs are read
    # character by character ("§ 736.2" folds at the cost of its one "§")
    return _NON_ASCII.sub(_unmarked, decomposed)


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def analyze(text: str) -> list[str]:
    """Index terms of ``text`` in order (stop words dropped, stems kept)."""
    return [_stem(w) for w in words(_fold(text)) if w not in STOPWORDS]


def name_terms(name: str, whole: bool = True) -> set[str]:
    """The terms of a file name or title ("MHRA_GxP_data_integrity_guide.pdf": mhra, gxp,
    data, integr, guid), its parts split at separators and at case and digit changes
    ("chap8": chap, 8; "GxP": gx, p), with ``whole`` each part also as written (gxp)."""
    parts = re.sub(r"[_\-.()/]+", " ", name)
    spaced = re.sub(r"([a-z])([A-Z0-9])|([0-9])([A-Za-z])", r"\1\3 \2\4", parts)
    return (set(analyze(spaced)) | (set(analyze(parts)) if whole else set())) - {"pdf"}


def query_analyze(terms: Iterable[str]) -> list[str]:
    """Distinct index terms of query words; stop words are kept when nothing else is left."""
    words_ = [w for t in terms for w in words(_fold(t))]
    content = [w for w in words_ if w not in STOPWORDS] or words_
    return list(dict.fromkeys(_stem(w) for w in content))


@lru_cache(maxsize=200_000)
def term_hash(term: str) -> int:
    """Stable signed 64-bit id of a term."""
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(),
                          "little", signed=True)


def pack_terms(text: str) -> bytes:
    """A chunk's term frequencies as bytes: int64 term hashes, then uint16 counts, same order."""
    counts = Counter(analyze(text))
    if not counts:
        return b""
    items = sorted((term_hash(t), min(n, 65535)) for t, n in counts.items())
    hashes = np.array([h for h, _ in items], dtype="<i8")
    tfs = np.array([n for _, n in items], dtype="<u2")
    return hashes.tobytes() + tfs.tobytes()


def unpack_terms(blob: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`pack_terms`: (hashes int64, counts uint16)."""
    n = len(blob) // 10
    return (np.frombuffer(blob, dtype="<i8", count=n),
            np.frombuffer(blob, dtype="<u2", count=n, offset=8 * n))


# -- batches ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TermBatch:
    """The index terms of many texts: one entry per kept word, in text order, then word order.

    ``text[i]`` is the text the entry belongs to, ``term[i]`` indexes ``vocab`` (which may
    hold terms of other batches too), and ``position[i]`` is the word's 1-based position in
    its text, stop words counted (so distances between terms are distances in the text).
    """

    vocab: Sequence[str]
    text: np.ndarray
    term: np.ndarray
    position: np.ndarray
    n_texts: int

    def terms_of(self, index: int) -> list[str]:
        """The terms of one text in order: what :func:`analyze` returns for it."""
        lo, hi = np.searchsorted(self.text, [index, index + 1])
        return [self.vocab[t] for t in self.term[lo:hi].tolist()]


_SEP = "\x00"  # joins the texts of a batch: not a word character, not cased, a starter
_WORD_RE = re.compile(r"\w")


@cache
def _bmp_tables() -> tuple[np.ndarray, np.ndarray]:
    """(word character, combining mark) flags of every code point below U+10000."""
    chars = "".join(map(chr, range(0xD800))) + "\ufffd" * 0x800 + "".join(
        map(chr, range(0xE000, 0x10000)))
    word = np.zeros(0x10000, dtype=bool)
    word[[m.start() for m in _WORD_RE.finditer(chars)]] = True
    word[0xD800:0xE000] = False
    combining = np.array([unicodedata.combining(ch) != 0 for ch in chars], dtype=bool)
    combining[0xD800:0xE000] = False
    return word, combining


def _flags(cp: np.ndarray, table: np.ndarray, test) -> np.ndarray:
    """``table[cp]`` for code points below U+10000; ``test(chr)`` for the rare others."""
    flags = table[np.minimum(cp, 0xFFFF)]
    astral = np.flatnonzero(cp > 0xFFFF)
    if astral.size:
        flags[astral] = [bool(test(chr(c))) for c in cp[astral].tolist()]
    return flags


def _codepoints(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)


@lru_cache(maxsize=200_000)
def _term_of(word: str) -> str | None:
    return None if word in STOPWORDS else _stem(word)


# Two independent polynomial hashes of every word (mod 2**64): words are told apart by the
# first; the second checks that no two different words share it.
_P = (np.uint64(0x100000001B3), np.uint64(0x9E3779B97F4A7C15))
_P_INV = tuple(np.uint64(pow(int(p), -1, 1 << 64)) for p in _P)
_POWERS: dict[int, np.ndarray] = {}


def _powers(p: np.uint64, n: int) -> np.ndarray:
    table = _POWERS.get(int(p))
    if table is None or table.shape[0] < n:
        size = max(n, 1 << 18, 2 * (0 if table is None else table.shape[0]))
        table = np.full(size, p, dtype=np.uint64)
        table[0] = 1
        table = np.cumprod(table, dtype=np.uint64)
        _POWERS[int(p)] = table
    return table[:n]


def _word_hash(cp: np.ndarray, starts: np.ndarray, ends: np.ndarray, which: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        values = cp.astype(np.uint64) + np.uint64(1)
        prefix = np.zeros(cp.shape[0] + 1, dtype=np.uint64)
        np.cumsum(values * _powers(_P[which], cp.shape[0]), dtype=np.uint64, out=prefix[1:])
        return (prefix[ends] - prefix[starts]) * _powers(_P_INV[which], cp.shape[0] + 1)[starts]


class _Words:
    """The words the batch analyser has met, by hash, with their term ids (-1: stop word).

    An open-addressing hash table (linear probing, at most half full) over the words'
    first hash finds known words with a few vectorised probes per occurrence; only new
    words are sliced out and stemmed. Term ids index ``terms``, which only grows; past
    ``limit`` words the table starts afresh (batches already returned keep their own
    ``terms``). Thread-safe.
    """

    _EMPTY = -1

    def __init__(self, limit: int = 2_000_000) -> None:
        self.limit = limit
        self.lock = threading.Lock()
        self._reset()

    def __len__(self) -> int:
        return self.size

    def _reset(self) -> None:
        self.size = 0
        self.h1 = np.zeros(1024, dtype=np.uint64)     # per word, in the order met
        self.h2 = np.zeros(1024, dtype=np.uint64)
        self.term = np.zeros(1024, dtype=np.int64)
        self.slots = np.full(2048, self._EMPTY, dtype=np.int64)  # word number or empty
        self.terms: list[str] = []
        self.term_id: dict[str, int] = {}

    def _home(self, h1: np.ndarray) -> np.ndarray:
        bits = self.slots.size.bit_length() - 1
        with np.errstate(over="ignore"):
            return ((h1 * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - bits)).astype(np.int64)

    def _find(self, h1: np.ndarray) -> np.ndarray:
        """The word number of each hash, or -1 for a word not in the table."""
        found = np.full(h1.size, -1, dtype=np.int64)
        todo = np.arange(h1.size)
        slot = self._home(h1)
        mask = self.slots.size - 1
        while todo.size:
            word = self.slots[slot]
            empty = word == self._EMPTY
            hit = ~empty
            hit[hit] = self.h1[word[hit]] == h1[todo[hit]]
            found[todo[hit]] = word[hit]
            more = ~(empty | hit)
            todo, slot = todo[more], (slot[more] + 1) & mask
        return found

    def _place(self, words: np.ndarray) -> None:
        """Put word numbers into the slot table, probing in rounds."""
        slot = self._home(self.h1[words])
        mask = self.slots.size - 1
        while words.size:
            free = self.slots[slot] == self._EMPTY
            free_at = np.flatnonzero(free)
            _, first = np.unique(slot[free_at], return_index=True)
            won = free_at[first]                    # one new word per free slot this round
            self.slots[slot[won]] = words[won]
            rest = np.ones(words.size, dtype=bool)
            rest[won] = False
            words, slot = words[rest], (slot[rest] + 1) & mask

    def terms_of(self, joined: str, starts: np.ndarray, ends: np.ndarray, h1: np.ndarray,
                 h2: np.ndarray) -> tuple[np.ndarray, list[str]] | None:
        """(term id of each word occurrence, terms), or None on a hash collision."""
        with self.lock:
            if self.size + h1.size > self.limit:
                self._reset()
            word = self._find(h1)
            new = np.flatnonzero(word < 0)
            if new.size:
                if not self._add(joined, starts[new], ends[new], h1[new], h2[new]):
                    return None
                word[new] = self._find(h1[new])
            if not np.array_equal(self.h2[word], h2):
                return None
            return self.term[word], self.terms

    def _add(self, joined: str, starts: np.ndarray, ends: np.ndarray, h1: np.ndarray,
             h2: np.ndarray) -> bool:
        distinct, first, inverse = np.unique(h1, return_index=True, return_inverse=True)
        if not np.array_equal(h2, h2[first][inverse.reshape(-1)]):
            return False
        ids = []
        for a, b in zip(starts[first].tolist(), ends[first].tolist()):
            term = _term_of(joined[a:b])
            if term is not None and term not in self.term_id:
                self.term_id[term] = len(self.terms)
                self.terms.append(term)
            ids.append(-1 if term is None else self.term_id[term])
        old, n = self.size, distinct.size
        if old + n > self.h1.size:
            grow = max(2 * self.h1.size, old + n)
            for name in ("h1", "h2", "term"):
                array = getattr(self, name)
                bigger = np.zeros(grow, dtype=array.dtype)
                bigger[:old] = array[:old]
                setattr(self, name, bigger)
        self.h1[old:old + n] = distinct
        self.h2[old:old + n] = h2[first]
        self.term[old:old + n] = ids
        self.size = old + n
        if 2 * self.size > self.slots.size:
            self.slots = np.full(1 << (2 * self.size).bit_length(), self._EMPTY, dtype=np.int64)
            self._place(np.arange(self.size))
        else:
            self._place(np.arange(old, self.size))
        return True


_WORDS = _Words()


def _exact_terms(joined: str, starts: np.ndarray, ends: np.ndarray
                 ) -> tuple[np.ndarray, list[str]]:
    """Term ids by slicing every word: the fallback after a (rare) hash collision."""
    terms: dict[str, int] = {}
    ids = [-1 if (t := _term_of(joined[a:b])) is None else terms.setdefault(t, len(terms))
           for a, b in zip(starts.tolist(), ends.tolist())]
    return np.array(ids, dtype=np.int64), list(terms)


def _fold_many(texts: Sequence[str]) -> list[str]:
    """``words()``'s input for every text: ``_fold(t).lower()``, the non-ASCII texts folded
    together in one pass. No result contains the separator (a non-word character: replacing
    it by a space changes no word)."""
    lowered = [(t.replace(_SEP, " ") if _SEP in t else t).lower() for t in texts]
    odd = [i for i, t in enumerate(lowered) if not t.isascii()]
    if odd:
        joined = unicodedata.normalize("NFKD", _SEP.join([lowered[i] for i in odd]))
        cp = _codepoints(joined)
        marks = _flags(cp, _bmp_tables()[1], unicodedata.combining)
        if marks.any():
            joined = cp[~marks].tobytes().decode("utf-32-le")
        for i, folded in zip(odd, joined.lower().split(_SEP)):
            lowered[i] = folded
    return lowered


def analyze_batch(texts: Sequence[str]) -> TermBatch:
    """The terms of every text, with positions; ``terms_of(i) == analyze(texts[i])``.

    Folds like :func:`analyze`, then finds the ``\\w+`` words of all texts at once from
    code point flags, and stems each distinct word once.
    """
    n = len(texts)
    joined = _SEP.join(_fold_many(texts))
    cp = _codepoints(joined)
    is_word = _flags(cp, _bmp_tables()[0], _WORD_RE.match).view(np.int8)
    edges = np.diff(is_word, prepend=np.int8(0), append=np.int8(0))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if starts.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return TermBatch((), empty, empty, empty, n)
    text = np.searchsorted(np.flatnonzero(cp == 0), starts)
    first_word = np.searchsorted(text, np.arange(n))
    position = np.arange(starts.size) - first_word[text] + 1
    found = _WORDS.terms_of(joined, starts, ends, _word_hash(cp, starts, ends, 0),
                            _word_hash(cp, starts, ends, 1))
    term, vocab = found if found is not None else _exact_terms(joined, starts, ends)
    kept = term >= 0
    return TermBatch(vocab, text[kept], term[kept], position[kept], n)
