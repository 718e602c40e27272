"""Query validation: what a query must be before any work is done; and the one rewrite
every query gets, abbreviated references to a document's parts spelled out."""

from __future__ import annotations

import re

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


# an abbreviated reference to a document's part, before its number: "Ch.3", "Chap. IV",
# "Art. 5", "App. B", "Para. 12" (a section sign and "Sec." are the citation schemes'); the
# abbreviation in any case, the number as written ("app. i think" is no appendix)
_PART = re.compile(r"\b(?P<abbr>(?i:ch|chap|chapt|arts?|app|paras?))\.\s*"
                   r"(?=\d|[IVX]{1,5}\b|[A-Z]\b)")
_SPELLED = {"ch": "Chapter", "chap": "Chapter", "chapt": "Chapter", "art": "Article",
            "arts": "Articles", "app": "Appendix", "para": "paragraph", "paras": "paragraphs"}


def spell_out_parts(query: str) -> str:
    """``query`` with abbreviated references to a document's parts spelled out ("EU GMP
    Ch.3: ..." → "EU GMP Chapter 3: ..."): documents name their chapters in full, and
    neither the lexical index nor the answer's checks read "Ch.3" as chapter 3. A query
    the spelling out would take past :data:`MAX_QUERY_CHARS` is left as written."""
    spelled = _PART.sub(lambda m: _SPELLED[m.group("abbr").lower()] + " ", query)
    return spelled if len(spelled) <= MAX_QUERY_CHARS else query
