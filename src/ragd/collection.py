"""A collection handle: one store, one collection name, the embedder and profile bound to it.

This is the ``store`` argument of the canonical API (``index``, ``retrieve``):
it knows where chunks live, how to embed queries for them, and which profile
(chunking, citation scheme, retrieval plan) the collection was created with.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .embedding import DEFAULT_EMBEDDER, Embedder, make_embedder
from .errors import ConfigError, EmbedModelMismatchError, ProfileMismatchError, \
    UnknownCollectionError
from .profiles import BUILTIN, Profile, load_profile
from .stores import CollectionInfo, Store, open_store
from .types import ChunkPolicy, Plan

DEFAULT_COLLECTION = "default"


@dataclass
class Collection:
    """A store's collection together with its embedder and profile."""

    store: Store
    name: str
    embedder: Embedder
    info: CollectionInfo
    profile: Profile
    _queries: OrderedDict = field(default_factory=OrderedDict, init=False, repr=False,
                                  compare=False)
    _queries_lock: threading.Lock = field(default_factory=threading.Lock, init=False,
                                          repr=False, compare=False)
    _passages: OrderedDict = field(default_factory=OrderedDict, init=False, repr=False,
                                   compare=False)

    QUERY_MEMO = 64
    """Query vectors remembered (the last ones embedded, by text and embedder); also the
    group ``retrieve_many`` embeds at once (larger groups pad less: texts of a length batch
    together)."""
    PASSAGE_MEMO = 4096
    """Passage vectors remembered (about 6 MB at 384 dimensions): the answer path embeds
    the sentences of its evidence, and the same passages come back across questions."""

    def embed_query(self, text: str) -> np.ndarray:
        """The embedder's vector for a query (read-only), remembered for the last few
        queries: an answer embeds its question to retrieve and again to score sentences.
        An embedder gives the same vector for the same text, so remembering it changes
        nothing; another embedder set on the collection is asked afresh."""
        embedder = self.embedder
        return self._memo(self._queries, self.QUERY_MEMO, [text],
                          lambda missing: [embedder.embed_query(t) for t in missing])[0]

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """:meth:`embed_query` of each text, the ones not remembered embedded together.

        One batched call when the embedder offers ``embed_queries`` (its vectors are then
        the ones ``embed_query`` gives, bit for bit), else one call per text. The last
        ``QUERY_MEMO`` of them are remembered, as ``embed_query`` would."""
        embedder = self.embedder
        batch = getattr(embedder, "embed_queries", None)
        return self._memo(self._queries, self.QUERY_MEMO, texts, lambda missing: (
            batch(missing) if batch is not None else [embedder.embed_query(t) for t in missing]))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """The embedder's document vectors of ``texts`` (one row each), the last
        ``PASSAGE_MEMO`` remembered. An embedder's vector of a text must not depend on the
        texts batched with it (the bundled model's does not:
        tests/embedding/test_onnx.py holds it), so a remembered vector is the one a fresh
        batch would give, bit for bit, and no answer changes."""
        embedder = self.embedder
        rows = self._memo(self._passages, self.PASSAGE_MEMO, texts,
                          lambda missing: list(embedder.embed_documents(missing)))
        if not rows:
            return np.zeros((0, int(getattr(embedder, "dims", 0) or 0)), dtype=np.float32)
        return np.vstack(rows)

    def _memo(self, memo: OrderedDict, size: int, texts: Sequence[str],
              embed: Any) -> list[np.ndarray]:
        """``texts``' vectors from ``memo`` (by embedder and text), the missing ones from one
        ``embed`` call, the last ``size`` kept (read-only arrays)."""
        embedder = self.embedder
        out: dict[str, np.ndarray] = {}
        with self._queries_lock:
            for text in texts:
                hit = memo.get((id(embedder), text))
                if hit is not None and hit[0] is embedder:
                    memo.move_to_end((id(embedder), text))
                    out[text] = hit[1]
        missing = list(dict.fromkeys(t for t in texts if t not in out))
        if missing:
            vectors = embed(missing)
            with self._queries_lock:
                for text, vector in zip(missing, vectors):
                    vector = np.array(vector, copy=True)
                    vector.flags.writeable = False
                    out[text] = vector
                    memo[(id(embedder), text)] = (embedder, vector)
                    memo.move_to_end((id(embedder), text))
                while len(memo) > size:
                    memo.popitem(last=False)
        return [out[t] for t in texts]

    @property
    def plan(self) -> Plan:
        """The profile's retrieval plan (what ``retrieve(query, None, coll)`` uses)."""
        return self.profile.plan()

    @property
    def chunk_policy(self) -> ChunkPolicy:
        """The profile's chunk policy for this collection's embedder."""
        return self.profile.chunk_policy(getattr(self.embedder, "max_input_tokens", None))

    def stats(self) -> dict[str, Any]:
        return self.store.stats(self.name)

    def close(self) -> None:
        self.store.close()


