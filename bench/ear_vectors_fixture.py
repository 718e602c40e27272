#!/usr/bin/env python3
"""Ship the bundled model's vectors of the EAR corpus for the CI QA gate (by hand).

CI answers a subset of the EAR golden questions (tests/answer/test_ear_gate.py) on the
whole EAR corpus. Embedding 3,040 records costs minutes on 2 cores, so their vectors
ship in tests/fixtures/ear_vectors.npz (int8 with a scale each, keyed by the sha256 of
the text embedded, as ragd.evaluation.embed_cache.CachedEmbedder reads them); only the
questions are embedded live. Regenerate after changing the embedder or what is embedded:

    python bench/ear_vectors_fixture.py --store STORE   # a store holding the EAR corpus
                                                        # (ragd ingest ... --profile ear)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ragd.collection import open_collection
from ragd.embedding.onnx import MiniLMEmbedder
from ragd.evaluation.embed_cache import CachedEmbedder, text_key

OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "ear_vectors.npz"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", default="default")
    args = ap.parse_args()
    coll = open_collection(args.store, args.collection)
    cache = CachedEmbedder(MiniLMEmbedder())
    for chunk, vector in coll.store.iter_chunks(coll.name):
        cache.vectors[text_key(chunk.search_text)] = vector
    coll.close()
    path = cache.save(OUT)
    print(f"wrote {len(cache.vectors)} vectors to {path} ({path.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
