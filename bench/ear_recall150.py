#!/usr/bin/env python3
"""Evidence-section recall@5 of the default EAR search on bench/golden/ear_recall150.jsonl.

The 156 questions were written from a seeded random sample of sections of parts 736-746
before any retrieval ran, and stay fixed (the file's header says how). Two thirds are in
plain words; one third name a section in a common citation form (``form: named``).

For each question, ``ragd.retrieve(question, profile.plan(k=5), coll)`` runs once on the
EAR collection (profile ``ear``; the collection is the one bench/ask_latency.py builds
from the corpus and the shipped vectors). A question is a *strict* hit when a top-5
result is the expected paragraph or a part of it (its section_id is the expected id or
starts with it followed by ``(``), a *lenient* hit when a result is also an enclosing
section of it (``EAR-736.1`` for ``EAR-736.1(b)``), and a *section* hit when a result is
any part of the same section (``EAR-736.1(c)`` for ``EAR-736.1(b)``): the evidence
section, the issue's measure. Reported overall, per form and per part, with every miss
listed (its top results) for the failure analysis.

    python bench/ear_recall150.py [--k 5] [--bge always|never|questions]

``--bge``: the same questions on a store of the corpus embedded with bge-small-en-v1.5
(bench/.cache/ear-bge, built on first use, about a minute), queries read after its
instruction always, never or when they ask (the model's default); results then go to
bench/results/ear_recall150_bge_INSTRUCTION.json.

Writes bench/results/ear_recall150.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from ragd import retrieve  # noqa: E402

GOLDEN = REPO / "bench" / "golden" / "ear_recall150.jsonl"
RESULTS = REPO / "bench" / "results" / "ear_recall150.json"


def belongs(result: str | None, expected: str) -> bool:
    """The result is the expected id or a part of it."""
    return bool(result) and (result == expected or result.startswith(expected + "(")
                             or result.startswith(expected + "#"))


def encloses(result: str | None, expected: str) -> bool:
    """The result is an enclosing section or paragraph of the expected id."""
    return bool(result) and (expected.startswith(result + "(") or expected == result)


def section_of(ident: str) -> str:
    """``EAR-740.9(a)(2)`` -> ``EAR-740.9``."""
    return ident.split("(", 1)[0].split("#", 1)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--bge", choices=("always", "never", "questions"),
                    help="search a bge-small store of the corpus instead (queries read after "
                         "the instruction always, never or when they ask)")
    args = ap.parse_args()
    from ask_latency import _collection

    if args.bge:
        from ragd import ingest, open_collection
        from ragd.embedding import make_embedder

        from ask_latency import CACHE, CORPUS
        embedder = make_embedder({"kind": "bge-small", "instruction": args.bge})
        store = CACHE / "ear-bge"
        fresh = not store.exists()
        coll = open_collection(store, "ear", embedder, create=True, profile="ear")
        if fresh or coll.store.stats("ear")["documents"] == 0:
            assert ingest([CORPUS], coll).failed == 0
    else:
        coll = _collection("ear")
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line) for line in lines if line.strip()]
    questions = [q for q in questions if not q.get("header")]
    plan = coll.profile.plan(k=args.k)
    rows = []
    for q in questions:
        got = retrieve(q["question"], plan, coll)
        ids = [c.section_id or c.doc_id for c in got]
        strict = next((i for i, r in enumerate(ids, 1)
                       if any(belongs(r, s) for s in q["sections"])), None)
        lenient = next((i for i, r in enumerate(ids, 1)
                        if any(belongs(r, s) or encloses(r, s) for s in q["sections"])), None)
        same = next((i for i, r in enumerate(ids, 1)
                      if any(r and section_of(r) == section_of(s) for s in q["sections"])), None)
        part = q["sections"][0].split("-")[1].split(".")[0]
        rows.append({"id": q["id"], "form": q.get("form", "plain"), "part": part,
                     "words": len(q["question"].split()), "strict_rank": strict,
                     "lenient_rank": lenient, "section_rank": same, "expected": q["sections"], "top": ids,
                     "question": q["question"]})
    coll.close()

    def recall(part: list[dict], key: str) -> float:
        return round(sum(r[key] is not None for r in part) / len(part), 4) if part else 0.0

    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups["all"].append(r)
        groups[f"form={r['form']}"].append(r)
        groups[f"part={r['part']}"].append(r)
        groups["words>30" if r["words"] > 30 else "words<=30"].append(r)
    table = {name: {"questions": len(g), "section": recall(g, "section_rank"),
                    "strict": recall(g, "strict_rank"), "lenient": recall(g, "lenient_rank")}
             for name, g in sorted(groups.items())}
    print(f"EAR evidence-section recall@{args.k}, profile ear, {len(rows)} questions"
          + (f", bge-small (instruction: {args.bge})" if args.bge else ""))
    print(f"{'group':<14}{'n':>5}{'section':>9}{'strict':>9}{'lenient':>9}")
    for name, m in table.items():
        print(f"{name:<14}{m['questions']:>5}{m['section']:>9.3f}{m['strict']:>9.3f}"
              f"{m['lenient']:>9.3f}")
    misses = [r for r in rows if r["strict_rank"] is None or r["section_rank"] is None]
    out = RESULTS.with_name(f"ear_recall150_bge_{args.bge}.json") if args.bge else RESULTS
    out.write_text(json.dumps({"k": args.k, "metrics": table, "misses": misses,
                                   "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
