"""The service: REST (FastAPI), MCP (the official SDK) and a web page, thin over the library.

:mod:`ragd.service.ops` holds the operations and their JSON (shared with the CLI's
``--json``) and imports no web framework; :mod:`ragd.service.rest` and
:mod:`ragd.service.mcp` need the ``service`` extra (``pip install 'ragd[service]'``).
"""

from .ops import Engine, NotFoundError

__all__ = ["Engine", "NotFoundError"]
