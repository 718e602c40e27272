"""Section recall@5 and MRR@5 of lexical, vector and hybrid retrieval over the EAR corpus.

    .venv/bin/python bench/ear_recall.py                      # store cached in bench/.cache/ear-store/
    .venv/bin/python bench/ear_recall.py --store /tmp/ear-store --k 5
    .venv/bin/python bench/ear_recall.py --fresh              # rebuild the cached store first

The corpus is the retrieval-corpus.v1 file of 15 CFR parts 736, 740, 742, 744 and 746
(``$RAGD_BENCH_DATA/ear-corpus/ear-parts-736-746.v1.jsonl``, 3,040 documents: sections,
subsections and paragraphs). It is ingested with ragd's default bundled embedder (minilm)
into a store that is kept between runs: ``ragd.ingest`` is always called, and re-ingesting
the unchanged file does no work (the first run embeds every document: several minutes on
two cores).

The questions (``bench/ear_questions.jsonl``) are plain-language questions written by
hand, each with the section(s) that answer it (``EAR-740.9``), checked against the text.
For each question and mode, ``ragd.retrieve(question, Plan(k=5, mode=mode), coll)`` runs
once; a result belongs to section S when its ``section_id`` (or ``doc_id``) is S or starts
with ``S(`` or ``S#`` (the section itself, a subsection, or a paragraph of either). A
question is a hit when any of the top k results belongs to one of its sections; recall@k
is the fraction of hits, MRR@k the mean of 1/rank of the first such result (0 if none).

Results: ``bench/results/ear_recall.json`` (metrics, per-question ranks and the top k
results of every miss, ingest report, machine info, ragd version). No assertions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shlex
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Sequence

from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (BENCH_DIR, DATA_DIR, machine_info, make_console, median,  # noqa: E402
                     write_results)

import ragd  # noqa: E402

console = make_console()
NAME = "ear_recall"
COLLECTION = "ear"
MODES = ("lexical", "vector", "hybrid")
DEFAULT_CORPUS = DATA_DIR / "ear-corpus" / "ear-parts-736-746.v1.jsonl"
DEFAULT_QUESTIONS = BENCH_DIR / "ear_questions.jsonl"
DEFAULT_STORE = BENCH_DIR / ".cache" / "ear-store"
_PART = re.compile(r"^EAR-(\d+)\.")


# -- inputs ------------------------------------------------------------------------------------
def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def corpus_sections(corpus: Path) -> dict[str, str]:
    """Section-level ids of the corpus (records of kind ``section``) and their titles."""
    sections: dict[str, str] = {}
    with corpus.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                if rec.get("chunk_kind") == "section":
                    sections[rec["section_id"]] = rec.get("title") or ""
    return sections


def load_questions(path: Path, sections: dict[str, str]) -> list[dict[str, Any]]:
    """The questions, checked: unique ids, non-empty text, sections that exist in the corpus."""
    questions: list[dict[str, Any]] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            q = json.loads(line)
            where = f"{path}:{n}"
            if not q.get("id") or q["id"] in seen:
                raise SystemExit(f"{where}: missing or duplicate id {q.get('id')!r}")
            if not str(q.get("question", "")).strip():
                raise SystemExit(f"{where}: empty question")
            secs = q.get("sections")
            if not secs or not isinstance(secs, list):
                raise SystemExit(f"{where}: 'sections' must be a non-empty list")
            unknown = [s for s in secs if s not in sections]
            if unknown:
                raise SystemExit(f"{where}: sections not in the corpus: {', '.join(unknown)}")
            seen.add(q["id"])
            questions.append(q)
    return questions


# -- scoring -----------------------------------------------------------------------------------
def belongs(result_id: str | None, section: str) -> bool:
    """Whether a result id (section_id or doc_id) is ``section`` or one of its parts."""
    if not result_id:
        return False
    return (result_id == section or result_id.startswith(section + "(")
            or result_id.startswith(section + "#"))


def result_in(c: ragd.Candidate, sections: Sequence[str]) -> bool:
    return any(belongs(c.section_id, s) or belongs(c.doc_id, s) for s in sections)


def section_of(doc_id: str) -> str:
    """The section-level id of a corpus doc_id (``EAR-740.9(a)(1)`` -> ``EAR-740.9``)."""
    return re.split(r"[(#]", doc_id, maxsplit=1)[0]


def part_of(section: str) -> str:
    m = _PART.match(section)
    return m.group(1) if m else "?"


def summarise(rows: Iterable[dict[str, Any]], mode: str) -> dict[str, Any]:
    rows = list(rows)
    ranks = [r["modes"][mode]["first_hit_rank"] for r in rows]
    hits = sum(1 for rank in ranks if rank is not None)
    return {"questions": len(rows), "hits": hits,
            "recall": round(hits / len(rows), 4) if rows else None,
            "mrr": round(sum(1.0 / rank for rank in ranks if rank) / len(rows), 4) if rows else None}


# -- the run -----------------------------------------------------------------------------------
def open_and_ingest(store: Path, corpus: Path) -> tuple[ragd.Collection, dict[str, Any]]:
    store.mkdir(parents=True, exist_ok=True)
    ignore = store.parent / ".gitignore"
    if store.parent.name == ".cache" and not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")  # keep the cached store out of git
    # the model of its recorded figures (the default profile's is bge-small since issue 17)
    coll = ragd.open_collection(str(store), COLLECTION, "minilm", create=True)
    console.print(f"[bold]Ingest[/bold] {corpus} → {store} (collection {COLLECTION!r}, "
                  f"embedder {coll.embedder.name})")
    last = [time.perf_counter()]

    def progress(report: ragd.IngestReport) -> None:
        now = time.perf_counter()
        if now - last[0] >= 15:
            last[0] = now
            console.print(f"  … {report.new + report.changed} documents written, "
                          f"{report.unchanged} unchanged", highlight=False)

    started = time.perf_counter()
    report = ragd.ingest([str(corpus)], coll, on_progress=progress)
    wall = time.perf_counter() - started
    if report.failed:
        for failure in report.failures:
            console.print(f"[red]failed[/red] {failure.source}: {failure.reason}")
        raise SystemExit("the corpus did not ingest cleanly")
    info = {**report.as_dict(), "wall_seconds": round(wall, 2)}
    console.print(f"  documents {report.documents}: new {report.new}, changed {report.changed}, "
                  f"unchanged {report.unchanged}, failed {report.failed}; chunks written "
                  f"{report.chunks}; {wall:.1f} s", highlight=False)
    return coll, info


def run_questions(coll: ragd.Collection, questions: list[dict[str, Any]], k: int,
                  modes: Sequence[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    # warm-up (model load, matrix cache) so that the first question's latency is not inflated
    for mode in modes:
        ragd.retrieve("export license warm-up", ragd.Plan(k=k, mode=mode), coll)
    for q in questions:
        row: dict[str, Any] = {"id": q["id"], "question": q["question"],
                               "sections": q["sections"], "part": part_of(q["sections"][0]),
                               "modes": {}}
        for mode in modes:
            t0 = time.perf_counter()
            results = ragd.retrieve(q["question"], ragd.Plan(k=k, mode=mode), coll)
            ms = (time.perf_counter() - t0) * 1000
            first = next((c.rank for c in results if result_in(c, q["sections"])), None)
            row["modes"][mode] = {
                "first_hit_rank": first,
                "hit": first is not None,
                "ms": round(ms, 2),
                "pinned": any(c.pinned for c in results),
                "top": [{"rank": c.rank, "doc_id": c.doc_id, "section_id": c.section_id,
                         "section": section_of(c.doc_id), "hit": result_in(c, q["sections"]),
                         "score": round(c.score, 6), "vector_rank": c.vector_rank,
                         "lexical_rank": c.lexical_rank, "title": c.title}
                        for c in results],
            }
        rows.append(row)
    return rows


# -- output ------------------------------------------------------------------------------------
def fmt_rank(rank: int | None) -> str:
    return f"[green]{rank}[/green]" if rank else "[red]–[/red]"


def print_tables(rows: list[dict[str, Any]], metrics: dict[str, Any], by_part: dict[str, Any],
                 modes: Sequence[str], k: int) -> None:
    t = Table(title=f"EAR questions: section recall@{k} and MRR@{k} ({len(rows)} questions)")
    t.add_column("mode")
    t.add_column("hits", justify="right")
    t.add_column(f"recall@{k}", justify="right")
    t.add_column(f"MRR@{k}", justify="right")
    t.add_column("median ms", justify="right")
    for mode in modes:
        m = metrics[mode]
        t.add_row(mode, f"{m['hits']}/{m['questions']}", f"{m['recall']:.3f}", f"{m['mrr']:.3f}",
                  f"{m['median_ms']:.1f}")
    console.print(t)

    t = Table(title=f"recall@{k} by part (hits / questions)")
    t.add_column("part")
    t.add_column("questions", justify="right")
    for mode in modes:
        t.add_column(mode, justify="right")
    for part, per_mode in by_part.items():
        n = per_mode[modes[0]]["questions"]
        t.add_row(f"15 CFR {part}", str(n),
                  *[f"{per_mode[m]['hits']}/{n} ({per_mode[m]['recall']:.2f})" for m in modes])
    console.print(t)

    t = Table(title=f"Per question: rank of the first result in an answering section (– = not in top {k})")
    t.add_column("id")
    t.add_column("section(s)")
    for mode in modes:
        t.add_column(mode[:3], justify="right")
    t.add_column("question", overflow="fold")
    for r in rows:
        t.add_row(r["id"], ", ".join(s.removeprefix("EAR-") for s in r["sections"]),
                  *[fmt_rank(r["modes"][m]["first_hit_rank"]) for m in modes], r["question"])
    console.print(t)

    misses = [r for r in rows if not any(r["modes"][m]["hit"] for m in modes)]
    if misses:
        t = Table(title=f"Questions no mode answered: sections of the top {k} instead")
        t.add_column("id")
        t.add_column("wanted")
        for mode in modes:
            t.add_column(mode, overflow="fold")
        for r in misses:
            t.add_row(r["id"], ", ".join(s.removeprefix("EAR-") for s in r["sections"]),
                      *[" ".join(x["section"].removeprefix("EAR-") for x in r["modes"][m]["top"])
                        for m in modes])
        console.print(t)
    else:
        console.print(f"Every question was answered in the top {k} by at least one mode.")


def reproduce_command(args: argparse.Namespace) -> str:
    python = Path(sys.executable)
    repo = BENCH_DIR.parent
    try:  # the interpreter as run: relative to the repository when it lives inside it
        python_str = str(python.relative_to(repo))
    except ValueError:
        python_str = str(python)
    parts = [python_str, "bench/ear_recall.py"]
    if Path(args.store).resolve() != DEFAULT_STORE.resolve():
        parts += ["--store", str(args.store)]
    if Path(args.corpus).resolve() != DEFAULT_CORPUS.resolve():
        parts += ["--corpus", str(args.corpus)]
    if Path(args.questions).resolve() != DEFAULT_QUESTIONS.resolve():
        parts += ["--questions", str(args.questions)]
    if args.k != 5:
        parts += ["--k", str(args.k)]
    if tuple(args.modes) != MODES:
        parts += ["--modes", *args.modes]
    return shlex.join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS)
    ap.add_argument("--store", type=Path, default=DEFAULT_STORE,
                    help="store directory, kept between runs (default: %(default)s)")
    ap.add_argument("--fresh", action="store_true", help="delete the store first")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    args = ap.parse_args(argv)

    if not args.corpus.exists():
        raise SystemExit(f"corpus not found: {args.corpus} (set RAGD_BENCH_DATA or --corpus)")
    machine = machine_info()
    sections = corpus_sections(args.corpus)
    questions = load_questions(args.questions, sections)
    console.print(f"{len(questions)} questions over {len(sections)} sections of the corpus")

    if args.fresh and args.store.exists():
        shutil.rmtree(args.store)
    coll, ingest_info = open_and_ingest(args.store, args.corpus)
    chunk_count = sum(1 for _ in coll.store.iter_chunks(coll.name))

    rows = run_questions(coll, questions, args.k, args.modes)

    metrics: dict[str, Any] = {}
    for mode in args.modes:
        ms = [r["modes"][mode]["ms"] for r in rows]
        metrics[mode] = {**summarise(rows, mode), "median_ms": round(median(ms), 2)}
    parts: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        parts[r["part"]].append(r)
    by_part = {part: {mode: summarise(prs, mode) for mode in args.modes}
               for part, prs in sorted(parts.items())}

    print_tables(rows, metrics, by_part, args.modes, args.k)
    misses = [r["id"] for r in rows if not any(r["modes"][m]["hit"] for m in args.modes)]
    command = reproduce_command(args)
    path = write_results(NAME, {
        "benchmark": NAME,
        "description": (f"section recall@{args.k} and MRR@{args.k} of hand-written questions "
                        "over 15 CFR parts 736-746; a result counts for section S when its "
                        "section_id or doc_id is S or starts with 'S(' or 'S#'"),
        "command": command,
        "ragd_version": ragd.__version__,
        "corpus": {"path": str(args.corpus), "sha256": sha256_file(args.corpus),
                   "sections": len(sections), "chunks_in_store": chunk_count},
        "questions_file": {"path": str(args.questions), "sha256": sha256_file(args.questions),
                           "count": len(questions)},
        "store": {"path": str(args.store), "collection": COLLECTION,
                  "embedder": coll.embedder.name, "dims": coll.embedder.dims},
        "plan": {"k": args.k, **{f: getattr(ragd.Plan(k=args.k), f)
                                 for f in ("pool", "fusion", "rrf_k", "pin_sections")}},
        "ingest": ingest_info,
        "metrics": metrics,
        "by_part": by_part,
        "missed_by_every_mode": misses,
        "questions": rows,
        "machine": machine,
    })
    console.print(f"results: {path}")
    console.print(f"reproduce: {command}", highlight=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
