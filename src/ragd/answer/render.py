"""Rendering an answer as text: numbered cited sentences and the confidence.

``numbered`` (default): ``1. <sentence> [<citation>]`` lines and ``Confidence: High``.
``qa-contract`` (the pharma QA contract): ``ANSWER:``, numbered sentences each with
``(pdf, p<page>, <chunk_id>)``, and a final ``CONFIDENCE: High|Medium|Low``.
"""

from __future__ import annotations

from typing import Sequence

from .types import Sentence


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
