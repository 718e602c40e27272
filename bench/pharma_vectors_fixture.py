#!/usr/bin/env python3
"""Ship the bundled model's vectors of pharma-qa chunks for the CI gate (run by hand).

CI answers part of the pharma golden sets (tests/answer/test_pharma_gate.py) over a subset
of ../shared/data/pharma-pdfs. Embedding their chunks costs minutes on 2 cores, so the
vectors ship in tests/fixtures/pharma_vectors.npz (int8 with a scale each, keyed by the
sha256 of the text embedded, as tests/support/embed_cache.CachedEmbedder reads them);
only questions and answer sentences are embedded live. Regenerate after changing the
embedder, the loader, the pdf_pages chunker or the profile's chunk policy:

    ragd ingest ../shared/data/pharma-pdfs --profile pharma-qa --store STORE
    python bench/pharma_vectors_fixture.py --store STORE            # the CI subset
    python bench/pharma_vectors_fixture.py --store STORE --all --out vectors.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "pharma_vectors.npz"
sys.path.insert(0, str(REPO / "tests"))     # pharma_ci, and support.embed_cache for vectors_fixture

sys.path.insert(0, str(REPO / "bench"))
from vectors_fixture import write_vectors  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", default="default")
    ap.add_argument("--all", action="store_true", help="every chunk, not the CI subset's")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    wanted = None
    if not args.all:
        from pharma_ci import CI_PDFS

        wanted = set(CI_PDFS)
    write_vectors(args.store, args.collection, Path(args.out),
                  lambda doc_id: wanted is None or doc_id in wanted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
