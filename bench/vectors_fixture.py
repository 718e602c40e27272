#!/usr/bin/env python3
"""Ship the bundled model's vectors of a corpus for a CI QA gate (by hand).

CI answers subsets of golden sets (tests/answer/test_*_gate.py) on whole corpora (the
EAR corpus, the Indian acts). Embedding them costs minutes on 2 cores, so their vectors
ship in tests/fixtures/<name>_vectors.npz (int8 with a scale each, keyed by the sha256
of the text embedded, as tests/support/embed_cache.py's CachedEmbedder reads them); only
the questions are embedded live. Regenerate after changing the embedder, the chunker or
what is embedded:

    python bench/vectors_fixture.py --store STORE --out tests/fixtures/ear_vectors.npz
    python bench/vectors_fixture.py --store STORE --out tests/fixtures/legal_vectors.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from ragd.collection import open_collection  # noqa: E402
from ragd.embedding.onnx import MiniLMEmbedder  # noqa: E402
from support.embed_cache import CachedEmbedder, text_key  # noqa: E402


def write_vectors(store: str, collection: str, out: Path,
                  keep: Callable[[str], bool] = lambda doc_id: True) -> Path:
    """The stored vectors of ``collection``'s chunks (of documents ``keep`` admits) to
    ``out``; prints what it wrote."""
    coll = open_collection(store, collection)
    cache = CachedEmbedder(MiniLMEmbedder())
    for chunk, vector in coll.store.iter_chunks(coll.name):
        if keep(chunk.doc_id):
            cache.vectors[text_key(chunk.search_text)] = vector
    coll.close()
    path = cache.save(out)
    print(f"wrote {len(cache.vectors)} vectors to {path} ({path.stat().st_size / 1e6:.2f} MB)")
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", default="default")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args()
    write_vectors(args.store, args.collection, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
