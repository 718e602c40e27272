"""``ragd serve``: the REST API, the web page and (``--mcp``) MCP over HTTP."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ..errors import UsageError
from .common import add_llm_defaults, err, positive_int


def _config(args: argparse.Namespace) -> Any:
    from ..service.config import ServiceConfig

    return ServiceConfig(
        store=getattr(args, "store", None), collection=getattr(args, "collection", None),
        profile=getattr(args, "profile", None), host=args.host, port=args.port,
        workers=args.workers, mcp=args.mcp, api_key_file=args.api_key_file,
        llm_url=args.llm, llm_model=args.model, allow_llm=tuple(args.allow_llm or ()),
        max_upload_bytes=int(args.max_upload_mb * 1024 * 1024),
        request_timeout=args.request_timeout)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from ..service.config import CONFIG_ENV, check_binding, read_api_key
        from ..service.rest import create_app
    except ImportError as exc:
        raise UsageError(f"ragd serve needs the service extra (pip install 'ragd[service]'): "
                         f"{exc}") from None
    config = _config(args)
    key = read_api_key(config)
    err.print(check_binding(config.host, key))
    where = f"http://{config.host}:{config.port}"
    err.print(f"ragd {where}/ (page), {where}/docs (API)"
              + (f", {where}/mcp (MCP)" if config.mcp else ""))
    if config.workers > 1:
        os.environ[CONFIG_ENV] = config.to_env()
        uvicorn.run("ragd.service.rest:app_from_env", factory=True, host=config.host,
                    port=config.port, workers=config.workers, log_level=args.log_level)
    else:
        uvicorn.run(create_app(config, api_key=key), host=config.host, port=config.port,
                    log_level=args.log_level)
    return 0


def add_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("serve", parents=[common], help="the REST API, web page and MCP over HTTP",
                       description="Serve the REST API (/v1, OpenAPI at /openapi.json, docs at "
                       "/docs), the web page (/) and, with --mcp, MCP at /mcp. Set "
                       "$RAGD_API_KEY (or --api-key-file) to require Authorization: Bearer "
                       "<key>; without a key only loopback addresses are allowed.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="worker processes over the same store (default 1)")
    p.add_argument("--mcp", action="store_true", help="also serve MCP (streamable HTTP) at /mcp")
    p.add_argument("--api-key-file", metavar="FILE",
                   help="read the API key from FILE (default $RAGD_API_KEY, $RAGD_API_KEY_FILE)")
    add_llm_defaults(p, "a request")
    p.add_argument("--max-upload-mb", type=float, default=64.0,
                   help="largest POST /v1/ingest body (default 64)")
    p.add_argument("--request-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="abandon a request after this long with 504 (default 120)")
    p.add_argument("--log-level", default="info",
                   choices=("critical", "error", "warning", "info", "debug"))
    p.set_defaults(func=cmd_serve)
