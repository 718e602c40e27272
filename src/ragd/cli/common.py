"""What every command module of the ``ragd`` CLI shares: consoles, shared options, settings."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any, Sequence

from rich.console import Console

from ..collection import Collection, open_collection
from ..config import Settings, load_settings, megabytes
from ..embedding import Embedder, make_embedder
from ..errors import ConfigError, UsageError
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


def add_llm_defaults(p: argparse.ArgumentParser, asker: str) -> None:
    """``--llm``, ``--model`` and ``--allow-llm`` of a server (``ragd serve``, ``ragd mcp``):
    the default endpoint of ``asker`` (what asks: "ask", "the ask tool") and the only
    other endpoints a request may name."""
    p.add_argument("--llm", metavar="URL", help=f"default OpenAI-compatible endpoint for {asker} "
                   "(default: none, the offline extractive path)")
    p.add_argument("--model", help="default model name for --llm")
    p.add_argument("--allow-llm", action="append", metavar="URL",
                   help=f"an endpoint {asker}'s `llm` may name besides --llm and none "
                        "(repeatable; no other URL is ever called)")


def positive_int(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def megabytes_arg(text: str) -> int:
    """An argparse type: a size in MB over 0 (``0.5`` allowed), as bytes."""
    try:
        return megabytes(text, "the size")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(f"expected a number of megabytes over 0, "
                                         f"got {text!r}") from exc


EMBEDDER_FORMS = ("a name (minilm, openai) or a JSON spec, e.g. "
                  '\'{"kind": "toy", "vocabulary": ["word", ...]}\'')


def embedder_of(spec: str, where: str = "--embedder") -> Embedder:
    """The embedder ``spec`` names, or one ConfigError saying what is wrong with it and what
    is accepted (a missing constructor argument is named as a missing setting)."""
    try:
        return make_embedder(spec)
    except ConfigError as exc:
        text = str(exc)
        missing = re.search(r"missing \d+ required (?:positional |keyword-only )?"
                            r"arguments?: (.+)$", text)
        if missing:
            text = (f"embedder {spec.strip()!r} is missing the setting(s) "
                    f"{missing.group(1).replace(' and ', ', ')}")
        raise ConfigError(f"{where}: {text}; give {EMBEDDER_FORMS}") from None


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
