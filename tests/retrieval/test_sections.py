"""Citation by section: a query naming a section ranks exactly that section first."""

from __future__ import annotations

import random

import pytest

from helpers import shared
from ragd import Plan, ingest, open_collection, retrieve
from ragd.corpus import read_corpus
from ragd.citing import get_scheme

citation = get_scheme("cfr").cite


@pytest.fixture(scope="module")
def ear(tmp_path_factory):
    from ragd.embedding.toy import ToyEmbedder

    source = shared("ear-corpus", "ear-parts-736-746.v1.jsonl")
    toy = ToyEmbedder(["export", "license", "licence", "items", "foreign", "person"])
    coll = open_collection(tmp_path_factory.mktemp("ear") / "store", "ear", toy, create=True,
                           profile="ear")
    ingest([source], coll)
    return coll, source


def ear_plan(**kw):
    return Plan(scheme="cfr", **kw)


def test_100_sampled_sections_rank_first(ear):
    coll, source = ear
    sections = sorted({r["section_id"] for _, r in read_corpus(source)})
    sample = random.Random(20261122).sample(sections, 100)
    hits = 0
    for section in sample:
        top = retrieve(f"15 CFR {section.removeprefix('EAR-')}", ear_plan(k=5), coll)[0]
        hits += top.section_id == section
    assert hits >= 98


@pytest.mark.parametrize("query, section", [
    ("what does 736.2(b) prohibit", "EAR-736.2(b)"),
    ("15 CFR 740.9", "EAR-740.9"),
    ("§ 744.21 military end users", "EAR-744.21"),
    ("EAR-742.4 national security", "EAR-742.4"),
])
def test_named_section_forms(ear, query, section):
    coll, _ = ear
    results = retrieve(query, ear_plan(k=5), coll)
    assert results[0].section_id == section and results[0].pinned
    assert results[0].doc_id == section  # the section's own document leads
    assert citation(results[0]) == "15 CFR " + section.removeprefix("EAR-")
    assert all(c.section_id for c in results)


def test_pinning_can_be_turned_off_and_respects_filters(ear):
    coll, _ = ear
    off = retrieve("15 CFR 740.9", Plan(k=5), coll)  # a plan without a citation scheme
    assert not any(c.pinned for c in off)
    filtered = retrieve("15 CFR 740.9", ear_plan(k=5, metadata={"source_ref": "nope"}), coll)
    assert filtered == []


def test_the_collection_profile_plans_when_no_plan_is_given(ear):
    coll, _ = ear
    assert coll.profile.name == "ear" and coll.plan.scheme == "cfr"
    top = retrieve("what does 15 CFR 740.9 allow", None, coll)[0]
    assert top.pinned and top.section_id == "EAR-740.9"


def test_the_default_profile_does_not_pin(tmp_path):
    from ragd.embedding.toy import ToyEmbedder

    source = shared("ear-corpus", "ear-parts-736-746.v1.jsonl")
    toy = ToyEmbedder(["export", "license", "licence", "items", "foreign", "person"])
    coll = open_collection(tmp_path / "store", "plain", toy, create=True, profile="default")
    ingest([source], coll)
    results = retrieve("15 CFR 740.9", None, coll)
    assert coll.plan.scheme == "heading" and not any(c.pinned for c in results)
