"""``ragd profiles``: the built-in profiles, and one profile resolved (defaults merged)."""

from __future__ import annotations

import argparse
from typing import Any

from rich.markup import escape
from rich.table import Table

from ..profiles import builtin_names, load_profile
from ..profiles.toml_text import to_toml
from ..service.ops import profiles_json
from .common import out


def cmd_profiles(args: argparse.Namespace) -> int:
    if args.json:
        out.print_json(data=profiles_json())
        return 0
    profiles = [load_profile(name) for name in builtin_names()]
    table = Table(title="ragd profiles (ragd profiles show NAME)")
    table.add_column("name")
    table.add_column("description")
    for p in profiles:
        table.add_row(p.name, p.description)
    out.print(table)
    return 0


def cmd_profiles_show(args: argparse.Namespace) -> int:
    profile = load_profile(args.name)
    if args.json:
        out.print_json(data={"name": profile.name, "source": profile.source,
                             "hash": profile.content_hash, "settings": profile.as_dict()})
        return 0
    out.print(f"# profile {escape(profile.name)} ({escape(profile.source)}), "
              f"sha256 {profile.content_hash[:16]}", markup=False)
    out.print(to_toml(profile.as_dict()), markup=False)
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("profiles", help="list the built-in profiles; `profiles show NAME`")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_profiles)
    group = p.add_subparsers(dest="profiles_command", metavar="COMMAND")
    s = group.add_parser("show", help="one profile resolved, every setting")
    s.add_argument("name", metavar="NAME|PATH")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_profiles_show)
