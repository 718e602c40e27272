"""Context text formats: how assembled evidence is shown to a decoder or a reader.

``plain``: each passage as ``[n] citation`` then its text. ``evidence-blocks``:
``EVIDENCE_START``, then per passage a header from its citation fields
(``[n] (<court>, <year>, <title>)`` when it has a court, else
``[n] (<act>, Section <section>, <year>)``), its text and a ``SOURCE: <source_type>``
line, then ``EVIDENCE_END``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from ..registry import Registry
from ..types import Candidate

Format = Callable[[Sequence[Candidate], Sequence[str], Callable[[Candidate], Mapping[str, Any]],
                   Callable[[Candidate], str]], str]
FORMATS: Registry[Format] = Registry("context format")


@FORMATS.register("plain")
def plain(used, texts, fields, cite) -> str:
    return "\n\n".join(f"[{i}] {cite(c)}\n{t}" for i, (c, t) in enumerate(zip(used, texts), 1))


@FORMATS.register("evidence-blocks")
def evidence_blocks(used, texts, fields, cite) -> str:
    lines = ["EVIDENCE_START"]
    for i, (c, text) in enumerate(zip(used, texts), start=1):
        f = fields(c)
        if f.get("court"):
            head = [f.get("court"), f.get("year"), c.title or f.get("citation")]
        else:
            section = f"Section {f['section']}{f.get('subsection') or ''}" \
                if f.get("section") else None
            head = [f.get("act"), section, f.get("year")]
        lines.append(f"[{i}] (" + ", ".join(str(h) for h in head if h not in (None, "")) + ")")
        lines.append(" ".join(text.split()))
        lines.append(f"SOURCE: {f.get('source_type') or 'Document'}")
        lines.append("")
    lines.append("EVIDENCE_END")
    return "\n".join(lines)
