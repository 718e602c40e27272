"""Citation schemes: how a profile's documents are referred to and cited.

A scheme finds the references a query names (``15 CFR 736.2(b)``), normalises
an id, renders a passage's citation and says which stored field identifies a
section. Profiles pick one by name; retrieval pins the chunks of the sections a
query names only when the plan's scheme finds references. One module each.
"""

from .base import SCHEMES, CitationScheme, get_scheme, register_scheme
from . import cfr as _cfr  # noqa: F401  (registers "cfr")
from . import heading as _heading  # noqa: F401  (registers "heading")
from . import statute as _statute  # noqa: F401  (registers "statute")
from . import pdf_page as _pdf_page  # noqa: F401  (registers "pdf_page")

__all__ = ["SCHEMES", "CitationScheme", "get_scheme", "register_scheme"]
