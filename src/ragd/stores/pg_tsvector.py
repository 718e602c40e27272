"""PostgreSQL ``tsvector`` and ``tsquery`` values from ragd's own lexical analysis.

The Postgres store indexes the terms that :mod:`ragd.analysis` gives (the SQLite store's
terms, so both backends match the same chunks for a query) and sends each chunk's
``tsvector`` in PostgreSQL's binary format, built for a whole batch of chunks at once with
numpy. The server then only checks and stores it: running ``to_tsvector`` on the server
cost about 230 µs per SciFact passage, the largest part of a bulk load.

Binary ``tsvector`` (``tsvectorrecv``): int32 number of lexemes; per lexeme, in byte
order, its UTF-8 text and a NUL, a uint16 number of positions, then the positions as
uint16 in increasing order (weight bits 0), all big-endian. PostgreSQL's limits apply as
``to_tsvector`` applies them: positions above 16383 count as 16383, at most 255 positions
per lexeme, lexemes longer than 2047 bytes are left out, and a chunk whose distinct
lexemes exceed 1 MB together is refused.
"""

from __future__ import annotations

import threading
from typing import Callable, Sequence

import numpy as np
from psycopg.adapt import Dumper
from psycopg.pq import Format

from ..analysis import analyze_batch, query_analyze
from ..errors import UsageError

TSVECTOR_OID = 3614
MAX_POSITION = 16383      # MAXENTRYPOS - 1
MAX_POSITIONS = 255       # MAXNUMPOS - 1, as to_tsvector keeps
MAX_LEXEME_BYTES = 2047   # MAXSTRLEN
MAX_LEXEMES_BYTES = (1 << 20) - 1  # MAXSTRPOS


class TsVectorTooLarge(UsageError):
    """A text whose distinct terms do not fit one tsvector; ``index`` says which text."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


class TsVector(bytes):
    """A ``tsvector`` in PostgreSQL's binary format (sent as such by :class:`TsVectorDumper`)."""


class TsVectorDumper(Dumper):
    """Sends a :class:`TsVector` as a binary ``tsvector`` parameter or COPY field."""

    format = Format.BINARY
    oid = TSVECTOR_OID

    def dump(self, obj: bytes) -> bytes:
        return obj


_EMPTY = TsVector(b"\0\0\0\0")


class _Lexemes:
    """The UTF-8 bytes of a vocabulary's terms (``TermBatch.vocab``: append-only, shared
    by the batches of one word table), each followed by a NUL, in one buffer; extended as
    batches use new terms, so a batch's lexemes are gathered, not encoded one by one."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._reset(None)

    def _reset(self, vocab: Sequence[str] | None) -> None:
        self.vocab = vocab
        self.buf = np.zeros(0, dtype=np.uint8)
        self.used = 0      # bytes of buf in use
        self.terms = 0     # terms covered
        self.start = np.zeros(0, dtype=np.int64)
        self.length = np.zeros(0, dtype=np.int64)
        self.key = np.zeros((0, 2), dtype=np.uint64)

    def get(self, vocab: Sequence[str], upto: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(buffer, start, length, key) covering at least ``vocab[:upto]``; ``key`` holds
        each term's first 16 bytes as two big-endian integers (zero-padded). Arrays grow by
        doubling; the views returned stay valid (growth allocates new arrays)."""
        with self.lock:
            if vocab is not self.vocab:
                self._reset(vocab)
            have = self.terms
            if upto > have:
                new = [t.encode("utf-8") for t in vocab[have:upto]]
                length = np.fromiter(map(len, new), dtype=np.int64, count=len(new))
                data = np.frombuffer(b"\0".join(new) + b"\0", dtype=np.uint8)
                self.buf = _room(self.buf, self.used, data.size)
                self.buf[self.used:self.used + data.size] = data
                starts = self.used + np.concatenate(([0], np.cumsum(length + 1)[:-1]))
                self.start = _room(self.start, have, len(new))
                self.length = _room(self.length, have, len(new))
                self.key = _room(self.key, have, len(new))
                self.start[have:upto] = starts
                self.length[have:upto] = length
                self.key[have:upto] = _prefix_keys(self.buf, starts, length)
                self.used += data.size
                self.terms = upto
            return (self.buf[:self.used], self.start[:self.terms], self.length[:self.terms],
                    self.key[:self.terms])


def _room(array: np.ndarray, used: int, more: int) -> np.ndarray:
    """``array`` with room for ``more`` rows after its first ``used``: itself, or a copy
    twice as large."""
    if used + more <= array.shape[0]:
        return array
    grown = np.zeros((max(2 * array.shape[0], used + more, 1024),) + array.shape[1:],
                     dtype=array.dtype)
    grown[:used] = array[:used]
    return grown


_LEXEMES = _Lexemes()


