"""End-to-end acceptance on real data with the bundled model: quality, determinism."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import shared
from ragd import Plan, ingest, open_collection, retrieve
from ragd.demo import demo_corpus
from ragd.ingest.loaders import LoadOptions

QUERIES = [
    "Is a license required to export items subject to the EAR?", "punishment for cheating",
    "how long must audit logs be kept", "military end users", "theft of movable property",
    "culpable homicide", "defamation of a person", "forgery of documents",
    "criminal intimidation threats", "license exceptions restrictions", "U.S. persons activities",
    "embargoes and special controls", "who may read production audit logs",
    "legal hold suspends deletion", "export records retention five years",
    "general prohibitions", "reporting a security incident", "murder punishment death",
    "introduction to the commerce control list", "scope of the records policy",
]


@pytest.mark.slow
def test_two_fresh_stores_are_byte_identical(tmp_path, minilm):
    colls = []
    for name in ("one", "two"):
        coll = open_collection(tmp_path / name, "demo", minilm, create=True)
        ingest([demo_corpus()], coll, options=LoadOptions(exclude=("SOURCE.txt",)))
        colls.append(coll)
    rows = [list(c.store.iter_chunks("demo")) for c in colls]
    assert len(rows[0]) > 20
    for (a, va), (b, vb) in zip(*rows, strict=True):
        assert (a.doc_id, a.chunk_index, a.chunk_id, a.text, a.context) == \
            (b.doc_id, b.chunk_index, b.chunk_id, b.text, b.context)
        assert va.tobytes() == vb.tobytes()
    for query in QUERIES:
        first, second = (retrieve(query, Plan(k=10), c) for c in colls)
        assert [(c.key, c.score) for c in first] == [(c.key, c.score) for c in second]


@pytest.mark.slow
def test_asvs_session_tokens_at_logout(tmp_path, minilm):
    # the chapters a question on session tokens is most easily confused with (authentication,
    # authorization, self-contained tokens, OAuth, the glossary): the hard part of the whole
    # standard, in a fifth of the time of embedding all of it
    chapters = ["0x15-V6-Authentication.md", "0x16-V7-Session-Management.md",
                "0x17-V8-Authorization.md", "0x18-V9-Self-contained-Tokens.md",
                "0x19-V10-OAuth-and-OIDC.md", "0x90-Appendix-A_Glossary.md"]
    coll = open_collection(tmp_path / "asvs", "asvs", minilm, create=True)
    report = ingest([shared("markdown-asvs", name) for name in chapters], coll)
    assert (report.new, report.failed) == (len(chapters), 0)
    results = retrieve("how should session tokens be invalidated at logout", Plan(k=3), coll)
    assert any(c.doc_id == "0x16-V7-Session-Management.md" for c in results), \
        [(c.doc_id, c.context) for c in results]
    chunks = list(coll.store.iter_chunks("asvs"))
    vectors = np.stack([v for _, v in chunks])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
