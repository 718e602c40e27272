"""Canonical EAR ids: normalisation (a total function), structure, citations, refs in text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import shared
from ragd.citing.cfr_ids import (CANONICAL_PATTERN, SECTION_PATTERN, InvalidIdError, ancestors,
                             cfr_citation, find_section_refs, is_canonical, is_canonical_section,
                             normalize_id, parent_of, part_of, section_of)
from ragd.errors import UsageError


@pytest.mark.parametrize("text, canonical", [
    ("15 CFR 736.2", "EAR-736.2"),
    ("§ 736.2(b)", "EAR-736.2(b)"),
    ("736.2(b)", "EAR-736.2(b)"),
    ("EAR-736.2(b)", "EAR-736.2(b)"),
    ("EAR-736.2(B)", "EAR-736.2(b)"),
    ("EAR-736.2(b)#p0001", "EAR-736.2(b)#p0001"),
    ("§ 736.2(b)#p0001", "EAR-736.2(b)#p0001"),
    ("§736.2 ( b )", "EAR-736.2(b)"),
    ("15  CFR  736.2", "EAR-736.2"),
    ("EAR - 736.2", "EAR-736.2"),
    ("EAR 736.2", "EAR-736.2"),
    ("ear-736.2", "EAR-736.2"),
    ("Sec. 736.2", "EAR-736.2"),
    ("sec 736.2", "EAR-736.2"),
    ("section 736.2", "EAR-736.2"),
    ("Section 736.2(b)", "EAR-736.2(b)"),
    ("§§ 736.2", "EAR-736.2"),
    ("15 C.F.R. § 740.9(a)(2)(i)(A)", "EAR-740.9(a)(2)(i)(a)"),
    ("15 CFR Sec. 744.21", "EAR-744.21"),
    ("EAR-736.2(b)(IV)", "EAR-736.2(b)(iv)"),
    ("EAR-736.2(b)(10)", "EAR-736.2(b)(10)"),
    ("§\u00a0736.2", "EAR-736.2"),
    ("  EAR-736.2\n", "EAR-736.2"),
    ("EAR-736", "EAR-736"),
    ("15 CFR part 736", "EAR-736"),
    ("EAR-740.11(b)#p0001", "EAR-740.11(b)#p0001"),
    ("EAR-736.2#a:b.c_d-e", "EAR-736.2#a:b.c_d-e"),
])
def test_normalize_accepts(text, canonical):
    assert normalize_id(text) == canonical
    assert is_canonical(canonical)


@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    ("   ", "empty"),
    ("736", "bare number"),
    ("EAR-73.2", "exactly 3 digits"),
    ("EAR-7360.2", "exactly 3 digits"),
    ("736.2(b", "unbalanced"),
    ("736.2()", "empty parentheses"),
    ("EAR-736.2#", "nothing after '#'"),
    ("EAR-736.2#P0001", "must be lowercase"),
    ("EAR-736.2#p 1", "must match"),
    ("EAR-736.2#-p1", "must match"),
    ("EAR-736.2 #p1", "whitespace before '#'"),
    ("736.2 and 736.3", "more than one id"),
    ("EAR-736.2 EAR-736.3", "more than one id"),
    ("14 CFR 1.1", "title 14"),
    ("§ 736", "no section number"),
    ("Sec. 736", "no section number"),
    ("15 CFR part 736.2", "'part' must be followed"),
    ("736.2(a1)", "mixes letters and digits"),
    ("736.2(b-1)", "letters or digits only"),
    ("736.2(b) of the EAR", "not an EAR id"),
    ("736 .2", "not an EAR id"),
    ("７３６.2", "not an EAR id"),           # full-width digits are not ASCII digits
    ("ſec 736.2", "not an EAR id"),          # no Unicode case folding into ASCII words
    (None, "expected a string"),
    (736.2, "expected a string"),
])
def test_normalize_refuses_with_reason(text, reason):
    with pytest.raises(InvalidIdError) as caught:
        normalize_id(text)
    assert reason in caught.value.reason
    assert isinstance(caught.value, UsageError) and isinstance(caught.value, ValueError)
    assert caught.value.exit_code == 2


def test_structure():
    assert section_of("EAR-736.2(b)#p0001") == "EAR-736.2(b)"
    assert section_of("EAR-736.2(b)") == "EAR-736.2(b)"
    assert part_of("EAR-736.2(b)#p1") == "736"
    assert parent_of("EAR-736.2(b)(1)") == "EAR-736.2(b)"
    assert parent_of("EAR-736.2(b)") == "EAR-736.2"
    assert parent_of("EAR-736.2") is None
    assert parent_of("EAR-736.2(b)#p0001") == "EAR-736.2(b)"
    assert ancestors("EAR-736.2(b)(1)#p2") == ["EAR-736.2(b)(1)", "EAR-736.2(b)", "EAR-736.2"]
    assert cfr_citation("EAR-736.2(b)") == "15 CFR 736.2(b)"
    assert cfr_citation("EAR-736.2(b)#p0001") == "15 CFR 736.2(b)"
    assert cfr_citation("EAR-736") == "15 CFR part 736"
    assert is_canonical_section("EAR-736.2(b)") and not is_canonical_section("EAR-736.2#p1")
    assert not is_canonical("EAR-736.2(B)") and not is_canonical(None)
    assert not is_canonical("EAR-736.2\n")
    with pytest.raises(InvalidIdError):
        parent_of("736.2(b)")


def test_every_real_doc_id_is_canonical():
    path = shared("ear-corpus", "ear-parts-736-746.v1.jsonl")
    count = 0
    with path.open(encoding="utf-8") as stream:
        for line in stream:
            record = json.loads(line)
            assert normalize_id(record["doc_id"]) == record["doc_id"]
            assert SECTION_PATTERN.match(record["section_id"])
            count += 1
    assert count == 3040


# -- properties ----------------------------------------------------------------------------
_digits = st.text("0123456789", min_size=1, max_size=4)
_label = st.one_of(st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=5),
                   st.text("0123456789", min_size=1, max_size=3))
_suffix = st.tuples(st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=1),
                    st.text("abcdefghijklmnopqrstuvwxyz0123456789:._-", max_size=8)
                    ).map("".join)


@st.composite
def sections(draw, min_dots: int = 0) -> str:
    part = draw(st.text("0123456789", min_size=3, max_size=3))
    dots = "".join(f".{d}" for d in draw(st.lists(_digits, min_size=min_dots, max_size=2)))
    labels = "".join(f"({g})" for g in draw(st.lists(_label, max_size=4)))
    return f"EAR-{part}{dots}{labels}"


@st.composite
def doc_ids(draw) -> str:
    section = draw(sections())
    suffix = draw(st.none() | _suffix)
    return section if suffix is None else f"{section}#{suffix}"


@given(doc_ids())
def test_canonical_ids_are_fixed_points(doc_id):
    assert CANONICAL_PATTERN.match(doc_id)
    assert normalize_id(doc_id) == doc_id


@given(doc_ids())
def test_citation_round_trip(doc_id):
    assert normalize_id(cfr_citation(doc_id)) == section_of(doc_id)


@given(doc_ids())
def test_parent_chain_ends_at_the_section_root(doc_id):
    chain = ancestors(doc_id)
    assert all(SECTION_PATTERN.match(a) for a in chain)
    assert (chain[-1] if chain else doc_id) == section_of(doc_id).split("(")[0]


_PREFIXES = ("EAR-", "EAR ", "ear - ", "15 CFR ", "15 C.F.R. ", "15 CFR § ", "§ ", "§",
             "§§ ", "Sec. ", "section ", "Section ", "\u00a7\u00a0", "")


@given(sections(min_dots=1), st.sampled_from(_PREFIXES), st.booleans(), st.booleans(),
       st.sampled_from(("", " ", "  ", "\t")))
def test_surface_forms_normalize_to_the_canonical_id(section, prefix, upper, spaced, pad):
    body = section[4:]
    if upper:
        body = body.upper()
    if spaced:
        body = body.replace("(", " ( ").replace(")", " ) ").rstrip()
    assert normalize_id(f"{pad}{prefix}{body}{pad}") == section


_JUNK = "EARCFRSectionsecpart0123456789.()§#:_- abABiIvV\u00a0\n"


@settings(max_examples=500)
@given(st.one_of(st.text(), st.text(_JUNK, max_size=30)))
def test_normalize_is_total(text):
    try:
        out = normalize_id(text)
    except InvalidIdError:
        return
    assert CANONICAL_PATTERN.match(out)
    assert normalize_id(out) == out


@settings(max_examples=300)
@given(st.one_of(st.text(), st.text(_JUNK, max_size=60)))
def test_find_section_refs_returns_unique_canonical_sections(text):
    refs = find_section_refs(text)
    assert len(refs) == len(set(refs))
    assert all(SECTION_PATTERN.match(r) for r in refs)


# -- references in free text ---------------------------------------------------------------
@pytest.mark.parametrize("text, refs", [
    ("what does 736.2(b) say", ["EAR-736.2(b)"]),
    ("15 CFR 740.9", ["EAR-740.9"]),
    ("see § 744.21 and EAR-742.4", ["EAR-744.21", "EAR-742.4"]),
    ("Sec. 740.2 then section 736.2(b)(1)", ["EAR-740.2", "EAR-736.2(b)(1)"]),
    ("15 C.F.R. § 740.9(a)(2)(i)(A).", ["EAR-740.9(a)(2)(i)(a)"]),
    ("§§ 101.2, 101.3 and 101.4", ["EAR-101.2", "EAR-101.3", "EAR-101.4"]),
    ("sections 740.10 through 740.12", ["EAR-740.10", "EAR-740.12"]),
    ("740.9 and again § 740.9", ["EAR-740.9"]),
    ("described in § 736.2(a) of this part .", ["EAR-736.2(a)"]),
    ("the chunk EAR-736.2(b)#p0001", ["EAR-736.2(b)"]),
    ("costs 100.50 dollars, version 2.1, $740.50", []),
    ("part 740 of the EAR", []),
    ("§ 740.9 (temporary imports)", ["EAR-740.9"]),
    ("", []),
])
def test_find_section_refs(text, refs):
    assert find_section_refs(text) == refs


@given(sections(min_dots=1), st.sampled_from(("15 CFR ", "§ ", "EAR-", "Sec. ", "section ")))
def test_a_cited_section_is_found_in_a_sentence(section, prefix):
    text = f"What does {prefix}{section[4:]} require for exports?"
    assert find_section_refs(text) == [section]
