"""Settings: defaults < ragd.toml < environment < call arguments.

``ragd.toml`` is read from the current directory, else from the ragd home.
The home is ``$RAGD_HOME`` or ``./.ragd``; the store defaults to the home.
``profile`` names the profile of new collections (an existing one keeps its
own); ``[chunking]`` and ``[retrieval]`` in ragd.toml, when present, override
the profile's chunk policy and plan.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Mapping

from .errors import ConfigError, UsageError
from .types import ChunkPolicy

CONFIG_FILENAME = "ragd.toml"
DEFAULT_MAX_DOCUMENT_BYTES = 16 * 1024 * 1024
"""The default limit on one document's bytes (settings and the loaders' own default)."""

_ENV = {"RAGD_STORE": "store", "RAGD_COLLECTION": "collection", "RAGD_EMBEDDER": "embedder",
        "RAGD_PROFILE": "profile"}


@dataclass(frozen=True)
class Settings:
    """Everything a ragd command needs to know besides its own arguments."""

    home: Path = Path(".ragd")
    store: str = ""
    collection: str = "default"
    embedder: str = ""                  # "": the profile's [embedding] model
    max_document_bytes: int = DEFAULT_MAX_DOCUMENT_BYTES
    profile: str = ""
    chunking: ChunkPolicy | None = None
    k: int | None = None
    mode: str | None = None
    fusion: str | None = None

    @property
    def store_location(self) -> str:
        return self.store or str(self.home)


def _from_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read settings: {exc}") from exc
    values: dict[str, Any] = dict(data.get("ragd", {}))
    if "max_document_mb" in values:
        values["max_document_bytes"] = megabytes(values.pop("max_document_mb"),
                                                 f"{path}: [ragd] max_document_mb")
    if "chunking" in data:
        try:
            values["chunking"] = ChunkPolicy(**data["chunking"])
        except TypeError as exc:
            raise ConfigError(f"{path}: [chunking]: {exc}") from exc
        except UsageError as exc:
            raise ConfigError(f"{path}: [chunking]: {exc}") from exc
    for key in ("k", "mode", "fusion"):
        if key in data.get("retrieval", {}):
            values[key] = data["retrieval"][key]
    known = {f.name for f in fields(Settings)}
    unknown = set(values) - known
    if unknown:
        raise ConfigError(f"{path}: unknown settings: {', '.join(sorted(unknown))}")
    k = values.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        raise ConfigError(f"{path}: [retrieval] k must be a whole number of 1 or more, "
                          f"got {k!r}")
    for key in ("store", "collection", "embedder", "profile", "mode", "fusion"):
        if key in values and not isinstance(values[key], str):
            raise ConfigError(f"{path}: {key} must be text, got {values[key]!r}")
    return values


def megabytes(value: Any, what: str) -> int:
    """A size in MB (a number over 0) as bytes, or ConfigError naming ``what``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not number > 0 or number == float("inf"):
        raise ConfigError(f"{what} must be a number of megabytes over 0, got {value!r}")
    return max(1, int(number * 1024 * 1024))


def load_settings(overrides: Mapping[str, Any] | None = None, *,
                  environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> Settings:
    """Settings from every source, later ones winning; ``None`` overrides are ignored."""
    environ = os.environ if environ is None else environ
    cwd = cwd or Path.cwd()
    home = Path(environ["RAGD_HOME"]).expanduser() if environ.get("RAGD_HOME") else cwd / ".ragd"
    settings = Settings(home=home)
    for candidate in (cwd / CONFIG_FILENAME, home / CONFIG_FILENAME):
        if candidate.is_file():
            settings = replace(settings, **_from_toml(candidate))
            break
    env_values = {attr: environ[var] for var, attr in _ENV.items() if environ.get(var)}
    settings = replace(settings, **env_values)
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    return replace(settings, **given)
