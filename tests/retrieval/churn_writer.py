"""A writer for the snapshot tests, run as its own process: re-writes one document again and
again, alternating two versions, until a stop file appears; prints the last generation.

Generation g holds PARAGRAPHS chunks, each naming its version's marker (``apple`` on odd
generations, ``banana`` on even ones) and the token ``gen<g>``, so a reader can tell which
write every chunk it got came from. Usage: churn_writer.py LOCATION COLLECTION STOPFILE
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from ragd.embedding.toy import ToyEmbedder
from ragd.stores import DocumentRecord, open_store
from ragd.types import Chunk

PARAGRAPHS = 8
DOC_ID = "live.md"
COLOURS = ("red", "green", "blue")


def marker(gen: int) -> str:
    return "apple" if gen % 2 else "banana"


def version(gen: int) -> list[str]:
    return [f"{marker(gen)} gen{gen:06d} paragraph {i} {COLOURS[i % 3]} audit logs"
            for i in range(PARAGRAPHS)]


def main(location: str, collection: str, stop: str, vocabulary: list[str]) -> int:
    store = open_store(location)
    toy = ToyEmbedder(vocabulary)
    gen = 0
    try:
        while gen < 2 or not Path(stop).exists():
            gen += 1
            texts = version(gen)
            chunks = [Chunk(doc_id=DOC_ID, chunk_index=i, text=t, chunk_id=f"g{gen}c{i}",
                            tokens=len(t.split())) for i, t in enumerate(texts)]
            store.upsert_document(collection, DocumentRecord(DOC_ID, f"gen{gen}",
                                                             title="Live", source=DOC_ID),
                                  chunks, toy.embed_documents(texts).astype(np.float32))
            if gen == 1:
                Path(stop + ".ready").write_text("1")
            time.sleep(0.0005)
    finally:
        store.close()
    print(gen)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")))
