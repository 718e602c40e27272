"""What every command module of the ``ragd`` CLI shares: consoles, shared options, settings."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console

from ..collection import Collection, open_collection
from ..config import Settings, load_settings
from ..errors import UsageError
from ..stores import Store, open_store

out = Console(highlight=False, soft_wrap=True, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

SHARED = ("store", "collection", "profile")


def shared_options(top: bool) -> argparse.ArgumentParser:
    """--store, --collection, --profile: on ``ragd`` itself (``top``) and on every command.

    A command's parser uses SUPPRESS as default, so an option given before the command
    (``ragd --store X ingest``) is not overwritten by the command's absent one: both
    positions parse the same.
    """
    default = None if top else argparse.SUPPRESS
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--store", default=default,
                   help="store location: a directory, a .sqlite file or a postgresql:// URL "
                        "(default: $RAGD_HOME or ./.ragd)")
    p.add_argument("--collection", default=default, help="collection name (default: default)")
    p.add_argument("--profile", default=default, metavar="NAME|PATH",
                   help="profile: default, ear, rules, legal-in, pharma-qa, or a .toml file "
                        "(default: the collection's own)")
    return p


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def parse_meta(items: Sequence[str] | None) -> dict[str, Any]:
    """``k=v`` pairs; a value that parses as a JSON scalar (2, true, null) is typed, else text."""
    meta: dict[str, Any] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--meta expects key=value, got {item!r}")
        try:
            value = json.loads(raw)
            if isinstance(value, (dict, list)):
                value = raw
        except ValueError:
            value = raw
        meta[key.strip()] = value
    return meta


def settings_of(args: argparse.Namespace) -> Settings:
    return load_settings({"store": getattr(args, "store", None),
                          "collection": getattr(args, "collection", None),
                          "embedder": getattr(args, "embedder", None),
                          "profile": getattr(args, "profile", None)})


def existing_store(settings: Settings) -> Store:
    location = settings.store_location
    if "://" not in location and not Path(location).exists():
        raise UsageError(f"no ragd store at {location}; run `ragd ingest PATH` first "
                         "(or name one with --store)")
    return open_store(location)


def existing_collection(settings: Settings) -> Collection:
    """The settings' collection, under its own profile (or the one asked for, which must
    be the same)."""
    return open_collection(existing_store(settings), settings.collection,
                           profile=settings.profile or None)
