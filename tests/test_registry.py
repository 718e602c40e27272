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


def test_embedders_loaders_and_stores_are_registries_too(tmp_path, toy):
    """A toy embedder, a loader for ``.toy`` files and a ``toy://`` store scheme, registered
    from outside, carry a whole ingest and search."""
    from ragd.embedding import make_embedder, register_embedder
    from ragd.embedding.base import EMBEDDERS
    from ragd.ingest.loaders import LOADERS, register_loader, supported_suffixes
    from ragd.stores import STORES, SQLiteStore, open_store, register_store_scheme
    from ragd.types import Document

    def load_toy(ref, options):
        for i, line in enumerate(open(ref.source, encoding="utf-8").read().splitlines()):
            yield Document(doc_id=f"{ref.rel}#{i}", text=line, source=ref.source)

    register_embedder("toy-outside", lambda: toy)
    register_loader(".toy", load_toy)
    register_store_scheme("toy", lambda url: SQLiteStore(tmp_path / url.split("://")[1]))
    try:
        assert "toy-outside" in EMBEDDERS and ".toy" in LOADERS and "toy" in STORES
        assert ".toy" in supported_suffixes()
        assert make_embedder("toy-outside") is toy
        store = open_store("toy://s.sqlite")
        assert isinstance(store, SQLiteStore) and (tmp_path / "s.sqlite").exists()
        store.close()
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "a.toy").write_text("export licence rules\naudit logs retained\n")
        coll = open_collection("toy://s.sqlite", "c", make_embedder("toy-outside"),
                               create=True)
        report = ingest([tmp_path / "docs"], coll)
        assert report.new == 2
        assert retrieve("audit logs", Plan(k=1), coll)[0].doc_id == "a.toy#1"
        coll.close()
    finally:
        EMBEDDERS.unregister("toy-outside")
        LOADERS.unregister(".toy")
        STORES.unregister("toy")
    with pytest.raises(ConfigError, match="unknown embedder 'toy-outside'"):
        make_embedder("toy-outside")
    assert ".toy" not in supported_suffixes()
