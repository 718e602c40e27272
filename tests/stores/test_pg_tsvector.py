"""Binary tsvectors from ragd's terms: the reference layout, PostgreSQL's limits, and what a
real server reads back."""

from __future__ import annotations

import struct

import pytest

from ragd.analysis import _fold, _term_of
from ragd.errors import UsageError
from ragd.text import words

psycopg = pytest.importorskip("psycopg")
from ragd.stores.pg_tsvector import (TsVector, TsVectorDumper, TsVectorTooLarge,  # noqa: E402
                                     tsquery, tsvectors)


def decode(data: bytes) -> dict[str, list[int]]:
    """A binary tsvector as {lexeme: positions}, in its stored order."""
    count, offset, out = struct.unpack_from(">i", data)[0], 4, {}
    for _ in range(count):
        end = data.index(b"\0", offset)
        lexeme, offset = data[offset:end].decode("utf-8"), end + 1
        n = struct.unpack_from(">H", data, offset)[0]
        out[lexeme] = list(struct.unpack_from(f">{n}H", data, offset + 2))
        offset += 2 + 2 * n
    assert offset == len(data)
    return out


def reference(text: str) -> dict[str, list[int]]:
    """What to_tsvector's rules give for ragd's terms, one word at a time."""
    out: dict[str, list[int]] = {}
    for i, word in enumerate(words(_fold(text)), 1):
        term = _term_of(word)
        if term is None or len(term.encode("utf-8")) > 2047:
            continue
        positions = out.setdefault(term, [])
        if (not positions or positions[-1] != min(i, 16383)) and len(positions) < 255:
            positions.append(min(i, 16383))
    return dict(sorted(out.items(), key=lambda item: item[0].encode("utf-8")))


TEXTS = ["", "the and of", "Export licences for controlled items; items again.",
         "Café ΣΑΣ naïve 𝐀𝐁𝐂 日本語 z a Z á", "word " * 300 + "tail",
         "the " * 16390 + "late late", "x" * 3000 + " short", "ab b c abc aa",
         # terms sharing their first 16 bytes (or 17, or all of the shorter one)
         "12345678901234567b 12345678901234567 12345678901234567a 1234567890123456c "
         "1234567890123456 日本語日本語日1 日本語日本語日 日本語日本語日0"]


def test_tsvectors_hold_the_terms_in_postgres_order_with_limits():
    got = [decode(t) for t in tsvectors(TEXTS)]
    for text, tsv in zip(TEXTS, got):
        assert tsv == reference(text) and list(tsv) == list(reference(text)), text[:40]
    assert got[0] == {} and got[1] == {}
    assert got[2]["item"] == [5, 6]
    assert len(got[4]["word"]) == 255          # at most 255 positions per lexeme
    assert got[5] == {"late": [16383]}         # positions past 16383 count as 16383
    assert "x" * 3000 not in got[6]            # a lexeme over 2047 bytes is left out
    assert list(got[7]) == ["aa", "ab", "abc", "b", "c"]  # byte order, as PostgreSQL keeps
    assert list(got[8]) == ["1234567890123456", "12345678901234567", "12345678901234567a",
                            "12345678901234567b", "1234567890123456c", "日本語日本語日",
                            "日本語日本語日0", "日本語日本語日1"]


def test_a_chunk_with_over_a_megabyte_of_distinct_terms_is_refused():
    huge = " ".join(f"term{i:07d}x" for i in range(100_000))
    with pytest.raises(TsVectorTooLarge) as exc:
        tsvectors(["fine", huge])
    assert exc.value.index == 1 and "1 MB" in str(exc.value)
    assert isinstance(exc.value, UsageError)


def test_tsquery_ors_the_query_terms_and_quotes_them():
    assert tsquery(["Licences", "export", "items"]) == "'licenc' | 'export' | 'item'"
    assert tsquery([]) is None and tsquery(["!!", "--"]) is None
    assert tsquery(["the"]) == "'the'"  # stop words only: kept, as the SQLite store does


def test_the_server_reads_them_as_sent(pg_dsn):
    with psycopg.connect(pg_dsn) as conn:
        conn.adapters.register_dumper(TsVector, TsVectorDumper)
        for text, tsv in zip(TEXTS, tsvectors(TEXTS)):
            shown = conn.execute("SELECT %s::text", (tsv,)).fetchone()[0]
            expected = " ".join(f"'{lex}':{','.join(map(str, pos))}"
                                for lex, pos in reference(text).items())
            assert shown == expected, text[:40]
        matches = conn.execute("SELECT %s @@ %s::tsquery, %s @@ %s::tsquery",
                               (tsvectors(TEXTS[2:3])[0], tsquery(["item"]),
                                tsvectors(TEXTS[2:3])[0], tsquery(["missing"]))).fetchone()
        assert matches == (True, False)


def test_a_new_word_table_starts_over_the_cached_lexemes(monkeypatch):
    """tsvectors caches the UTF-8 bytes of the analyser's terms by term id; a new word table
    (after a reset, or the collision fallback's own vocabulary) renumbers the terms."""
    from ragd import analysis

    before = tsvectors(TEXTS)
    monkeypatch.setattr(analysis, "_WORDS", analysis._Words())
    assert tsvectors(TEXTS[::-1]) == before[::-1]
    monkeypatch.setattr(analysis, "_WORDS", analysis._Words(limit=5))  # resets every batch
    assert tsvectors(TEXTS[2:4]) == before[2:4] and tsvectors(TEXTS[7:]) == before[7:]
