"""Writing golden files: pinned to the spec version, stable and readable in a diff.

Each kind has one file, ``goldens/<kind>.json``: ``{"spec_version", "note", "cases": {id:
output}}``. Cases are sorted by id, fields keep the order the engine writes them in, and
any value that fits on one line of about 100 characters stays on one line (one ranked
result, one short list), so a changed golden shows up in version control as the few lines
that changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from .suite import GOLDEN_KINDS, SPEC_VERSION

NOTE = ("Expected outputs of the conformance cases. Written by `ragd conformance update` "
        "only; do not edit by hand.")
_WIDTH = 100


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def dumps(value: Any, indent: int = 0) -> str:
    """JSON in the mapping's own key order; containers that fit in the width stay on one line."""
    flat = _compact(value)
    if not isinstance(value, (dict, list)) or len(flat) + indent <= _WIDTH or not value:
        return flat
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dumps(value[k], indent + 2)}"
                 for k in value]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    items = [f"{inner}{dumps(v, indent + 2)}" for v in value]
    return "[\n" + ",\n".join(items) + f"\n{pad}]"


def golden_text(cases: Mapping[str, Any]) -> str:
    """The text of one golden file for ``cases`` (id → expected output)."""
    ordered = {key: cases[key] for key in sorted(cases)}
    return dumps({"spec_version": SPEC_VERSION, "note": NOTE, "cases": ordered}) + "\n"


def write_goldens(root: Path, goldens: Mapping[str, Mapping[str, Any]]) -> list[Path]:
    """Write ``goldens/<kind>.json`` for every kind whose text changed; return those paths."""
    written: list[Path] = []
    folder = Path(root) / "goldens"
    folder.mkdir(parents=True, exist_ok=True)
    for kind in GOLDEN_KINDS:
        path = folder / f"{kind}.json"
        text = golden_text(goldens.get(kind, {}))
        if path.exists() and path.read_text("utf-8") == text:
            continue
        path.write_text(text, "utf-8")
        written.append(path)
    return written
