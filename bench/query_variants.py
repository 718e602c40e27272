#!/usr/bin/env python3
"""What the learned query variants cost: the word list's build, a misspelt word's
correction (the store's own words, and a dense synthetic 100k-word list), and a whole
question's learning (corrections and acronym look-ups) on a store.

    python bench/query_variants.py --store STORE --collection NAME [GOLDEN.jsonl ...]

Timings depend on the machine's load: the load average is printed and written beside them
(bench/results/query_variants.json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

from ragd.answer.terms import QUESTION_WORDS
from ragd.collection import open_collection
from ragd.retrieval import spelling, variants

RESULTS = Path(__file__).resolve().parent / "results"
TYPOS = ("electornic", "signture", "definiton", "proces", "validaton", "contamnation",
         "sterilty", "qualificaton", "specifcation", "docmentation")


def _per_word_ms(vocab: spelling.Vocabulary, rounds: int = 3) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        for word in TYPOS:
            vocab.correct(word)
    return (time.perf_counter() - start) * 1000 / (rounds * len(TYPOS))


def _synthetic(vocab: spelling.Vocabulary, size: int) -> spelling.Vocabulary:
    """The store's words and, up to ``size``, variants of them with 1-3 letters changed (a
    denser neighbourhood than a real word list: a pessimistic case)."""
    rng = random.Random(7)
    real = sorted(vocab.df)
    words = set(real)
    while len(words) < size:
        w = list(rng.choice(real))
        for _ in range(rng.randint(1, 3)):
            w[rng.randrange(len(w))] = rng.choice("abcdefghijklmnopqrstuvwxyz")
        words.add("".join(w))
    return spelling.Vocabulary({w: 1 + sum(map(ord, w)) % 5 for w in sorted(words)},
                               vocab.terms)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("golden", nargs="*")
    ap.add_argument("--store", required=True)
    ap.add_argument("--collection", default="default")
    args = ap.parse_args()
    coll = open_collection(args.store, args.collection)
    with coll.store.snapshot(coll.name) as snap:
        start = time.perf_counter()
        texts = snap.search_texts()
        read_s = time.perf_counter() - start
        start = time.perf_counter()
        vocab = spelling.build(texts)
        build_s = time.perf_counter() - start
    start = time.perf_counter()
    big = _synthetic(vocab, 100_000)
    big_s = time.perf_counter() - start
    row = {"chunks": len(texts), "words": len(vocab.df), "read_texts_s": round(read_s, 3),
           "build_s": round(build_s, 3), "per_misspelt_word_ms": round(_per_word_ms(vocab), 2),
           "synthetic_words": len(big.df), "synthetic_build_s": round(big_s, 3),
           "synthetic_per_misspelt_word_ms": round(_per_word_ms(big), 2)}
    settings = {**coll.profile.retrieval, "spelling": True, "acronyms": True}
    variants.learn("warm up", coll, settings)   # the word list, built once per state
    learn_ms = []
    for path in args.golden:
        for line in Path(path).read_text().splitlines():
            question = json.loads(line)["question"]
            start = time.perf_counter()
            variants.learn(question, coll, settings, frozenset(QUESTION_WORDS))
            learn_ms.append((time.perf_counter() - start) * 1000)
    if learn_ms:
        row.update(questions=len(learn_ms), learn_p50_ms=round(statistics.median(learn_ms), 2),
                   learn_max_ms=round(max(learn_ms), 2))
    row["load_average"] = [round(x, 2) for x in os.getloadavg()]
    for key, value in row.items():
        print(f"{key:34} {value}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "query_variants.json").write_text(json.dumps(row, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
