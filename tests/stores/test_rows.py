"""What a document or chunk row may hold, checked alike before a write on both backends:
each refusal is an InvalidDocumentError naming the document, chunk and field."""

from __future__ import annotations

import numpy as np
import pytest

from ragd.errors import InvalidDocumentError
from ragd.stores import DocumentRecord
from ragd.stores import rows
from helpers import BARE_CHUNK as BARE, FULL_CHUNK as FULL
from ragd.types import Chunk



@pytest.mark.parametrize("change, field", [
    (dict(section_id="a\x00b"), "section_id"),
    (dict(tags=("fine", "bad\x00")), "tags"),
    (dict(context="\x00"), "context"),
    (dict(kind=3), "kind"),
    (dict(section_id=0), "section_id"),
    (dict(parent_id=False), "parent_id"),
    (dict(tokens=None), "tokens"),
    (dict(page=2 ** 31), "page"),
    (dict(tokens=-2 ** 31 - 1), "tokens"),
    (dict(start_offset=True), "start_offset"),
    (dict(end_offset="12"), "end_offset"),
    (dict(chunk_index=-1), "chunk_index"),
    (dict(metadata={"when": {1, 2}}), "metadata"),
    (dict(metadata={"x": float("nan")}), "metadata"),
    (dict(metadata={"x": ["nul\x00"]}), "metadata"),
    (dict(text="half a pair \ud83d"), "text"),
    (dict(metadata={"k": ["\udc00"]}), "metadata"),
])
def test_a_field_no_store_holds_is_named(change, field):
    bad = Chunk(**{**FULL.__dict__, **change})
    for check in (rows.check_chunk, lambda c: rows.check_chunks([BARE, c])):
        with pytest.raises(InvalidDocumentError) as exc:
            check(bad)
        assert exc.value.field == field
        assert field in str(exc.value) and "'d-ü'" in str(exc.value)
    rows.check_chunks([FULL, BARE, Chunk(**{**FULL.__dict__, "page": np.int64(3)})])


@pytest.mark.parametrize("change, field", [
    (dict(title="a\x00b"), "title"),
    (dict(source="\udfff"), "source"),
    (dict(content_hash=None), "content_hash"),
    (dict(metadata={"when": float("inf")}), "metadata"),
])
def test_a_document_field_no_store_holds_is_named(change, field):
    with pytest.raises(InvalidDocumentError) as exc:
        rows.check_document(DocumentRecord(**{"doc_id": "d1", "content_hash": "h",
                                                 **change}))
    assert exc.value.field == field
    assert field in str(exc.value) and "'d1'" in str(exc.value)
    rows.check_document(DocumentRecord("d1", "h", title="Ωmega 😀", metadata={"a": [1]}))
