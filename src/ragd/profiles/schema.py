"""What a profile may say: every key, its type and allowed values, checked on load.

The schema is data (nested dicts of :class:`Key`); :func:`check` walks a parsed
TOML table against it and raises ConfigError naming the file, the dotted key and
what is allowed. Names of plug-ins (chunkers, citation schemes, fusion methods)
are checked against their registries, so a plug-in registered from outside the
package is a valid name too.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..errors import ConfigError

Check = Callable[[Any], str | None]
"""Returns None when the value is fine, else what was expected (for the message)."""


@dataclass(frozen=True)
class Key:
    """One leaf setting: a check and a description of what it accepts."""

    check: Check
    doc: str = ""


@dataclass(frozen=True)
class AnyTable:
    """A table whose keys are free (e.g. ``ingest.metadata.<field>``), each value per ``value``."""

    value: "Mapping[str, Any] | Key"
    doc: str = ""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def integer(minimum: int | None = None, maximum: int | None = None) -> Check:
    def check(v: Any) -> str | None:
        if not _is_int(v) or (minimum is not None and v < minimum) or (
                maximum is not None and v > maximum):
            bounds = [f">= {minimum}" if minimum is not None else "",
                      f"<= {maximum}" if maximum is not None else ""]
            return "an integer " + " and ".join(b for b in bounds if b)
        return None
    return check


def number(minimum: float | None = None, maximum: float | None = None) -> Check:
    def check(v: Any) -> str | None:
        if not _is_number(v) or (minimum is not None and v < minimum) or (
                maximum is not None and v > maximum):
            bounds = [f">= {minimum}" if minimum is not None else "",
                      f"<= {maximum}" if maximum is not None else ""]
            return "a number " + " and ".join(b for b in bounds if b)
        return None
    return check


def string(nonempty: bool = False) -> Check:
    def check(v: Any) -> str | None:
        if not isinstance(v, str) or (nonempty and not v.strip()):
            return "a non-empty string" if nonempty else "a string"
        return None
    return check


def boolean() -> Check:
    return lambda v: None if isinstance(v, bool) else "true or false"


def choice(*allowed: Any) -> Check:
    def check(v: Any) -> str | None:
        return None if any(v == a and type(v) is type(a) for a in allowed) else (
            "one of " + ", ".join(repr(a) for a in allowed))
    return check


def registered(names: Callable[[], tuple[str, ...]], extra: tuple[str, ...] = ()) -> Check:
    """A name registered in a registry (looked up when checked, so plug-ins count)."""
    def check(v: Any) -> str | None:
        known = tuple(extra) + tuple(names())
        return None if isinstance(v, str) and v in known else (
            "one of " + ", ".join(repr(k) for k in known))
    return check


def either(*checks: Check) -> Check:
    def check(v: Any) -> str | None:
        wants = []
        for c in checks:
            why = c(v)
            if why is None:
                return None
            wants.append(why)
        return " or ".join(wants)
    return check


def list_of(item: Check) -> Check:
    def check(v: Any) -> str | None:
        if not isinstance(v, list):
            return "a list"
        for x in v:
            why = item(x)
            if why is not None:
                return f"a list of {why}s"
        return None
    return check


def scalar() -> Check:
    def check(v: Any) -> str | None:
        ok = isinstance(v, (str, int, float, bool, _dt.date))
        return None if ok else "a string, number, boolean or date"
    return check


def table(value: Check = scalar()) -> Check:
    """Any table whose values pass ``value`` (free keys, for options)."""
    def check(v: Any) -> str | None:
        if not isinstance(v, dict):
            return "a table"
        for x in v.values():
            why = value(x)
            if why is not None:
                return f"a table of {why}s"
        return None
    return check


def check(data: Mapping[str, Any], schema: Mapping[str, Any], where: str,
          prefix: str = "") -> None:
    """ConfigError for the first unknown key, wrong type or value out of range in ``data``."""
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        spec = schema.get(key)
        if spec is None:
            allowed = ", ".join(sorted(schema)) or "none"
            raise ConfigError(f"{where}: unknown key {dotted!r} (allowed here: {allowed})")
        _check_value(value, spec, where, dotted)


def _check_value(value: Any, spec: Any, where: str, dotted: str) -> None:
    if isinstance(spec, Key):
        why = spec.check(value)
        if why is not None:
            raise ConfigError(f"{where}: {dotted} must be {why}, got {value!r}")
    elif isinstance(spec, AnyTable):
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {dotted} must be a table, got {value!r}")
        for sub, item in value.items():
            _check_value(item, spec.value, where, f"{dotted}.{sub}")
    else:  # a nested table with known keys
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {dotted} must be a table, got {value!r}")
        check(value, spec, where, dotted + ".")


def rules(keys: Mapping[str, Check]) -> Check:
    """A list of tables, each with exactly ``keys`` (checked by their checks)."""
    def check(v: Any) -> str | None:
        want = "a list of tables with " + ", ".join(sorted(keys))
        if not isinstance(v, list):
            return want
        for item in v:
            if not isinstance(item, dict) or set(item) != set(keys):
                return want
            for k, c in keys.items():
                if c(item[k]) is not None:
                    return want + f" ({k}: {c(item[k])})"
        return None
    return check
