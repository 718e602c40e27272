"""Lexical analysis: text → index terms, the same at ingest and at query time.

Unicode word tokens, lower-cased with diacritics folded, English stop words
removed, Snowball (Porter 2) stems from PyStemmer. Each term is identified by
a stable 64-bit hash (blake2b), so term ids agree across stores and machines
without a shared vocabulary table.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import Counter
from functools import lru_cache
from typing import Iterable

import numpy as np
import Stemmer

from .text import STOPWORDS, words

_STEMMER = Stemmer.Stemmer("english")


def _fold(text: str) -> str:
    """Lower case with diacritics removed (``Café`` → ``cafe``), locale-independent."""
    lowered = text.lower()
    if lowered.isascii():  # NFKD leaves ASCII as it is, and it has no combining marks
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def analyze(text: str) -> list[str]:
    """Index terms of ``text`` in order (stop words dropped, stems kept)."""
    return [_stem(w) for w in words(_fold(text)) if w not in STOPWORDS]


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
