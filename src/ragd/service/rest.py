"""The REST API (FastAPI): a thin adapter over :class:`ragd.service.ops.Engine`.

Every ``/v1`` route needs the API key when one is configured; ``/healthz``, the page at
``/``, ``/openapi.json`` and ``/docs`` do not. Library work runs on worker threads under
the request deadline; errors come back as ``{"error": {"type", "message"}}``. With
``mcp``, the MCP server is served at ``/mcp`` (streamable HTTP) behind the same key.
"""

from __future__ import annotations

import json
import logging
import tempfile
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi import Path as FastPath
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.routing import Route

from .. import __version__
from ..config import load_settings
from ..errors import RagdError, UsageError
from ..profiles import builtin_names
from ..retrieval.fusion import FUSION
from . import models as m
from .config import ServiceConfig, read_api_key
from .errors import ServiceError, describe, error_body
from .http import BodyLimit, SecurityHeaders, Unauthorized, blocking, key_matches
from .ops import Engine
from .page import page_csp, page_html
from .uploads import save_upload, upload_source

log = logging.getLogger("ragd.service")
_UNSET: Any = object()
ERRORS = {s: {"model": m.ErrorResponse, "description": d} for s, d in (
    (400, "bad input"), (401, "missing or wrong API key"), (404, "unknown collection or "
    "document"), (409, "profile or embedding model mismatch"), (413, "request too large"),
    (422, "invalid request"), (504, "the request took too long"))}
_TYPES = {400: "BadRequest", 401: "Unauthorized", 404: "NotFound", 405: "MethodNotAllowed",
          413: "RequestTooLarge", 415: "UnsupportedMediaType"}


def _problems(errors: list[dict[str, Any]]) -> str:
    parts = []
    for e in errors[:5]:
        if e.get("type") == "json_invalid":
            parts.append(f"body: invalid JSON ({e.get('ctx', {}).get('error', 'parse error')})")
            continue
        where = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return "; ".join(parts) + more


def _install_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(error_body("ValidationError", _problems(list(exc.errors()))), 422)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse(error_body(_TYPES.get(exc.status_code, "HTTPError"), str(exc.detail)),
                            exc.status_code, headers=exc.headers)

    @app.exception_handler(RagdError)
    @app.exception_handler(ServiceError)
    async def known(_: Request, exc: Exception) -> JSONResponse:
        status, body = describe(exc)
        return JSONResponse(body, status)

    @app.exception_handler(Exception)
    async def anything(_: Request, exc: Exception) -> JSONResponse:
        status, body = describe(exc)  # logged there, with the traceback
        return JSONResponse(body, status)


def _enums(schema: dict[str, Any], choices: dict[str, list[str]]) -> None:
    """Name the allowed values of ``profile`` and ``fusion`` wherever a model has them (they
    depend on this server: its profiles, the registered fusion methods)."""
    for model in schema.get("components", {}).get("schemas", {}).values():
        for name, values in choices.items():
            prop = model.get("properties", {}).get(name)
            if prop is not None:
                nullable = "anyOf" in prop
                for key in ("anyOf", "type", "minLength", "maxLength"):
                    prop.pop(key, None)
                prop["enum"] = [*values, None] if nullable else list(values)


def _openapi(app: FastAPI, choices: dict[str, list[str]]) -> Callable[[], dict[str, Any]]:
    """The generated document, plus the two bodies POST /v1/ingest takes."""
    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description,
                          routes=app.routes)
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        ingest = m.IngestRequest.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(ingest.pop("$defs", {}))
        schemas["IngestRequest"] = ingest
        schemas["IngestUpload"] = {
            "type": "object", "required": ["files"], "additionalProperties": False,
            "properties": {
                "files": {"type": "array", "minItems": 1,
                          "items": {"type": "string", "format": "binary"},
                          "description": "documents (.md, .txt, .jsonl, .jsonl.gz); a "
                                         "file's name is its doc_id"},
                "collection": {"type": "string", "minLength": 1, "maxLength": 200},
                "profile": {"type": "string"},
                "tag": {"type": "array", "items": {"type": "string", "minLength": 1,
                                                   "maxLength": 200}},
                "metadata": {"type": "object", "description": "added to every document"}}}
        op = doc["paths"]["/v1/ingest"]["post"]
        op["requestBody"] = {"required": True, "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/IngestRequest"}},
            "multipart/form-data": {
                "schema": {"$ref": "#/components/schemas/IngestUpload"},
                "encoding": {"metadata": {"contentType": "application/json"}}}}}
        _enums(doc, choices)
        app.openapi_schema = doc
        return doc
    return build


