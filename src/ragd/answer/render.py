"""Rendering an answer as text: numbered cited sentences and the confidence.

``numbered`` (default): ``1. <sentence> [<citation>]`` lines and ``Confidence: High``.
``qa-contract`` (QA contract v1's text): ``ANSWER:``, numbered sentences each with
``(pdf, p<page>, <chunk_id>)``, and a final ``CONFIDENCE: High|Medium|Low``.
:func:`render_facts` is the contract's phase A debug text (``FACTS:``).
"""

from __future__ import annotations

import json
from typing import Sequence

from .types import Evidence, Sentence


def _numbered(sentences: Sequence[Sentence], confidence: str) -> str:
    lines = []
    for i, s in enumerate(sentences, start=1):
        cites = "; ".join(dict.fromkeys(e.citation for e in s.citations))
        lines.append(f"{i}. {s.text} [{cites}]")
    lines.append(f"Confidence: {confidence}")
    return "\n".join(lines)


def _qa_contract(sentences: Sequence[Sentence], confidence: str) -> str:
    lines = ["ANSWER:"]
    for i, s in enumerate(sentences, start=1):
        e = s.citations[0]
        pdf = e.fields.get("pdf") or e.doc_id
        page = e.fields.get("page")
        lines.append(f"{i}. {s.text} ({pdf}, p{page if page is not None else '?'}, "
                     f"{e.chunk_id})")
    lines.append(f"CONFIDENCE: {confidence}")
    return "\n".join(lines)


STYLES = {"numbered": _numbered, "qa-contract": _qa_contract}


def render(sentences: Sequence[Sentence], confidence: str, style: str = "numbered") -> str:
    return STYLES[style](sentences, confidence)


def render_facts(facts: Sequence[Evidence]) -> str:
    """``FACTS:`` then ``- "<quote>" (pdf="<name>", page=<int>, chunk_id="<id>",
    score=<float>)`` per phase A fact (a passage without a page cites its document)."""
    lines = ["FACTS:"]
    for e in facts:
        quote = " ".join(e.text.split()).replace('"', "'")
        pdf = e.fields.get("pdf") or e.doc_id
        page = e.fields.get("page")
        where = f"pdf={json.dumps(pdf, ensure_ascii=False)}" + (
            f", page={page}" if isinstance(page, int) else "")
        lines.append(f'- "{quote}" ({where}, chunk_id="{e.chunk_id}", '
                     f"score={e.relevance:.4f})")
    return "\n".join(lines)
