"""The statute scheme: the normaliser is pure, total and idempotent; references name ids."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.citing import get_scheme
from ragd.citing.statute import find_acts, normalize_text, section_number, unknown_acts
from ragd.errors import UsageError

STATUTE = get_scheme("statute")


@pytest.mark.parametrize("text, normal", [
    ("Sec. 420", "Section 420"), ("section 420", "Section 420"), ("S.420", "Section 420"),
    ("§ 420", "Section 420"), ("u/s 420", "Section 420"), ("Section 498-A", "Section 498A"),
    ("section 498a", "Section 498A"), ("Indian Penal Code", "IPC"), ("I.P.C.", "IPC"),
    ("the Indian Penal Code, 1860", "IPC"), ("Code of Criminal Procedure", "CrPC"),
    ("Cr.P.C.", "CrPC"), ("Code of Civil Procedure", "CPC"), ("Indian Evidence Act", "IEA"),
    ("Evidence Act", "IEA"), ("u/s 439 Cr.P.C.", "Section 439 CrPC"), ("IPC, 1860, 1860", "IPC"),
])
def test_normaliser_forms(text, normal):
    assert normalize_text(text) == normal


_PIECES = st.sampled_from(["Sec. ", "section ", "S.", "§ ", "u/s ", "Section ", "420", "498-A",
                           "302", " IPC", " I.P.C.", " Cr.P.C.", " Evidence Act", " of the ",
                           "Indian Penal Code", "Code of Civil Procedure", ", 1860", " and ",
                           "(1)", " murder", "A", "-", " ", "§§", "ss.", "1872"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=12).map("".join))
def test_property_normaliser_is_total_and_idempotent(text):
    once = normalize_text(text)
    assert isinstance(once, str) and normalize_text(once) == once


def test_references_and_scopes():
    assert STATUTE.find_refs("What is the punishment u/s 420 of the Indian Penal Code?") == [
        "IPC-420"]
    assert STATUTE.find_refs("Section 302") == ["IPC-302", "CrPC-302", "CPC-302", "IEA-302"]
    assert STATUTE.find_refs("anticipatory bail") == []
    assert find_acts("Sec. 25 of the Evidence Act and the IPC") == ["IEA", "IPC"]
    assert unknown_acts("Section 166 of the Companies Act, 2013") == ["Companies Act"]
    assert unknown_acts("Section 25 of the Indian Evidence Act") == []
    assert STATUTE.find_scopes("Section 103 of the Bharatiya Nyaya Sanhita") == [
        "Bharatiya Nyaya Sanhita"]
    assert STATUTE.normalize("IPC 420") == STATUTE.normalize("Section 420, IPC") == "IPC-420"
    with pytest.raises(UsageError):
        STATUTE.normalize("nothing here")
    assert section_number(" 35A.") == "35A" and section_number("498-a") == "498A"
    with pytest.raises(UsageError, match="malformed"):
        section_number("12.3.4")
