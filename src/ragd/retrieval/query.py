"""Query validation: what a query must be before any work is done."""

from __future__ import annotations

from ..errors import InvalidQueryError

MAX_QUERY_CHARS = 2000


def validate_query(query: object) -> str:
    """The query, stripped; InvalidQueryError if it is not text, empty or too long."""
    if not isinstance(query, str):
        raise InvalidQueryError(f"query must be a string, got {type(query).__name__}")
    text = query.strip()
    if not text:
        raise InvalidQueryError("query is empty")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQueryError(
            f"query is {len(text)} characters long; the limit is {MAX_QUERY_CHARS}")
    return text
