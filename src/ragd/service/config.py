"""The server's settings, its API key, and where it may listen.

Single tenant (canonical spec §0): one API key, from ``$RAGD_API_KEY`` or a file
(``--api-key-file`` or ``$RAGD_API_KEY_FILE``), that every ``/v1`` route and ``/mcp``
require as ``Authorization: Bearer <key>``. Without a key the server binds to loopback
only. The key is never written to the config that workers receive, nor to any log: a
worker reads it again from the same environment variable or file.
"""

from __future__ import annotations

import ipaddress
import json
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from ..errors import ConfigError

KEY_ENV = "RAGD_API_KEY"
KEY_FILE_ENV = "RAGD_API_KEY_FILE"
CONFIG_ENV = "RAGD_SERVICE_CONFIG"
MIN_KEY_CHARS = 16


@dataclass(frozen=True)
class ServiceConfig:
    """Everything a server process needs besides the key (which it reads itself)."""

    store: str | None = None
    collection: str | None = None
    profile: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    workers: int = 1
    mcp: bool = False
    api_key_file: str | None = None
    llm_url: str | None = None
    llm_model: str | None = None
    allow_llm: tuple[str, ...] = ()         # endpoints a request may name besides llm_url
    max_body_bytes: int = 1 << 20          # JSON requests
    max_upload_bytes: int = 64 << 20       # POST /v1/ingest (multipart or JSON)
    request_timeout: float = 120.0         # seconds; then 504, the work is abandoned
    max_files: int = 1000                  # files in one upload

    def to_env(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "ServiceConfig":
        environ = dict(os.environ) if environ is None else environ
        raw = environ.get(CONFIG_ENV)
        if not raw:
            return cls()
        data = json.loads(raw)
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["allow_llm"] = tuple(values.get("allow_llm") or ())
        return cls(**values)

    def settings_overrides(self) -> dict[str, Any]:
        return {"store": self.store, "collection": self.collection, "profile": self.profile}


def read_api_key(config: ServiceConfig, environ: dict[str, str] | None = None) -> str | None:
    """The API key: ``$RAGD_API_KEY``, else the key file (``--api-key-file`` or
    ``$RAGD_API_KEY_FILE``), stripped; None when neither is set."""
    environ = dict(os.environ) if environ is None else environ
    key = environ.get(KEY_ENV, "").strip()
    path = config.api_key_file or environ.get(KEY_FILE_ENV, "").strip() or None
    if not key and path:
        try:
            key = Path(path).expanduser().read_text("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the API key file {path}: "
                              f"{getattr(exc, 'strerror', None) or exc}") from None
        if not key:
            raise ConfigError(f"the API key file {path} is empty")
    if key and any(ch.isspace() for ch in key):
        raise ConfigError("the API key must not contain whitespace")
    return key or None


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_binding(host: str, key: str | None) -> str:
    """Refuse a non-loopback host without a key; else a line saying how clients get in."""
    if key is None:
        if not is_loopback(host):
            raise ConfigError(
                f"no API key configured: refusing to listen on {host}; set ${KEY_ENV} (or "
                f"--api-key-file), or listen on 127.0.0.1")
        return (f"no API key configured: listening on loopback ({host}) only, /v1 is open to "
                "local clients")
    note = "" if len(key) >= MIN_KEY_CHARS else \
        f" (warning: it is shorter than {MIN_KEY_CHARS} characters)"
    return f"API key required on /v1 and /mcp (Authorization: Bearer ...){note}"
