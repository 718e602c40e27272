"""The web page: one self-contained HTML file in the package (inline CSS and JS, no CDN),
served at ``/`` under a Content-Security-Policy that allows exactly its own inline script
and style (by sha256) and requests to this server only."""

from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from importlib import resources

_BLOCK = re.compile(r"<(script|style)>(.*?)</\1>", re.S)


@lru_cache(maxsize=1)
def page_html() -> str:
    return (resources.files("ragd.service") / "static" / "index.html").read_text("utf-8")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


@lru_cache(maxsize=1)
def page_csp() -> str:
    scripts = [_digest(body) for kind, body in _BLOCK.findall(page_html()) if kind == "script"]
    styles = [_digest(body) for kind, body in _BLOCK.findall(page_html()) if kind == "style"]
    return ("default-src 'none'; "
            f"script-src {' '.join(scripts) or chr(39) + 'none' + chr(39)}; "
            f"style-src {' '.join(styles) or chr(39) + 'none' + chr(39)}; "
            "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
            "frame-ancestors 'none'")