def _prefix_keys(buf: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    column = np.arange(16)
    padded = np.where(column < length[:, None],
                      buf[np.minimum(start[:, None] + column, buf.size - 1)], 0)
    return padded.astype(np.uint8).view(">u8").astype(np.uint64)


def _byte_order(key: np.ndarray, term: Callable[[int], str]) -> np.ndarray:
    """The order of terms by their UTF-8 bytes (PostgreSQL's lexeme order: memcmp, a
    prefix first): by their 16-byte prefix keys, then, for the rare terms sharing a
    prefix, by their whole bytes (``term(i)`` is the term of ``key[i]``)."""
    order = np.lexsort((key[:, 1], key[:, 0]))
    sorted_key = key[order]
    tie = np.flatnonzero((sorted_key[1:] == sorted_key[:-1]).all(axis=1))
    if tie.size:
        starts = tie[np.concatenate(([True], np.diff(tie) > 1))]
        for a in starts.tolist():
            b = a + 1
            while b < order.size and (sorted_key[b] == sorted_key[a]).all():
                b += 1
            run = order[a:b].tolist()
            order[a:b] = sorted(run, key=lambda i: term(i).encode("utf-8"))
    return order


def tsvectors(texts: Sequence[str]) -> list[TsVector]:
    """The binary ``tsvector`` of each text: its ragd terms at their word positions."""
    n = len(texts)
    batch = analyze_batch(texts)
    if batch.term.size == 0:
        return [_EMPTY] * n
    used, term = np.unique(batch.term, return_inverse=True)  # the batch's own term numbers
    term = term.reshape(-1)
    buf, starts, lengths, keys = _LEXEMES.get(batch.vocab, int(used[-1]) + 1)
    lex_start, length = starts[used], lengths[used]
    entry_ok = (length <= MAX_LEXEME_BYTES)[term]
    if not entry_ok.any():
        return [_EMPTY] * n
    rank = np.empty(used.size, dtype=np.int64)
    fits = np.flatnonzero(length <= MAX_LEXEME_BYTES)
    fit_terms = used[fits]
    order = _byte_order(keys[fit_terms], lambda i: batch.vocab[int(fit_terms[i])])
    rank[fits[order]] = np.arange(fits.size)
    text, term = batch.text[entry_ok], term[entry_ok]
    position = np.minimum(batch.position[entry_ok], MAX_POSITION)
    # one sort key: text, then lexeme order, then position (14 bits)
    sort = np.argsort((text << 40) | (rank[term] << 14) | position, kind="stable")
    text, term, position = text[sort], term[sort], position[sort]
    # a group is one lexeme of one text; clamped positions may repeat, and 255 is the most
    same_group = (text[1:] == text[:-1]) & (term[1:] == term[:-1])
    keep = np.ones(text.size, dtype=bool)
    keep[1:] = ~(same_group & (position[1:] == position[:-1]))
    group_start = np.flatnonzero(np.concatenate(([True], ~same_group)))
    group_of = np.cumsum(np.concatenate(([True], ~same_group))) - 1
    keep &= np.arange(text.size) - group_start[group_of] < MAX_POSITIONS
    text, term, position, group_of = text[keep], term[keep], position[keep], group_of[keep]
    first = np.concatenate(([True], group_of[1:] != group_of[:-1]))
    g_entry = np.flatnonzero(first)               # first entry of each group
    g_text, g_term = text[g_entry], term[g_entry]
    g_count = np.diff(np.append(g_entry, text.size))
    _check_size(texts, g_text, length[g_term] + 1)

    # One source buffer (the used lexemes with their NUL, headers, position counts,
    # positions) and, in output order, the (start, length) of each piece copied from it.
    size = length + 1
    lex_end = np.cumsum(size)
    lex_start_here = lex_end - size
    pool = buf[np.repeat(lex_start - lex_start_here, size) + np.arange(int(lex_end[-1]))]
    lexemes_per_text = np.bincount(g_text, minlength=n)
    header = lexemes_per_text.astype(">i4").view(np.uint8)
    counts = g_count.astype(">u2").view(np.uint8)
    positions = position.astype(">u2").view(np.uint8)
    base_header = pool.size
    base_counts = base_header + header.size
    base_positions = base_counts + counts.size
    source = np.concatenate((pool, header, counts, positions))
    n_groups = g_entry.size
    piece_start = np.empty((n_groups, 3), dtype=np.int64)
    piece_start[:, 0] = lex_start_here[g_term]
    piece_start[:, 1] = base_counts + 2 * np.arange(n_groups)
    piece_start[:, 2] = base_positions + 2 * g_entry
    piece_len = np.empty((n_groups, 3), dtype=np.int64)
    piece_len[:, 0] = length[g_term] + 1
    piece_len[:, 1] = 2
    piece_len[:, 2] = 2 * g_count
    at = 3 * np.searchsorted(g_text, np.arange(n))  # each text's header precedes its lexemes
    piece_start = np.insert(piece_start.reshape(-1), at, base_header + 4 * np.arange(n))
    piece_len = np.insert(piece_len.reshape(-1), at, 4)
    out_end = np.cumsum(piece_len)
    out_start = out_end - piece_len
    gather = np.repeat(piece_start - out_start, piece_len) + np.arange(int(out_end[-1]))
    data = source[gather].tobytes()
    text_start = out_start[at + np.arange(n)].tolist() + [len(data)]
    return [TsVector(data[a:b]) for a, b in zip(text_start[:-1], text_start[1:])]


def _check_size(texts: Sequence[str], g_text: np.ndarray, g_bytes: np.ndarray) -> None:
    total = np.bincount(g_text, weights=g_bytes - 1, minlength=len(texts))
    big = np.flatnonzero(total > MAX_LEXEMES_BYTES)
    if big.size:
        raise TsVectorTooLarge(
            f"its text of {len(texts[big[0]]):,} characters has {int(total[big[0]]):,} bytes "
            "of distinct terms; a PostgreSQL tsvector holds at most 1 MB: split it into "
            "smaller chunks", int(big[0]))


def tsquery(terms: Sequence[str]) -> str | None:
    """A ``tsquery`` (text form) matching any of the query's ragd terms; None when it has
    none. Terms are word characters only; quoting makes each one a single lexeme."""
    lexemes = [t for t in query_analyze(terms) if len(t.encode("utf-8")) <= MAX_LEXEME_BYTES]
    if not lexemes:
        return None
    return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'"
                      for t in lexemes)
