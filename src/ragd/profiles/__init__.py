"""Profiles: one TOML file per contract the engine serves (default, ear, rules, legal-in,
pharma-qa), merged over the defaults and checked on load. See :mod:`.profile`."""

from .profile import (BUILTIN, SCHEMA, Profile, builtin_dir, builtin_names, load_profile,
                      merge)

__all__ = ["BUILTIN", "SCHEMA", "Profile", "builtin_dir", "builtin_names", "load_profile",
           "merge"]