def create_app(config: ServiceConfig | None = None, *, engine: Engine | None = None,
               api_key: str | None = _UNSET) -> FastAPI:
    """The REST app. ``engine`` defaults to one over the config's store (closed when the
    app stops; one passed in stays open); ``api_key`` to the environment's
    (``$RAGD_API_KEY`` or the key file)."""
    config = config or ServiceConfig.from_env()
    key = read_api_key(config) if api_key is _UNSET else api_key
    owned = engine is None
    engine = engine or Engine(load_settings(config.settings_overrides()),
                              llm_url=config.llm_url, llm_model=config.llm_model,
                              llm_allowed=config.allow_llm)
    timeout = config.request_timeout
    mcp_server = None
    if config.mcp:
        from .mcp import build_mcp

        mcp_server = build_mcp(engine)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            try:
                yield
            finally:
                if owned:
                    engine.close()

    app = FastAPI(title="ragd", version=__version__, lifespan=lifespan,
                  description="Cited retrieval and answers over your documents: the REST "
                  "adapter of the ragd library (the same JSON as `ragd search --json` and "
                  "`ragd ask --json`).")
    app.state.engine = engine
    app.state.config = config
    _install_handlers(app)
    bearer = HTTPBearer(auto_error=False, description="the server's API key")

    async def require_key(creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
        if creds is None or not key_matches(f"Bearer {creds.credentials}", key or ""):
            raise Unauthorized()

    allowed = set(builtin_names()) | ({config.profile} if config.profile else set())
    choices = {"profile": sorted(allowed), "fusion": list(FUSION.names())}
    if engine.llm_allowed is not None:
        choices["llm"] = ["none", *engine.llm_allowed]
    app.openapi = _openapi(app, choices)  # type: ignore[method-assign]

    def profile_of(name: str | None) -> str | None:
        if name is not None and name not in allowed:
            raise UsageError(f"profile {name!r} is not served here; choose one of "
                             f"{', '.join(sorted(allowed))}")
        return name

    async def run(fn: Callable[[], Any], status: int = 200) -> JSONResponse:
        try:
            return JSONResponse(await blocking(fn, timeout), status)
        except Exception as exc:  # noqa: BLE001 - every error becomes its JSON
            code, body = describe(exc)
            return JSONResponse(body, code)

    @app.get("/", include_in_schema=False)
    async def page() -> HTMLResponse:
        return HTMLResponse(page_html())

    @app.get("/healthz", response_model=m.Health, tags=["service"])
    async def healthz() -> dict[str, Any]:
        return {"status": "ok", "version": __version__, "auth": key is not None,
                "mcp": mcp_server is not None}

    v1 = APIRouter(prefix="/v1", responses=ERRORS,  # type: ignore[arg-type]
                   dependencies=[Depends(require_key)] if key is not None else [])
    Coll = Query(None, min_length=1, max_length=200,
                 description="collection (default: the server's)")

    @v1.post("/search", response_model=m.SearchResponse, tags=["retrieval"])
    async def search(body: m.SearchRequest) -> JSONResponse:
        """Ranked passages with citations: the JSON of `ragd search --json`."""
        return await run(lambda: engine.search(
            body.query, collection=body.collection, profile=profile_of(body.profile), k=body.k,
            mode=body.mode, fusion=body.fusion, tags_any=body.tags_any, tags_all=body.tags_all,
            metadata=body.metadata, context_key=body.context_key))

    @v1.post("/ask", response_model=m.AnswerResponse, tags=["retrieval"])
    async def ask(body: m.AskRequest) -> JSONResponse:
        """A cited answer, or the profile's refusal: the JSON of `ragd ask --json`."""
        return await run(lambda: engine.ask(
            body.question, collection=body.collection, profile=profile_of(body.profile),
            llm_url=body.llm, llm_model=body.model))

    @v1.post("/ingest", response_model=m.IngestResponse, tags=["documents"])
    async def ingest(request: Request) -> JSONResponse:
        """Documents as JSON (`{"documents": [{doc_id, text, ...}]}`) or files as
        multipart/form-data (`files`, with `collection`, `profile`, `tag`, `metadata`):
        the ingest report of `ragd ingest --json`. Bad documents are reported, not fatal."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "multipart/form-data":
            return await _ingest_upload(request)
        if kind != "application/json":
            raise HTTPException(415, "send application/json documents or "
                                "multipart/form-data files")
        try:
            body = m.IngestRequest.model_validate(json.loads(await request.body()))
        except (ValueError, UnicodeDecodeError) as exc:
            errors = exc.errors() if isinstance(exc, ValidationError) else \
                [{"loc": ("body",), "msg": f"invalid JSON: {exc}"}]
            raise RequestValidationError(errors) from None
        records = [d.model_dump(exclude_none=True) for d in body.documents]
        return await run(lambda: engine.ingest_records(
            records, collection=body.collection, profile=profile_of(body.profile),
            tags=body.tags, metadata=body.metadata))

    async def _ingest_upload(request: Request) -> JSONResponse:
        form = await request.form(max_files=config.max_files, max_fields=200)
        known = {"files", "collection", "profile", "tag", "metadata"}
        unknown = sorted(set(form.keys()) - known)
        if unknown:
            raise UsageError(f"unknown form fields: {', '.join(unknown)} (allowed: "
                             f"{', '.join(sorted(known))})")
        files = [f for f in form.getlist("files") if not isinstance(f, str)]
        if not files:
            raise UsageError("no files: send them as the multipart field 'files'")
        text = {k: form.get(k) for k in ("collection", "profile", "metadata")}
        if any(v is not None and not isinstance(v, str) for v in text.values()):
            raise UsageError("collection, profile and metadata are text fields")
        try:
            metadata = json.loads(text["metadata"]) if text["metadata"] else {}
        except ValueError as exc:
            raise UsageError(f"metadata is not JSON: {exc}") from None
        if not isinstance(metadata, dict):
            raise UsageError("metadata must be a JSON object")
        tags = [t for t in form.getlist("tag") if isinstance(t, str)]
        collection, profile = text["collection"] or None, profile_of(text["profile"] or None)

        def work() -> dict[str, Any]:
            with tempfile.TemporaryDirectory(prefix="ragd-upload-") as tmp:
                root = Path(tmp)
                refused = [f for f in (save_upload(root, up.filename, up.file,
                                                   config.max_upload_bytes) for up in files)
                           if f is not None]
                return engine.ingest_files(root, collection=collection, profile=profile,
                                           tags=tags, metadata=metadata,
                                           source=upload_source(root), failures=refused)
        try:
            return await run(work)
        finally:
            await form.close()

    @v1.get("/documents", response_model=m.DocumentList, tags=["documents"])
    async def documents(collection: str | None = Coll, limit: int = Query(100, ge=1, le=10_000),
                        offset: int = Query(0, ge=0, le=m.MAX_INDEX)) -> JSONResponse:
        """The collection's documents (doc_id order), a page at a time."""
        def work() -> dict[str, Any]:
            coll = engine.collection(collection)
            records = sorted(coll.store.list_documents(coll.name), key=lambda r: r.doc_id)
            return {"collection": coll.name, "total": len(records), "documents": [
                {"doc_id": r.doc_id, "title": r.title, "source": r.source,
                 "version": r.version, "ingested_at": r.ingested_at}
                for r in records[offset:offset + limit]]}
        return await run(work)

    @v1.get("/documents/{doc_id:path}/chunks/{chunk_index}", response_model=m.ChunkResponse,
            tags=["documents"])
    async def chunk(doc_id: str, chunk_index: int = FastPath(ge=0, le=m.MAX_INDEX),
                    collection: str | None = Coll) -> JSONResponse:
        """One chunk by key, with its citation."""
        return await run(lambda: engine.chunk(doc_id, chunk_index, collection))

    @v1.get("/documents/{doc_id:path}", response_model=m.DocumentResponse, tags=["documents"])
    async def document(doc_id: str, collection: str | None = Coll) -> JSONResponse:
        """A document's record and its chunks with their citations."""
        return await run(lambda: engine.document(doc_id, collection))

    @v1.delete("/documents/{doc_id:path}", response_model=m.Deleted, tags=["documents"])
    async def delete(doc_id: str, collection: str | None = Coll) -> JSONResponse:
        """Remove a document and its chunks."""
        return await run(lambda: engine.delete(doc_id, collection))

    @v1.get("/collections", response_model=m.CollectionsResponse, tags=["store"])
    async def collections() -> JSONResponse:
        return await run(engine.collections)

    @v1.get("/stats", response_model=m.StatsResponse, tags=["store"])
    async def stats(collection: str | None = Coll) -> JSONResponse:
        """The JSON of `ragd stats --json`."""
        return await run(lambda: engine.stats(collection))

    @v1.get("/profiles", response_model=m.ProfilesResponse, tags=["store"])
    async def profiles() -> JSONResponse:
        """The built-in profiles (`ragd profiles --json`)."""
        return await run(engine.profiles)

    app.include_router(v1)
    if mcp_server is not None:
        from .mcp import mcp_endpoint

        app.router.routes.append(Route("/mcp", endpoint=mcp_endpoint(mcp_server, config, key)))
    limits = {"/v1/ingest": config.max_upload_bytes, "/mcp": config.max_body_bytes}
    app.add_middleware(BodyLimit, default=config.max_body_bytes, limits=limits)
    app.add_middleware(SecurityHeaders, page_csp=page_csp())
    return app


def app_from_env() -> FastAPI:
    """The app a uvicorn worker builds (``--workers``): its config from the environment."""
    return create_app(ServiceConfig.from_env())
