"""One registry per plug-in kind: toy plug-ins registered from outside the package work
through a profile like the built-in ones."""

from __future__ import annotations

import pytest

from ragd import Plan, ingest, open_collection, retrieve
from ragd.chunking import CHUNKERS, register_chunker
from ragd.citing import SCHEMES, register_scheme
from ragd.errors import ConfigError
from ragd.profiles import load_profile
from ragd.registry import Registry
from ragd.retrieval.fusion import FUSION
from ragd.types import Chunk


def test_register_look_up_and_errors_listing_known_names():
    reg: Registry[int] = Registry("widget")
    reg.register("one", 1)

    @reg.register("two")
    def two() -> int:
        return 2

    assert reg.get("one") == 1 and reg.get("two") is two and reg.names() == ("one", "two")
    with pytest.raises(ConfigError, match="unknown widget 'three'; known: one, two"):
        reg.get("three")
    with pytest.raises(ConfigError, match="already registered"):
        reg.register("one", 11)
    reg.register("one", 11, replace=True)
    assert reg.get("one") == 11
    with pytest.raises(ConfigError, match="non-empty string"):
        reg.register(" x ", 3)


@pytest.fixture
def plugins():
    """A line-per-chunk chunker, a "#N" citation scheme and a max-score fusion, from outside."""
    def by_lines(doc, policy, count_tokens):
        lines = [ln for ln in doc.text.split("\n") if ln.strip()]
        return [Chunk(doc_id=doc.doc_id, chunk_index=i, text=ln, section_id=f"L{i}",
                      tokens=len(ln.split())) for i, ln in enumerate(lines)]

    class LineScheme:
        name = "lines"
        section_field = "section_id"

        def find_refs(self, query):
            return [f"L{w[1:]}" for w in query.split() if w.startswith("#") and w[1:].isdigit()]

        def normalize(self, ref):
            return ref

        def cite(self, passage, title=""):
            return f"{passage.doc_id} line {passage.section_id}"

        def fields(self, passage, title=""):
            return {"section": passage.section_id}

    def max_fusion(named, params):
        scored, base = {}, {}
        for _, lst in named:
            for c in lst:
                base.setdefault(c.key, c)
                scored[c.key] = max(scored.get(c.key, 0.0), c.score)
        return scored, base

    register_chunker("lines", by_lines, formats=("text", "markdown"))
    register_scheme(LineScheme())
    FUSION.register("max", max_fusion)
    yield
    CHUNKERS.unregister("lines")
    SCHEMES.unregister("lines")
    FUSION.unregister("max")


def test_toy_plugins_work_through_a_profile(plugins, tmp_path, toy):
    prof = tmp_path / "plugged.toml"
    prof.write_text('[chunking]\nchunker = "lines"\n[citation]\nscheme = "lines"\n'
                    '[retrieval]\nfusion = "max"\n')
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("export item one\nlicense two\ncheating three\n")
    coll = open_collection(tmp_path / "store", "p", toy, create=True, profile=str(prof))
    report = ingest([docs], coll)
    assert report.chunks == 3
    results = retrieve("license #2", None, coll)
    assert coll.plan.fusion == "max" and coll.plan.scheme == "lines"
    assert results[0].section_id == "L2" and results[0].pinned
    assert coll.profile.scheme.cite(results[0]) == "a.txt line L2"
    assert {c.text for c in results} == {"export item one", "license two", "cheating three"}
    coll.close()


def test_a_profile_naming_an_unregistered_plugin_is_refused(tmp_path):
    prof = tmp_path / "p.toml"
    prof.write_text('[chunking]\nchunker = "lines"\n')
    with pytest.raises(ConfigError, match=r"p\.toml: chunking\.chunker must be one of 'auto', "
                                          r"'canonical', .*'markdown'.*, got 'lines'"):
        load_profile(str(prof))
    with pytest.raises(ConfigError, match="unknown fusion method 'max'"):
        FUSION.get("max")
    assert Plan(fusion="max").fusion == "max"  # a plan is data; retrieval looks the name up
