"""retrieval-corpus.v1: the document record (``record``), streaming read/write (``io``),
validation (``validate``), the JSON Schema of one document line (``schema/``), a
collection's export (``export``) and the ``ear`` profile's builder from eCFR sources
(``build``). The canonical EAR id rules are the ``cfr`` citation scheme's
(:mod:`ragd.citing.cfr_ids`), re-exported here for the contract's users.

See ``shared/specs/retrieval-corpus-v1.md`` for the contract.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..citing.cfr_ids import (CANONICAL_PATTERN, SECTION_PATTERN, SUFFIX_PATTERN, InvalidIdError, ancestors,
                  cfr_citation, find_section_refs, is_canonical, is_canonical_section,
                  is_container, normalize_id, parent_of, part_of, section_of)
from .io import UnsupportedSchemaVersionError, parse_line, read_corpus, write_corpus
from .record import (CHUNK_KINDS, KNOWN_FIELDS, OPTIONAL_FIELDS, REQUIRED_FIELDS,
                     SCHEMA_VERSION, SOURCES, CorpusRecord, check_record, dump_record, ordered)
from .validate import RULES, ValidationReport, Violation, validate_corpus, validate_records

SCHEMA_FILE = "retrieval-corpus.v1.schema.json"


def schema_path() -> Path:
    """Path of the JSON Schema (draft 2020-12) of one retrieval-corpus.v1 document line."""
    return Path(str(resources.files("ragd.corpus") / "schema" / SCHEMA_FILE))


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return schema_path().read_text(encoding="utf-8")


def load_schema() -> dict[str, Any]:
    """The JSON Schema as a fresh dict (callers may change their copy)."""
    return json.loads(_schema_text())


__all__ = [
    "CANONICAL_PATTERN", "CHUNK_KINDS", "KNOWN_FIELDS", "OPTIONAL_FIELDS", "REQUIRED_FIELDS",
    "RULES", "SCHEMA_FILE", "SCHEMA_VERSION", "SECTION_PATTERN", "SOURCES", "SUFFIX_PATTERN",
    "CorpusRecord", "InvalidIdError", "UnsupportedSchemaVersionError", "ValidationReport",
    "Violation", "ancestors", "cfr_citation", "check_record", "dump_record",
    "find_section_refs", "is_canonical", "is_canonical_section", "is_container",
    "load_schema", "normalize_id",
    "ordered", "parent_of", "parse_line", "part_of", "read_corpus", "schema_path",
    "section_of", "validate_corpus", "validate_records", "write_corpus",
]
