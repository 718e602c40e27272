"""The cached evaluation store: a BEIR corpus ingested once per (corpus, embedder, chunk policy).

The default location is ``<ragd home>/eval/<dataset>-<corpus sha256[:12]>-<embedder>-<policy
hash[:8]>/`` (an embedded SQLite store, collection ``beir``). A second run re-ingests through
ragd's own pipeline, which skips every unchanged document (same content hash), so reuse costs
one hash lookup per document and a changed corpus or policy gets a folder of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..collection import Collection, open_collection
from ..embedding import Embedder
from ..ids import canonical_json, sha256_hex
from ..ingest.loaders import LoadOptions
from ..ingest.pipeline import IngestReport, ingest
from ..types import ChunkPolicy
from .beir import BeirDataset

CACHE_COLLECTION = "beir"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def policy_hash(policy: ChunkPolicy) -> str:
    return sha256_hex(canonical_json(policy.as_dict()))[:8]


def cache_dir(home: Path, dataset: BeirDataset, embedder: Embedder, policy: ChunkPolicy) -> Path:
    """``<home>/eval/<dataset>-<sha12>-<embedder>-<policy8>``."""
    name = (f"{slug(dataset.name)}-{dataset.corpus_sha256[:12]}-{slug(embedder.name)}"
            f"-{policy_hash(policy)}")
    return Path(home) / "eval" / name


@dataclass
class PreparedStore:
    collection: Collection
    location: str
    report: IngestReport


def prepare_store(dataset: BeirDataset, embedder: Embedder, policy: ChunkPolicy, location: str,
                  collection: str = CACHE_COLLECTION,
                  on_progress: Callable[[IngestReport], None] | None = None,
                  profile: Any = None) -> PreparedStore:
    """Open (creating) ``collection`` at ``location`` and ingest the corpus into it.

    Unchanged documents are skipped by the pipeline; documents that fail to load (an
    empty text, say) are reported in the returned report and simply not retrievable.
    """
    if "://" not in location:
        Path(location).mkdir(parents=True, exist_ok=True)
    coll = open_collection(location, collection, embedder, create=True,
                           config={"source": "ragd eval beir", "dataset": dataset.name,
                                   "corpus_sha256": dataset.corpus_sha256}, profile=profile)
    report = ingest([str(dataset.corpus_path)], coll, options=LoadOptions(), policy=policy,
                    on_progress=on_progress)
    return PreparedStore(coll, location, report)
