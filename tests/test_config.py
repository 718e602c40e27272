"""Settings: defaults < ragd.toml < environment < call arguments, and every error a bad
ragd.toml gives (each names the file, and the table or key at fault)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragd.config import DEFAULT_MAX_DOCUMENT_BYTES, load_settings
from ragd.errors import ConfigError
from ragd.types import ChunkPolicy

TOML = """[ragd]
store = "toml-store"
collection = "toml-coll"
embedder = "toml-emb"
profile = "toml-prof"
"""
ENV = {"RAGD_STORE": "env-store", "RAGD_COLLECTION": "env-coll", "RAGD_EMBEDDER": "env-emb",
       "RAGD_PROFILE": "env-prof"}
ARGS = {"store": "arg-store", "collection": "arg-coll", "embedder": "arg-emb",
        "profile": "arg-prof"}
KEYS = ("store", "collection", "embedder", "profile")


def _settings(tmp_path: Path, *, toml: str | None = None, env: dict | None = None,
              args: dict | None = None):
    if toml is not None:
        (tmp_path / "ragd.toml").write_text(toml, "utf-8")
    return load_settings(args, environ=env or {}, cwd=tmp_path)


def _values(settings) -> tuple:
    return tuple(getattr(settings, k) for k in KEYS)


def test_defaults(tmp_path):
    s = _settings(tmp_path)
    assert _values(s) == ("", "default", "", "")   # "": the profile's embedder
    assert s.home == tmp_path / ".ragd" and s.store_location == str(tmp_path / ".ragd")
    assert s.max_document_bytes == DEFAULT_MAX_DOCUMENT_BYTES == 16 * 1024 * 1024
    assert (s.chunking, s.k, s.mode, s.fusion) == (None, None, None, None)


@pytest.mark.parametrize("layers, expected", [
    ({"toml": TOML}, ("toml-store", "toml-coll", "toml-emb", "toml-prof")),
    ({"env": ENV}, ("env-store", "env-coll", "env-emb", "env-prof")),
    ({"toml": TOML, "env": ENV}, ("env-store", "env-coll", "env-emb", "env-prof")),
    ({"toml": TOML, "args": ARGS}, ("arg-store", "arg-coll", "arg-emb", "arg-prof")),
    ({"toml": TOML, "env": ENV, "args": ARGS}, ("arg-store", "arg-coll", "arg-emb", "arg-prof")),
])
def test_later_sources_win(tmp_path, layers, expected):
    assert _values(_settings(tmp_path, **layers)) == expected


def test_precedence_is_per_key(tmp_path):
    """Each key comes from the latest source that sets it; a None argument or an empty
    variable sets nothing."""
    s = _settings(tmp_path, toml=TOML, env={"RAGD_COLLECTION": "env-coll", "RAGD_STORE": ""},
                  args={"embedder": "arg-emb", "store": None, "profile": None})
    assert _values(s) == ("toml-store", "env-coll", "arg-emb", "toml-prof")


def test_toml_tables_and_units(tmp_path):
    s = _settings(tmp_path, toml='[ragd]\nmax_document_mb = 0.5\n[chunking]\ntarget_tokens = 120\n'
                  'overlap_tokens = 10\n[retrieval]\nk = 7\nmode = "lexical"\nfusion = "weighted"\n',
                  args={"k": 3})
    assert s.max_document_bytes == 512 * 1024
    assert s.chunking == ChunkPolicy(target_tokens=120, overlap_tokens=10)
    assert (s.k, s.mode, s.fusion) == (3, "lexical", "weighted")


def test_cwd_toml_wins_over_the_homes_and_home_comes_from_the_environment(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "ragd.toml").write_text('[ragd]\ncollection = "home-coll"\n', "utf-8")
    work = tmp_path / "work"
    work.mkdir()
    s = load_settings(environ={"RAGD_HOME": str(home)}, cwd=work)
    assert (s.home, s.collection) == (home, "home-coll")
    (work / "ragd.toml").write_text('[ragd]\ncollection = "cwd-coll"\n', "utf-8")
    assert load_settings(environ={"RAGD_HOME": str(home)}, cwd=work).collection == "cwd-coll"


BAD = [
    ("[ragd\n", r"cannot read settings: "),
    (b"[ragd]\ncollection = \"\xff\"\n", r"cannot read settings: "),
    ('[ragd]\nmax_document_mb = "big"\n',
     r"\[ragd\] max_document_mb must be a number of megabytes over 0, got 'big'$"),
    ("[ragd]\nmax_document_mb = 0\n",
     r"\[ragd\] max_document_mb must be a number of megabytes over 0, got 0$"),
    ("[ragd]\nmax_document_mb = true\n",
     r"\[ragd\] max_document_mb must be a number of megabytes over 0, got True$"),
    ("[ragd]\nmax_document_mb = inf\n",
     r"\[ragd\] max_document_mb must be a number of megabytes over 0, got inf$"),
    ("[chunking]\nsize = 3\n", r"\[chunking\]: .*unexpected keyword argument 'size'"),
    ("[chunking]\ntarget_tokens = 10\noverlap_tokens = 20\n",
     r"\[chunking\]: overlap_tokens must be < target_tokens \(10\)"),
    ("[ragd]\ncolour = 1\nshape = 2\n", r"unknown settings: colour, shape$"),
    ("[retrieval]\nk = 0\n", r"\[retrieval\] k must be a whole number of 1 or more, got 0$"),
    ("[retrieval]\nk = true\n",
     r"\[retrieval\] k must be a whole number of 1 or more, got True$"),
    ('[retrieval]\nk = "5"\n',
     r"\[retrieval\] k must be a whole number of 1 or more, got '5'$"),
    ("[ragd]\nstore = 3\n", r"store must be text, got 3$"),
    ("[ragd]\ncollection = [1]\n", r"collection must be text, got \[1\]$"),
    ("[ragd]\nembedder = false\n", r"embedder must be text, got False$"),
    ("[ragd]\nprofile = {}\n", r"profile must be text, got \{\}$"),
    ("[retrieval]\nmode = 1\n", r"mode must be text, got 1$"),
    ("[retrieval]\nfusion = 2.5\n", r"fusion must be text, got 2.5$"),
]


@pytest.mark.parametrize("content, message", BAD)
def test_every_bad_toml_error_names_the_file_and_the_fault(tmp_path, content, message):
    path = tmp_path / "ragd.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, "utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={}, cwd=tmp_path)
    text = str(caught.value)
    assert text.startswith(f"{path}: "), text
    assert re.search(message, text[len(f"{path}: "):]), text


def test_a_bad_toml_fails_even_when_arguments_set_every_key(tmp_path):
    (tmp_path / "ragd.toml").write_text("[ragd]\nstore = 3\n", "utf-8")
    with pytest.raises(ConfigError, match="store must be text"):
        load_settings(ARGS, environ=ENV, cwd=tmp_path)
