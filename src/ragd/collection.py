"""A collection handle: one store, one collection name, the embedder bound to it.

This is the ``store`` argument of the canonical API (``index``, ``retrieve``):
it knows where chunks live and how to embed queries for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .embedding import DEFAULT_EMBEDDER, Embedder, make_embedder
from .errors import EmbedModelMismatchError, UnknownCollectionError
from .stores import CollectionInfo, Store, open_store

DEFAULT_COLLECTION = "default"


@dataclass
class Collection:
    """A store's collection together with its embedder."""

    store: Store
    name: str
    embedder: Embedder
    info: CollectionInfo

    def stats(self) -> dict[str, Any]:
        return self.store.stats(self.name)

    def close(self) -> None:
        self.store.close()


def _check_match(info: CollectionInfo, embedder: Embedder) -> None:
    if (info.embed_model, info.embed_dims) != (embedder.name, embedder.dims):
        raise EmbedModelMismatchError(
            f"collection {info.name!r} is bound to embedding model {info.embed_model} "
            f"({info.embed_dims} dims), not {embedder.name} ({embedder.dims} dims)")


def open_collection(store: Store | str, name: str = DEFAULT_COLLECTION,
                    embedder: Embedder | str | dict | None = None, *, create: bool = False,
                    config: Mapping[str, Any] | None = None) -> Collection:
    """Open ``name`` in ``store`` (a Store or a location).

    An existing collection rebuilds its own embedder from the spec it stored,
    unless ``embedder`` is given, in which case it must be the same model
    (else EmbedModelMismatchError names both). A missing collection is created
    when ``create`` is true (with ``embedder``, default ``minilm``), else
    UnknownCollectionError.
    """
    if not isinstance(store, Store):
        store = open_store(store)
    if isinstance(embedder, (str, dict)):
        embedder = make_embedder(embedder)
    try:
        info = store.get_collection(name)
    except UnknownCollectionError:
        if not create:
            raise
        embedder = embedder or make_embedder(DEFAULT_EMBEDDER)
        settings = {**dict(config or {}), "embedder": embedder.spec()}
        info = store.create_collection(name, embedder.name, embedder.dims, settings)
        return Collection(store, name, embedder, info)
    if embedder is None:
        embedder = make_embedder(dict(info.config.get("embedder") or {"kind": DEFAULT_EMBEDDER}))
    _check_match(info, embedder)
    return Collection(store, name, embedder, info)
