"""Small, locale-independent text helpers shared by lexical search and compression."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.UNICODE)

# A short English stop list (the SMART/Lucene core): words that carry no topic.
STOPWORDS = frozenset("""
a an and are as at be but by for if in into is it no not of on or such that the their then there
these they this to was will with what which who whom how when where why do does did can could should
would i you he she we me my your our its his her them am been being have has had were from than so
""".split())


def words(text: str) -> list[str]:
    """Lower-cased word tokens (unicode letters, digits, underscore)."""
    return _WORD.findall(text.lower())


def query_terms(text: str) -> list[str]:
    """Distinct content words of a query in first-seen order.

    Stop words are dropped unless the query has nothing else. The result holds
    only word characters, so it can be quoted into any full-text syntax safely.
    """
    tokens = words(text)
    content = [t for t in tokens if t not in STOPWORDS] or tokens
    return list(dict.fromkeys(content))
