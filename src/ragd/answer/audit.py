"""The audit log: one JSON line per answered or refused question, under the ragd home.

What was asked, how many chunks were retrieved, accepted, rejected and used, the token
count, the outcome and its reason, the timings. Never an API key. The file rotates when
it passes ``max_bytes`` (the old one becomes ``answers.jsonl.1``).
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .types import Answer

LOG_NAME = "answers.jsonl"
_LOCK = threading.Lock()


def record(answer: Answer) -> dict[str, Any]:
    t = answer.trace
    return {"timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "profile": answer.profile, "query": answer.question, "status": answer.status,
            "refusal_reason": answer.refusal_reason, "refused_by": t.refused_by or None,
            "retrieved": t.retrieved,
            "accepted": t.accepted, "rejected": len(t.rejected), "used": t.used,
            "tokens": t.context_tokens, "sentences": len(answer.sentences),
            "confidence": answer.confidence, "path": t.path,
            "fallback_used": t.fallback_used,
            "timings_ms": {k: round(v, 2) for k, v in t.timings_ms.items()}}


def append(folder: Path, answer: Answer, max_bytes: int = 10 * 1024 * 1024) -> Path:
    """Append the answer's record to ``folder/answers.jsonl`` (rotating past ``max_bytes``)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOG_NAME
    line = json.dumps(record(answer), ensure_ascii=False) + "\n"
    with _LOCK:
        if path.exists() and path.stat().st_size + len(line) > max_bytes:
            os.replace(path, path.with_name(LOG_NAME + ".1"))
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line)
    return path