def _check_match(info: CollectionInfo, embedder: Embedder) -> None:
    EmbedModelMismatchError.check(info.name, (info.embed_model, info.embed_dims),
                                  (embedder.name, embedder.dims))


def recorded_profile(info: CollectionInfo) -> dict[str, str]:
    """The profile a collection was created with (``default`` for one created before
    profiles existed: such collections keep working as ``default``)."""
    found = info.config.get("profile")
    if isinstance(found, Mapping) and found.get("name"):
        return {k: str(v) for k, v in found.items()}
    return {"name": "default", "source": BUILTIN}


def _bound_profile(info: CollectionInfo, profile: Profile | str | None) -> Profile:
    """The profile to use for an existing collection: the one it records, or the one asked
    for, which must have the same name."""
    recorded = recorded_profile(info)
    if profile is not None:
        given = load_profile(profile)
        if given.name != recorded["name"]:
            raise ProfileMismatchError(
                f"collection {info.name!r} was created with profile {recorded['name']!r}, "
                f"not {given.name!r}: use --profile {recorded['name']} (or leave it out), or "
                "another collection")
        return given
    source = recorded.get("source", BUILTIN)
    try:
        return load_profile(recorded["name"] if source == BUILTIN else source)
    except ConfigError as exc:
        raise ConfigError(f"collection {info.name!r} was created with profile "
                          f"{recorded['name']!r} ({source}), which cannot be loaded now: {exc}; "
                          "pass --profile PATH") from None


def open_collection(store: Store | str, name: str = DEFAULT_COLLECTION,
                    embedder: Embedder | str | dict | None = None, *, create: bool = False,
                    config: Mapping[str, Any] | None = None,
                    profile: Profile | str | None = None) -> Collection:
    """Open ``name`` in ``store`` (a Store or a location).

    An existing collection rebuilds its own embedder from the spec it stored,
    unless ``embedder`` is given, in which case it must be the same model
    (else EmbedModelMismatchError names both); it is used under the profile it
    was created with (``profile``, when given, must be that one, else
    ProfileMismatchError names both). A missing collection is created when
    ``create`` is true (with ``embedder``, default the profile's ``[embedding] model``,
    and ``profile``, default ``default``, recorded by name and content hash), else
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
        chosen = load_profile(profile)
        embedder = embedder or make_embedder(chosen.embedder or DEFAULT_EMBEDDER)
        settings = {**dict(config or {}), "embedder": embedder.spec(),
                    "profile": chosen.summary()}
        info = store.create_collection(name, embedder.name, embedder.dims, settings)
        return Collection(store, name, embedder, info, _bound_profile(info, chosen))
    bound = _bound_profile(info, profile)
    if embedder is None:
        embedder = make_embedder(dict(info.config.get("embedder") or {"kind": DEFAULT_EMBEDDER}))
    _check_match(info, embedder)
    return Collection(store, name, embedder, info, bound)
