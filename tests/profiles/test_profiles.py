"""Profiles as data: the built-ins load, merge over the defaults, and bad files say where."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragd.errors import ConfigError
from ragd.profiles import builtin_names, load_profile
from ragd.profiles.toml_text import to_toml
from ragd.types import ChunkPolicy, Plan


def test_the_five_contracts_ship_as_profiles():
    assert builtin_names() == ("default", "ear", "legal-in", "pharma-qa", "rules")
    for name in builtin_names():
        p = load_profile(name)
        assert p.name == name and p.description and len(p.content_hash) == 64
        assert isinstance(p.plan(), Plan)
        assert isinstance(p.chunk_policy(254), ChunkPolicy)


def test_defaults_are_merged_under_every_profile():
    default, ear, rules = (load_profile(n) for n in ("default", "ear", "rules"))
    assert ear.plan().scheme == "cfr" and default.plan().scheme == "heading"
    assert ear.retrieval["k"] == default.retrieval["k"] == 12  # inherited
    assert rules.retrieval["k"] == 5 and rules.retrieval["cache_ttl_seconds"] == 300
    assert rules.retrieval["weights"] == default.retrieval["weights"]
    policy = rules.chunk_policy(254)
    assert (policy.chunker, policy.counter, policy.target_tokens, policy.max_chars) == (
        "markdown", "model", 254, None)
    assert dict(policy.options) == {"heading_prefix": True, "heading_context": False}
    with pytest.raises(ConfigError, match="needs the collection's embedder"):
        rules.chunk_policy()


def test_a_profile_file_extends_a_built_in_and_overrides_one_key(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('extends = "rules"\n[retrieval]\nmin_relevance = 0.5\n')
    mine = load_profile(str(path))
    assert mine.name == "mine" and mine.source == str(path.resolve())
    assert mine.retrieval["min_relevance"] == 0.5
    assert mine.retrieval["k"] == 5 and mine.data["citation"]["scheme"] == "heading"
    assert mine.content_hash != load_profile("rules").content_hash


def test_the_content_hash_is_stable_and_follows_content(tmp_path):
    assert load_profile("ear").content_hash == load_profile("ear").content_hash
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('name = "x"\n[retrieval]\nk = 3\n')
    b.write_text('# a comment\nname = "x"\n\n[retrieval]\nk   =   3\n')
    assert load_profile(str(a)).content_hash == load_profile(str(b)).content_hash


@pytest.mark.parametrize("text, message", [
    ("[retrieval]\nkk = 3\n", r"unknown key 'retrieval.kk' \(allowed here: acronym_names, acronyms, cache_ttl_seconds"),
    ("[retrieval]\nk = \"ten\"\n", r"retrieval.k must be an integer >= 1 and <= 1000, got 'ten'"),
    ("[retrieval]\nk = true\n", r"retrieval.k must be an integer"),
    ("[retrieval]\nmode = \"semantic\"\n", r"retrieval.mode must be one of 'vector', 'lexical'"),
    ("[retrieval]\nfusion = \"borda\"\n", r"retrieval.fusion must be one of 'rrf', 'weighted'"),
    ("[chunking]\nchunker = \"sentences\"\n", r"chunking.chunker must be one of 'auto', "),
    ("[citation]\nscheme = \"apa\"\n", r"citation.scheme must be one of .*'cfr'"),
    ("[chunking]\ntarget_tokens = 10\noverlap_tokens = 10\n", r"overlap_tokens \(10\) must be below"),
    ("[chunking]\noptions = { colour = true }\n", r"takes no option 'colour'"),
    ("[chunking]\nchunker = \"markdown\"\noptions = { heading_prefix = 1 }\n",
     r"option 'heading_prefix' of chunker 'markdown' must be a bool"),
    ("[chunking]\ntarget_tokens = \"embedder\"\n", r"set chunking.counter"),
    ("[ingest.metadata.kind]\ntype = \"colour\"\n", r"ingest.metadata.kind.type must be one of"),
    ("retrieval = 3\n", r"retrieval must be a table"),
    ("surprise = 1\n", r"unknown key 'surprise'"),
    ("[retrieval\n", r"not valid TOML"),
])
def test_bad_profiles_name_the_file_key_and_allowed_values(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_profile(str(path))
    assert str(path) in str(info.value)


def test_unknown_names_and_missing_files(tmp_path):
    with pytest.raises(ConfigError, match="unknown profile 'legal'; built in: default, ear"):
        load_profile("legal")
    with pytest.raises(ConfigError, match="no profile file"):
        load_profile(str(tmp_path / "none.toml"))
    cyc = tmp_path / "cyc.toml"
    cyc.write_text(f'extends = "{cyc}"\n')
    with pytest.raises(ConfigError, match="makes a cycle"):
        load_profile(str(cyc))


def test_show_prints_toml_that_loads_back_to_the_same_profile():
    for name in builtin_names():
        data = load_profile(name).as_dict()
        assert tomllib.loads(to_toml(data)) == data


_SCALARS = st.one_of(st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=8),
                     st.floats(allow_nan=False, allow_infinity=False))
_KEYS = st.text(st.sampled_from("abc_-XY1 é"), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(_KEYS, st.one_of(_SCALARS, st.lists(_SCALARS, max_size=3),
                                       st.dictionaries(_KEYS, _SCALARS, max_size=3)),
                       max_size=5))
def test_property_toml_round_trip(data):
    assert tomllib.loads(to_toml(data)) == data
