"""The pdf_page citation scheme: (file.pdf, p<page>), facts keyed by pdf and page."""

from ragd.citing import get_scheme
from ragd.evaluation.qa import cites_expected
from ragd.types import Candidate


def test_fields_citation_and_expected_source():
    scheme = get_scheme("pdf_page")
    c = Candidate(doc_id="fda/21-CFR-Part-11.pdf", chunk_index=3, text="x", score=1.0,
                  chunk_id="abc", page=3, metadata={"pdf": "21-CFR-Part-11.pdf",
                                                     "section": "§ 11.3 Definitions"})
    assert scheme.key_fields == ("pdf", "page")
    assert scheme.cite(c) == "21-CFR-Part-11.pdf, p3"
    fields = scheme.fields(c)
    assert fields == {"pdf": "21-CFR-Part-11.pdf", "page": 3, "section": "§ 11.3 Definitions"}
    citation = {"doc_id": c.doc_id, "chunk_id": c.chunk_id, **fields}
    assert cites_expected(citation, "21-CFR-Part-11.pdf", scheme)
    assert not cites_expected(citation, "Q9.pdf", scheme)
    bare = Candidate(doc_id="who/x.pdf", chunk_index=0, text="y", score=0.0)
    assert scheme.fields(bare) == {"pdf": "x.pdf", "page": None, "section": None}
