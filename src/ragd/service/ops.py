"""What the adapters do, once: each operation calls the library and builds its JSON.

``ragd search --json``, ``ragd ask --json``, ``ragd ingest --json`` and ``ragd stats --json``,
the REST API and the MCP tools all build their JSON here, so they cannot drift apart.
:class:`Engine` is a long-lived process's handle (the REST and MCP servers): one store
opened once and its collections kept open, so the in-memory indexes stay loaded and follow
this process's writes by deltas. Nothing here imports a web framework.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..collection import Collection, open_collection, recorded_profile
from ..config import Settings
from ..errors import ProfileMismatchError, UnknownCollectionError, UsageError
from ..ingest.base import LoadFailure, LoadOptions, clean_tags
from ..ingest.jsonl import record_to_document
from ..ingest.loaders import iter_documents
from ..ingest.pipeline import IngestReport, ingest_documents
from ..profiles import Profile, builtin_names, load_profile
from ..retrieval import retrieve
from ..retrieval.deadline import within
from ..stores import Store, StoredChunk, open_store
from ..types import Candidate, Chunk, Document, Plan

CHUNK_PROBE = 64
"""Chunks of a document are read by key, this many indexes at a time (they count from 0)."""


class NotFoundError(UsageError, LookupError):
    """A document or chunk that the collection does not hold."""


# -- JSON builders (the CLI's --json and every adapter) ------------------------------------


@dataclass(frozen=True)
class SearchOutcome:
    """A search's results under its profile: ranked candidates, or (profile output
    ``rag-context``) the rules contract's RAGContext."""

    query: str
    profile: Profile
    plan: Plan | None
    results: tuple[Candidate, ...] = ()
    context: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``ragd search --json``."""
        if self.context is not None:
            return self.context.to_dict()
        assert self.plan is not None
        scheme = self.profile.scheme
        return {"query": self.query, "profile": self.profile.name,
                "plan": {"k": self.plan.k, "mode": self.plan.mode, "fusion": self.plan.fusion},
                "results": [{**c.as_dict(), "citation": scheme.cite(c, c.title)}
                            for c in self.results]}


def run_search(coll: Collection, query: str, *, k: int | None = None, mode: str | None = None,
               fusion: str | None = None, tags_any: Sequence[str] = (),
               tags_all: Sequence[str] = (), metadata: Mapping[str, Any] | None = None,
               context_key: str | None = None) -> SearchOutcome:
    """Search ``coll`` as ``ragd search`` does: the profile's plan with these overrides, under
    the profile's timeout; a ``rag-context`` profile answers with the contract's RAGContext."""
    profile = coll.profile
    if profile.output["search"] == "rag-context":
        from ..contracts.rag_pipeline import RAGPipeline

        context = RAGPipeline(coll).retrieve(query, context_key or "", max_chunks=k)
        return SearchOutcome(query, profile, None, context=context)
    plan = profile.plan(k=k, mode=mode, fusion=fusion, tags_any=tuple(tags_any),
                        tags_all=tuple(tags_all), metadata=dict(metadata or {}))
    timeout = float(profile.retrieval["timeout_seconds"])
    results = within(timeout, lambda: retrieve(query, plan, coll))
    return SearchOutcome(query, profile, plan, tuple(results))


def ingest_json(report: IngestReport, coll: Collection) -> dict[str, Any]:
    """The JSON of ``ragd ingest --json``: the report, or the rules contract's
    IngestionResult when the profile asks for it."""
    if coll.profile.output["ingest"] == "ingestion-result":
        return report.as_ingestion_result()
    return report.as_dict()


def stats_json(store: Store, only: str | None = None) -> dict[str, Any]:
    """The JSON of ``ragd stats --json``: every collection (or ``only``) with its counts."""
    infos = store.list_collections()
    if only and only not in {c.name for c in infos}:
        open_collection(store, only)  # raises UnknownCollectionError with the list
    stats = []
    for info in infos:
        if only and info.name != only:
            continue
        s = store.stats(info.name)
        s["profile"] = recorded_profile(info)
        stats.append(s)
    return {"store": store.url, "collections": stats}


def profiles_json() -> list[dict[str, Any]]:
    """The JSON of ``ragd profiles --json``: the built-in profiles."""
    return [{"name": p.name, "description": p.description, "hash": p.content_hash}
            for p in (load_profile(name) for name in builtin_names())]


def chunk_json(stored: StoredChunk, profile: Profile) -> dict[str, Any]:
    """A stored chunk with its citation under the profile (``citation_fields``: the scheme's
    own fields, as an answer's evidence carries them)."""
    c: Chunk = stored.chunk
    scheme = profile.scheme
    return {"doc_id": c.doc_id, "chunk_index": c.chunk_index, "chunk_id": c.chunk_id,
            "title": stored.title, "context": c.context, "section_id": c.section_id,
            "parent_id": c.parent_id, "kind": c.kind, "page": c.page, "tokens": c.tokens,
            "start_offset": c.start_offset, "end_offset": c.end_offset, "tags": list(c.tags),
            "metadata": dict(c.metadata), "text": c.text,
            "citation": scheme.cite(c, stored.title),
            "citation_fields": scheme.fields(c, stored.title)}


def document_chunks(coll: Collection, doc_id: str) -> list[StoredChunk]:
    """Every chunk of a document, in order (read by key, :data:`CHUNK_PROBE` at a time)."""
    found: list[StoredChunk] = []
    start = 0
    while True:
        keys = [(doc_id, i) for i in range(start, start + CHUNK_PROBE)]
        got = coll.store.get_chunks(coll.name, keys)
        found.extend(got[k] for k in keys if k in got)
        if len(got) < CHUNK_PROBE:
            return found
        start += CHUNK_PROBE


def document_json(coll: Collection, doc_id: str) -> dict[str, Any]:
    """A stored document: its record and its chunks with their citations."""
    record = coll.store.get_document(coll.name, doc_id)
    if record is None:
        raise NotFoundError(f"no document {doc_id!r} in collection {coll.name!r}")
    return {"collection": coll.name, "profile": coll.profile.name, "doc_id": record.doc_id,
            "title": record.title, "source": record.source, "metadata": dict(record.metadata),
            "content_hash": record.content_hash, "version": record.version,
            "ingested_at": record.ingested_at,
            "chunks": [chunk_json(s, coll.profile) for s in document_chunks(coll, doc_id)]}


def get_chunk_json(coll: Collection, doc_id: str, chunk_index: int) -> dict[str, Any]:
    """One chunk by its key (doc_id, chunk_index), with its citation."""
    got = coll.store.get_chunks(coll.name, [(doc_id, chunk_index)])
    if (doc_id, chunk_index) not in got:
        raise NotFoundError(f"no chunk {chunk_index} of document {doc_id!r} in collection "
                            f"{coll.name!r}")
    return {"collection": coll.name, **chunk_json(got[(doc_id, chunk_index)], coll.profile)}


def collections_json(store: Store, default: str) -> dict[str, Any]:
    """Every collection with its profile, model and counts; ``default`` is the server's."""
    out = []
    for info in store.list_collections():
        s = store.stats(info.name)
        out.append({"name": info.name, "profile": recorded_profile(info)["name"],
                    "embed_model": info.embed_model, "embed_dims": info.embed_dims,
                    "documents": s["documents"], "chunks": s["chunks"],
                    "created_at": info.created_at})
    return {"default": default, "collections": out}


def documents_from_records(records: Sequence[Mapping[str, Any]], report: IngestReport,
                           source: str = "request") -> Iterable[Document]:
    """JSON documents (the fields of a JSONL line: ``doc_id``, ``text``, ``title``, ``tags``,
    ``metadata``, ``format``), checked by the JSONL loader's rules; a bad one or a doc_id
    twice is a failure in ``report``, the rest go on."""
    seen: set[str] = set()
    for i, record in enumerate(records, start=1):
        where = f"{source}:document {i}"
        try:
            doc = record_to_document(dict(record), where)
        except ValueError as exc:
            report.failed += 1
            report.failures.append(LoadFailure(where, str(exc)))
            continue
        if doc.doc_id in seen:
            report.failed += 1
            report.failures.append(LoadFailure(where, f"duplicate doc_id {doc.doc_id!r}",
                                               "duplicate"))
            continue
        seen.add(doc.doc_id)
        yield doc


def _with(doc: Document, tags: Sequence[str], metadata: Mapping[str, Any]) -> Document:
    if not tags and not metadata:
        return doc
    return replace(doc, tags=tuple(dict.fromkeys(doc.tags + clean_tags(tags))),
                   metadata={**doc.metadata, **metadata})


# -- the long-lived handle -----------------------------------------------------------------


class Engine:
    """One store and its open collections, for a server process (thread-safe).

    ``settings`` are the CLI's (store, default collection, profile of new collections,
    embedder, ragd.toml overrides, max document size); ``llm_url``/``llm_model`` the chat
    endpoint ``ask`` uses when a request names none (default: none, the offline path).
    ``llm_allowed`` lists the endpoints a request may name besides that one and ``none``
    (a server must not call any URL a client sends it); None allows any.
    """

    def __init__(self, settings: Settings, *, llm_url: str | None = None,
                 llm_model: str | None = None, store: Store | None = None,
                 llm_allowed: Sequence[str] | None = None) -> None:
        self.settings = settings
        self.llm_url = llm_url
        self.llm_model = llm_model
        self.llm_allowed = None if llm_allowed is None else tuple(
            dict.fromkeys(u.strip() for u in [*llm_allowed, llm_url or ""] if u and u.strip()))
        self.store = store or open_store(settings.store_location)
        self._colls: dict[str, Collection] = {}
        self._lock = threading.Lock()
        self._ingest_lock = threading.Lock()
        self._clients: dict[tuple[str, str | None], Any] = {}

    @property
    def default_collection(self) -> str:
        return self.settings.collection

    def close(self) -> None:
        self.store.close()

    # collections
    def collection(self, name: str | None = None, profile: str | None = None, *,
                   create: bool = False) -> Collection:
        """An open collection (cached); ``profile``, when given, must be its own (a profile
        of the same name, such as a calibrated copy, replaces it for this call)."""
        name = name or self.settings.collection
        with self._lock:
            coll = self._colls.get(name)
        if coll is None:
            try:
                coll = open_collection(self.store, name)
            except UnknownCollectionError:
                if not create:
                    raise
                embedder = self.settings.embedder or None   # else the profile's
                coll = open_collection(self.store, name, embedder, create=True,
                                       profile=profile or self.settings.profile or None)
            with self._lock:
                coll = self._colls.setdefault(name, coll)
        if profile:
            given = load_profile(profile)
            if given.name != coll.profile.name:
                raise ProfileMismatchError(
                    f"collection {name!r} was created with profile {coll.profile.name!r}, "
                    f"not {given.name!r}: use profile {coll.profile.name!r} (or leave it out), "
                    "or another collection")
            if given.content_hash != coll.profile.content_hash:
                coll = replace(coll, profile=given)
        return coll

    # operations
    def search(self, query: str, *, collection: str | None = None, profile: str | None = None,
               k: int | None = None, mode: str | None = None, fusion: str | None = None,
               tags_any: Sequence[str] = (), tags_all: Sequence[str] = (),
               metadata: Mapping[str, Any] | None = None,
               context_key: str | None = None) -> dict[str, Any]:
        coll = self.collection(collection, profile)
        s = self.settings
        return run_search(coll, query, k=k or s.k, mode=mode or s.mode,
                          fusion=fusion or s.fusion, tags_any=tags_any, tags_all=tags_all,
                          metadata=metadata, context_key=context_key).to_dict()

    def llm(self, url: str | None, model: str | None) -> Any:
        """The chat client for ``url`` (else the server's), or None for the offline path."""
        if url is not None and url.strip().lower() not in ("", "none") and \
                self.llm_allowed is not None and url.strip() not in self.llm_allowed:
            allowed = ", ".join(self.llm_allowed) or "none (only the offline path)"
            raise UsageError(f"LLM endpoint {url!r} is not allowed by this server; allowed: "
                             f"{allowed}")
        url = url if url is not None else self.llm_url
        model = model if model is not None else self.llm_model
        from ..llm import make_client

        key = ((url or "").strip(), model)
        with self._lock:
            if key not in self._clients:
                self._clients[key] = make_client(url, model)
            return self._clients[key]

    def ask(self, question: str, *, collection: str | None = None,
            profile: str | None = None, llm_url: str | None = None,
            llm_model: str | None = None) -> dict[str, Any]:
        from ..answer import answer

        coll = self.collection(collection, profile)
        result = answer(question, coll, llm=self.llm(llm_url, llm_model),
                        audit_dir=self.settings.home / "logs")
        return result.to_dict()

    def ingest_records(self, records: Sequence[Mapping[str, Any]], *,
                       collection: str | None = None, profile: str | None = None,
                       tags: Sequence[str] = (), metadata: Mapping[str, Any] | None = None
                       ) -> dict[str, Any]:
        """Ingest JSON documents (one ingest at a time per process; searches go on)."""
        coll = self.collection(collection, profile, create=True)
        report = IngestReport()
        meta = dict(metadata or {})
        docs = (_with(d, tags, meta) for d in documents_from_records(records, report))
        with self._ingest_lock:
            ingest_documents(docs, coll, policy=self.settings.chunking, report=report)
        return ingest_json(report, coll)

    def ingest_files(self, root: Path, *, collection: str | None = None,
                     profile: str | None = None, tags: Sequence[str] = (),
                     metadata: Mapping[str, Any] | None = None,
                     source: Callable[[str], str] = lambda s: s,
                     failures: Sequence[LoadFailure] = ()) -> dict[str, Any]:
        """Ingest the files under ``root`` (uploads saved there); ``source`` renames where a
        document came from (the upload's name rather than a temporary path); ``failures``
        are files refused before loading."""
        coll = self.collection(collection, profile, create=True)
        prof = coll.profile.ingest
        options = LoadOptions(include=tuple(prof.get("include", ())),
                              exclude=tuple(prof.get("exclude", ())),
                              max_document_bytes=self.settings.max_document_bytes,
                              tags=tuple(tags), metadata=dict(metadata or {}))
        report = IngestReport()
        for failure in failures:
            report.failed += 1
            report.failures.append(failure)

        def failed(failure: LoadFailure) -> None:
            report.failed += 1
            report.failures.append(replace(failure, source=source(failure.source)))

        docs = (replace(d, source=source(d.source))
                for d in iter_documents([str(root)], options, on_failure=failed))
        with self._ingest_lock:
            ingest_documents(docs, coll, policy=self.settings.chunking, report=report)
        return ingest_json(report, coll)

    def document(self, doc_id: str, collection: str | None = None) -> dict[str, Any]:
        return document_json(self.collection(collection), doc_id)

    def chunk(self, doc_id: str, chunk_index: int, collection: str | None = None
              ) -> dict[str, Any]:
        return get_chunk_json(self.collection(collection), doc_id, chunk_index)

    def delete(self, doc_id: str, collection: str | None = None) -> dict[str, Any]:
        coll = self.collection(collection)
        with self._ingest_lock:
            found = coll.store.delete_document(coll.name, doc_id)
        if not found:
            raise NotFoundError(f"no document {doc_id!r} in collection {coll.name!r}")
        return {"deleted": doc_id, "collection": coll.name}

    def collections(self) -> dict[str, Any]:
        return collections_json(self.store, self.settings.collection)

    def stats(self, collection: str | None = None) -> dict[str, Any]:
        return stats_json(self.store, collection)

    def profiles(self) -> list[dict[str, Any]]:
        return profiles_json()


__all__ = ["Engine", "NotFoundError", "SearchOutcome", "chunk_json", "collections_json",
           "document_json", "documents_from_records", "get_chunk_json", "ingest_json",
           "profiles_json", "run_search", "stats_json"]
