"""Raw model throughput vs end-to-end ``ragd ingest`` on SciFact abstracts, in one run.

    .venv/bin/python bench/embedding.py                 # first 1000 documents, 1 repetition
    .venv/bin/python bench/embedding.py --docs 0        # all 5,183 documents
    .venv/bin/python bench/embedding.py --repeat 3      # medians of 3 interleaved repetitions
    .venv/bin/python bench/embedding.py --slices 4      # busy machine: alternate raw/ingest
                                                        # over 4 files so both see the same load

What it measures, on the same texts:

(a) raw: ``MiniLMEmbedder().embed_documents(texts)`` on exactly the chunk texts ragd
    embeds (``chunk.search_text`` of ``chunk_document`` under the default ChunkPolicy),
    after a warm-up that loads the model;
(b) end to end: ``ragd.ingest([file], collection)`` into a fresh store (same warmed
    embedder, so the difference is pipeline cost), and the real CLI
    ``ragd ingest FILE --store DIR --json`` as a subprocess (wall time, which includes
    interpreter start-up and model load, and the seconds the CLI itself reports);
    overhead % = (e2e time - raw time) / raw time (target <= 10 %);
(c) re-ingest of the unchanged file into the same store, as % of the first ingest
    (target < 5 %);
(d) one document edited and re-ingested: only that one must be re-chunked.

Repetitions are interleaved (raw, library, CLI, raw, ...) and medians reported, so
background load hits every measurement alike. Results: ``bench/results/embedding.json``.
No timed assertions: this is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import gzip
import inspect
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (SCIFACT, load_average, machine_info, make_console, median,  # noqa: E402
                     write_results)

import ragd  # noqa: E402
from ragd.chunking import chunk_document  # noqa: E402
from ragd.embedding.onnx import MiniLMEmbedder  # noqa: E402
from ragd.embedding.tokenizer import MAX_SEQ_LENGTH, model_tokenizer  # noqa: E402
from ragd.ingest.loaders import iter_documents  # noqa: E402
from ragd.ingest.pipeline import document_hash, ingest_documents  # noqa: E402
from ragd.stores import DocumentRecord  # noqa: E402
from ragd.types import ChunkPolicy  # noqa: E402

console = make_console()
COLLECTION = "bench"
EDIT_SUFFIX = " This sentence was appended by the ragd embedding benchmark."


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def write_subset(corpus: Path, n: int, out: Path) -> int:
    """The first ``n`` lines (all when 0) of the BEIR corpus, byte for byte, as plain JSONL."""
    count = 0
    with gzip.open(corpus, "rb") as src, open(out, "wb") as dst:
        for line in src:
            if not line.strip():
                continue
            dst.write(line if line.endswith(b"\n") else line + b"\n")
            count += 1
            if n and count >= n:
                break
    return count


def write_edited(src: Path, dst: Path, index: int) -> str:
    """Write ``src`` to ``dst`` (may be the same file) with the text of the ``index``-th record
    extended; returns its id."""
    lines = src.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[index])
    record["text"] = record["text"] + EDIT_SUFFIX
    lines[index] = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    dst.write_bytes(b"".join(lines))
    return str(record["_id"])


def padded_tokens(lengths: list[int], groups: list[list[int]], batch_size: int) -> int:
    """Tokens the model runs over (batch rows x longest row) when each group of positions
    is embedded by one ``embed_documents`` call (longest first, batches of ``batch_size``)."""
    total = 0
    for group in groups:
        order = sorted(group, key=lambda i: (-lengths[i], i))
        for start in range(0, len(order), batch_size):
            part = order[start:start + batch_size]
            total += len(part) * max(lengths[i] for i in part)
    return total


PIPELINE_BATCH_CHUNKS = inspect.signature(ingest_documents).parameters["batch_chunks"].default


def pipeline_groups(chunk_counts: list[int], batch_chunks: int = PIPELINE_BATCH_CHUNKS
                    ) -> list[list[int]]:
    """Positions of the chunks embedded together by the ingest pipeline (its flush rule)."""
    groups: list[list[int]] = []
    pending: list[int] = []
    pos = 0
    for count in chunk_counts:
        pending.extend(range(pos, pos + count))
        pos += count
        if len(pending) >= batch_chunks:
            groups.append(pending)
            pending = []
    if pending:
        groups.append(pending)
    return groups


def ragd_command() -> list[str]:
    script = Path(sys.executable).parent / "ragd"
    if script.exists():
        return [str(script)]
    found = shutil.which("ragd")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from ragd.cli import main; sys.exit(main())"]


def clean_env() -> dict[str, str]:
    """The environment without RAGD_* settings, so only the arguments choose store and model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGD_")}
    env["NO_COLOR"] = "1"
    return env


def run_cli(args: list[str], cwd: Path) -> tuple[float, float, dict[str, Any]]:
    """(wall seconds, child CPU seconds, parsed --json output) of one ``ragd`` call."""
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run([*ragd_command(), *args], cwd=cwd, env=clean_env(),
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"ragd {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return wall, children_cpu() - cpu0, json.loads(proc.stdout)


class TimedEmbedder:
    """The same embedder, counting the time spent inside ``embed_documents`` (so an ingest's
    time splits into model time and everything else). Same name, dims and spec."""

    def __init__(self, inner: MiniLMEmbedder) -> None:
        self.inner = inner
        self.name, self.dims = inner.name, inner.dims
        self.max_input_tokens = inner.max_input_tokens
        self.seconds = 0.0
        self.calls = 0

    def embed_documents(self, texts):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - t0
            self.calls += 1

    def embed_query(self, text):  # type: ignore[no-untyped-def]
        return self.inner.embed_query(text)

    def count_tokens(self, texts):  # type: ignore[no-untyped-def]
        return self.inner.count_tokens(texts)

    def spec(self):  # type: ignore[no-untyped-def]
        return self.inner.spec()


def chunk_keys(coll: ragd.Collection) -> dict[str, tuple[str, ...]]:
    """doc_id -> its chunk ids in order (what 're-chunked' changes)."""
    out: dict[str, list[str]] = {}
    for chunk, _ in coll.store.iter_chunks(coll.name):
        out.setdefault(chunk.doc_id, []).append(chunk.chunk_id)
    return {k: tuple(v) for k, v in out.items()}


def pct(value: float, base: float) -> float:
    return 100.0 * value / base if base else float("nan")


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # so that ``finally`` removes the work directory


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _terminate)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1000,
                        help="first N documents of the corpus (0: all); default 1000")
    parser.add_argument("--repeat", type=int, default=1,
                        help="interleaved repetitions of raw / library / CLI (medians reported)")
    parser.add_argument("--slices", type=int, default=1,
                        help="ingest the documents as K consecutive files, alternating raw "
                             "embedding and library ingest slice by slice so both see the same "
                             "background load (default 1: one file, raw then ingest)")
    parser.add_argument("--corpus", type=Path, default=SCIFACT / "corpus.jsonl.gz")
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI subprocess runs")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--name", default="embedding", help="results file name (without .json)")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        raise SystemExit(f"corpus not found: {args.corpus}")

    machine = machine_info()
    work = Path(tempfile.mkdtemp(prefix="ragd-bench-embedding-"))
    policy = ChunkPolicy()
    try:
        # -- the texts ---------------------------------------------------------------------
        data = work / "corpus.jsonl"
        n_docs = write_subset(args.corpus, args.docs, data)
        t0 = time.perf_counter()
        docs = list(iter_documents([data]))
        load_s = time.perf_counter() - t0
        if len(docs) != n_docs:
            raise SystemExit(f"ragd loaded {len(docs)} of {n_docs} documents")
        embedder = MiniLMEmbedder()
        t0 = time.perf_counter()
        per_doc = [chunk_document(d, policy, count_tokens=embedder.count_tokens) for d in docs]
        chunk_s = time.perf_counter() - t0
        chunks = [c for cs in per_doc for c in cs]
        texts = [c.search_text for c in chunks]
        t0 = time.perf_counter()
        for d in docs:
            document_hash(d, policy)
        hash_s = time.perf_counter() - t0
        console.print(f"{n_docs} documents -> {len(chunks)} chunks "
                      f"(load {load_s:.2f} s, chunk {chunk_s:.2f} s); work dir {work}")

        # Model tokens per chunk as the model sees them (specials, truncation at 256).
        # encode_batch pads to the longest, so count the attention mask.
        lengths = [int(sum(e.attention_mask)) for e in model_tokenizer().encode_batch(texts)]

        # -- warm-up: model load + first batch ---------------------------------------------
        t0 = time.perf_counter()
        embedder.embed_documents(texts[:embedder.batch_size])
        warmup_s = time.perf_counter() - t0

        slices = []  # (file, first chunk, end chunk) per slice of documents
        bounds = np.linspace(0, n_docs, max(1, min(args.slices, n_docs)) + 1).astype(int)
        lines = data.read_bytes().splitlines(keepends=True) if len(bounds) > 2 else []
        starts = np.cumsum([0] + [len(cs) for cs in per_doc])
        for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            path = data
            if len(bounds) > 2:
                path = work / f"slice-{i:03d}.jsonl"
                path.write_bytes(b"".join(lines[a:b]))
            slices.append((path, int(starts[a]), int(starts[b])))

        # Model tokens run (rows x longest row per batch): raw sorts each slice at once, the
        # pipeline sorts each of its flushes (>= PIPELINE_BATCH_CHUNKS chunks, whole documents).
        counts = [len(cs) for cs in per_doc]
        raw_groups = [list(range(lo, hi)) for _, lo, hi in slices]
        pipe_groups = []
        for a, b in zip(bounds[:-1], bounds[1:]):
            pipe_groups += [[int(starts[a]) + i for i in g]
                            for g in pipeline_groups(counts[a:b])]
        raw_padded = padded_tokens(lengths, raw_groups, embedder.batch_size)
        pipe_padded = padded_tokens(lengths, pipe_groups, embedder.batch_size)

        raw_runs: list[dict[str, Any]] = []
        lib_runs: list[dict[str, Any]] = []
        cli_runs: list[dict[str, Any]] = []
        vectors = np.zeros((0, embedder.dims), np.float32)
        lib_coll: ragd.Collection | None = None
        cli_store: Path | None = None
        for rep in range(args.repeat):
            tag = f"[{rep + 1}/{args.repeat}]"
            # (a) raw model and (b1) library ingest into a fresh store (same warmed
            # embedder), slice by slice when --slices > 1 so both see the same load.
            if lib_coll is not None:
                lib_coll.close()
            timed = TimedEmbedder(embedder)
            lib_coll = ragd.open_collection(str(work / f"lib-{rep}"), COLLECTION, timed,
                                            create=True)
            raw_run = {"seconds": 0.0, "cpu_seconds": 0.0}
            lib_run: dict[str, Any] = {"seconds": 0.0, "cpu_seconds": 0.0,
                                       "reported_seconds": 0.0, "new": 0, "changed": 0,
                                       "unchanged": 0, "failed": 0, "chunks": 0}
            vectors = np.zeros((len(texts), embedder.dims), np.float32)
            for i, (path, lo, hi) in enumerate(slices):
                steps = ["raw", "lib"] if (i + rep) % 2 == 0 else ["lib", "raw"]
                for step in steps:
                    c0, t0 = time.process_time(), time.perf_counter()
                    if step == "raw":
                        vectors[lo:hi] = embedder.embed_documents(texts[lo:hi])
                        run = raw_run
                    else:
                        report = ragd.ingest([path], lib_coll)
                        for key in ("new", "changed", "unchanged", "failed", "chunks"):
                            lib_run[key] += getattr(report, key)
                        lib_run["reported_seconds"] += report.seconds
                        run = lib_run
                    run["seconds"] += time.perf_counter() - t0
                    run["cpu_seconds"] += time.process_time() - c0
            raw_run["load_average"] = lib_run["load_average"] = load_average()
            lib_run.update({"model_seconds": timed.seconds, "embed_calls": timed.calls,
                            "non_model_seconds": lib_run["seconds"] - timed.seconds,
                            "documents": n_docs, "slices": len(slices)})
            raw_runs.append(raw_run)
            lib_runs.append(lib_run)
            console.print(f"{tag} raw embed: {raw_run['seconds']:.1f} s; "
                          f"ragd.ingest: {lib_run['seconds']:.1f} s")
            # (b2) the real CLI, fresh store
            if not args.no_cli:
                cli_store = work / f"cli-{rep}"
                wall, cpu, out = run_cli(["ingest", str(data), "--store", str(cli_store),
                                          "--json"], cwd=work)
                cli_runs.append({"wall_seconds": wall, "cpu_seconds": cpu,
                                 "reported_seconds": out["seconds"], **out,
                                 "load_average": load_average()})
                console.print(f"{tag} ragd ingest (CLI): {wall:.1f} s wall")
        assert lib_coll is not None

        # -- sanity: ragd stored exactly the texts the raw run embedded ----------------------
        stored = sorted(((c.key, c.search_text, v) for c, v in lib_coll.store.iter_chunks(
            lib_coll.name)), key=lambda t: t[0])
        expected = sorted(((c.key, c.search_text, i) for i, c in enumerate(chunks)),
                          key=lambda t: t[0])
        same_texts = ([(k, t) for k, t, _ in stored] == [(k, t) for k, t, _ in expected])
        stored_vecs = np.stack([v for _, _, v in stored]) if stored else vectors[:0]
        raw_vecs = vectors[[i for _, _, i in expected]]
        max_abs_diff = float(np.max(np.abs(stored_vecs - raw_vecs))) if same_texts else None
        min_cosine = (float(np.min(np.sum(stored_vecs * raw_vecs, axis=1)))
                      if same_texts else None)

        # -- store writes alone (precomputed vectors, no model) -----------------------------
        write_coll = ragd.open_collection(str(work / "write-only"), COLLECTION, embedder,
                                          create=True)
        t0, pos = time.perf_counter(), 0
        for d, cs in zip(docs, per_doc):
            record = DocumentRecord(doc_id=d.doc_id, content_hash=document_hash(d, policy),
                                    title=d.title, source=d.source, metadata=dict(d.metadata))
            write_coll.store.upsert_document(COLLECTION, record, cs, vectors[pos:pos + len(cs)])
            pos += len(cs)
        write_s = time.perf_counter() - t0
        write_coll.close()

        # -- (c) re-ingest unchanged -------------------------------------------------------
        re_runs = []
        for _ in range(max(3, args.repeat)):
            t0 = time.perf_counter()
            rep_report = ragd.ingest([data], lib_coll)
            re_runs.append({"seconds": time.perf_counter() - t0, **rep_report.as_dict()})
        re_cli = []
        if cli_store is not None:
            for _ in range(max(3, args.repeat)):
                wall, cpu, out = run_cli(["ingest", str(data), "--store", str(cli_store),
                                          "--json"], cwd=work)
                re_cli.append({"wall_seconds": wall, "cpu_seconds": cpu, **out})

        # -- (d) edit one document, re-ingest ----------------------------------------------
        # The edit is made in place: a document's identity includes its source file, so the
        # same record in another file would be a different source (refused as a duplicate).
        edited = data
        edit_index = n_docs // 2
        edit_id = write_edited(data, edited, edit_index)
        before = chunk_keys(lib_coll)
        t0 = time.perf_counter()
        edit_report = ragd.ingest([edited], lib_coll)
        edit_s = time.perf_counter() - t0
        after = chunk_keys(lib_coll)
        rechunked = sorted(d for d in set(before) | set(after) if before.get(d) != after.get(d))
        versions = {r.doc_id: r.version for r in lib_coll.store.list_documents(lib_coll.name)}
        bumped = sorted(d for d, v in versions.items() if v != 1)
        edited_doc = next(d for d in iter_documents([edited]) if d.doc_id == edit_id)
        edited_chunks = len(chunk_document(edited_doc, policy, count_tokens=embedder.count_tokens))
        only_one = (edit_report.changed == 1 and edit_report.new == 0
                    and edit_report.unchanged == n_docs - 1 and rechunked == [edit_id]
                    and bumped == [edit_id] and edit_report.chunks == edited_chunks)
        store_bytes = lib_coll.stats()["bytes"]
        lib_coll.close()
    finally:
        if args.keep:
            console.print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    # -- summary ---------------------------------------------------------------------------
    n_chunks = len(texts)
    raw_s = median([r["seconds"] for r in raw_runs])
    lib_s = median([r["seconds"] for r in lib_runs])
    lib_chunks = lib_runs[-1]["chunks"]
    lib_model = median([r["model_seconds"] for r in lib_runs])
    lib_other = median([r["non_model_seconds"] for r in lib_runs])
    cli_wall = median([r["wall_seconds"] for r in cli_runs]) if cli_runs else None
    cli_rep = median([r["reported_seconds"] for r in cli_runs]) if cli_runs else None
    re_s = median([r["seconds"] for r in re_runs])
    re_cli_s = median([r["wall_seconds"] for r in re_cli]) if re_cli else None
    results: dict[str, Any] = {
        "benchmark": "embedding",
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "machine": machine,
        "settings": {"docs_requested": args.docs, "documents": n_docs, "repeat": args.repeat,
                     "corpus": str(args.corpus), "policy": policy.as_dict(),
                     "embedder": embedder.spec(), "batch_size": embedder.batch_size,
                     "ingest_batch_chunks": PIPELINE_BATCH_CHUNKS, "threads": embedder.threads or min(
                         os.cpu_count() or 1, 8),
                     "slices": len(slices),
                     "statistic": f"median of {args.repeat} interleaved run(s)"
                                  + (f", raw/library alternated over {len(slices)} slices"
                                     if len(slices) > 1 else "")},
        "texts": {"documents": n_docs, "chunks": n_chunks,
                  "chunks_per_document": n_chunks / n_docs,
                  "mean_model_tokens": sum(lengths) / n_chunks,
                  "max_model_tokens": max(lengths),
                  "truncated_chunks": sum(1 for x in lengths if x >= MAX_SEQ_LENGTH)},
        "raw": {"seconds": raw_s, "passages_per_second": n_chunks / raw_s,
                "warmup_seconds": warmup_s, "runs": raw_runs},
        "library_ingest": {"seconds": lib_s, "chunks": lib_chunks,
                           "chunks_per_second": lib_chunks / lib_s,
                           "documents_per_second": n_docs / lib_s,
                           "overhead_pct": pct(lib_s - raw_s, raw_s), "target_overhead_pct": 10,
                           "model_seconds": lib_model, "non_model_seconds": lib_other,
                           "model_overhead_pct": pct(lib_model - raw_s, raw_s),
                           "non_model_overhead_pct": pct(lib_other, raw_s),
                           "runs": lib_runs},
        "cli_ingest": ({"wall_seconds": cli_wall, "reported_seconds": cli_rep,
                        "chunks_per_second_wall": cli_runs[-1]["chunks"] / cli_wall,
                        "overhead_pct_wall": pct(cli_wall - raw_s, raw_s),
                        "overhead_pct_reported": pct(cli_rep - raw_s, raw_s),
                        "runs": cli_runs} if cli_runs else None),
        "reingest_unchanged": {"seconds": re_s, "pct_of_first_ingest": pct(re_s, lib_s),
                               "target_pct": 5, "runs": re_runs,
                               "cli_wall_seconds": re_cli_s,
                               "cli_pct_of_first_ingest": (pct(re_cli_s, cli_wall)
                                                           if re_cli_s and cli_wall else None),
                               "cli_runs": re_cli},
        "edit_one": {"doc_id": edit_id, "seconds": edit_s, **edit_report.as_dict(),
                     "rechunked_documents": rechunked, "version_bumped": bumped,
                     "expected_chunks": edited_chunks, "only_that_one_rechunked": only_one},
        "breakdown": {"load_seconds": load_s, "chunk_seconds": chunk_s,
                      "hash_seconds": hash_s, "store_write_seconds": write_s,
                      "model_warmup_seconds": warmup_s,
                      "padded_tokens_raw": raw_padded, "padded_tokens_pipeline": pipe_padded,
                      "padding_extra_pct": pct(pipe_padded - raw_padded, raw_padded),
                      "real_tokens": sum(lengths)},
        "sanity": {"stored_texts_equal_raw_texts": same_texts,
                   "max_abs_diff_stored_vs_raw_vectors": max_abs_diff,
                   "min_cosine_stored_vs_raw_vectors": min_cosine,
                   "store_bytes": store_bytes},
    }
    path = write_results(args.name, results)
    print_table(results)
    console.print(f"results: {path}")
    return 0


def print_table(r: dict[str, Any]) -> None:
    t = r["texts"]
    raw, lib, cli = r["raw"], r["library_ingest"], r["cli_ingest"]
    re_, ed, bd = r["reingest_unchanged"], r["edit_one"], r["breakdown"]
    stat = r["settings"]["statistic"]
    table = Table(title=f"ragd embedding vs ingest — SciFact, {t['documents']} documents, "
                        f"{t['chunks']} chunks ({t['mean_model_tokens']:.0f} model tokens/chunk "
                        f"mean) — {stat}")
    table.add_column("measure")
    table.add_column("seconds", justify="right")
    table.add_column("throughput", justify="right")
    table.add_column("vs raw / target", justify="right")
    table.add_column("notes")
    table.add_row("(a) raw embed_documents", f"{raw['seconds']:.2f}",
                  f"{raw['passages_per_second']:.1f} passages/s", "—",
                  f"after warm-up ({raw['warmup_seconds']:.2f} s: model load + 1 batch)")
    ok = "✓" if lib["overhead_pct"] <= lib["target_overhead_pct"] else "✗"
    table.add_row("(b) ragd.ingest (library)", f"{lib['seconds']:.2f}",
                  f"{lib['chunks_per_second']:.1f} chunks/s",
                  f"{lib['overhead_pct']:+.1f} % {ok} (≤ 10 %)",
                  f"fresh store, warmed embedder; {lib['documents_per_second']:.1f} docs/s")
    if cli:
        ok = "✓" if cli["overhead_pct_wall"] <= 10 else "✗"
        table.add_row("(b) ragd ingest CLI, wall", f"{cli['wall_seconds']:.2f}",
                      f"{cli['chunks_per_second_wall']:.1f} chunks/s",
                      f"{cli['overhead_pct_wall']:+.1f} % {ok}",
                      "subprocess: start-up + model load + ingest")
        table.add_row("(b) ragd ingest CLI, reported", f"{cli['reported_seconds']:.2f}", "",
                      f"{cli['overhead_pct_reported']:+.1f} %",
                      "the CLI's own 'seconds' (includes model load)")
    ok = "✓" if re_["pct_of_first_ingest"] < re_["target_pct"] else "✗"
    table.add_row("(c) re-ingest unchanged (library)", f"{re_['seconds']:.3f}", "",
                  f"{re_['pct_of_first_ingest']:.2f} % of first {ok} (< 5 %)",
                  f"unchanged={re_['runs'][-1]['unchanged']}, chunks={re_['runs'][-1]['chunks']}")
    if re_["cli_wall_seconds"] is not None:
        table.add_row("(c) re-ingest unchanged (CLI wall)", f"{re_['cli_wall_seconds']:.3f}", "",
                      f"{re_['cli_pct_of_first_ingest']:.2f} % of first",
                      "mostly interpreter start-up and imports")
    table.add_row("(d) edit 1 document, re-ingest", f"{ed['seconds']:.3f}", "",
                  "✓ only it" if ed["only_that_one_rechunked"] else "✗",
                  f"changed={ed['changed']} new={ed['new']} unchanged={ed['unchanged']} "
                  f"chunks={ed['chunks']} (doc {ed['doc_id']})")
    table.add_section()
    table.add_row("  ingest: inside embed_documents", f"{lib['model_seconds']:.2f}", "",
                  f"{lib['model_overhead_pct']:+.1f} % vs raw",
                  f"model time within ragd.ingest ({lib['runs'][-1]['embed_calls']} calls)")
    table.add_row("  ingest: everything else", f"{lib['non_model_seconds']:.2f}", "",
                  f"{lib['non_model_overhead_pct']:+.1f} % of raw",
                  "load, hash, chunk, store writes, Python glue")
    table.add_row("  load documents (JSONL)", f"{bd['load_seconds']:.3f}", "", "", "breakdown")
    table.add_row("  chunking (default policy)", f"{bd['chunk_seconds']:.3f}", "",
                  f"{pct(bd['chunk_seconds'], raw['seconds']):.1f} % of raw", "breakdown")
    table.add_row("  content hashing", f"{bd['hash_seconds']:.3f}", "", "", "breakdown")
    table.add_row("  store writes only", f"{bd['store_write_seconds']:.3f}", "",
                  f"{pct(bd['store_write_seconds'], raw['seconds']):.1f} % of raw",
                  "upsert_document with precomputed vectors")
    table.add_row("  padding, pipeline batches", "", "",
                  f"{bd['padding_extra_pct']:+.1f} % tokens",
                  f"model tokens run: {bd['padded_tokens_pipeline']:,} "
                  f"({PIPELINE_BATCH_CHUNKS}-chunk flushes) vs "
                  f"{bd['padded_tokens_raw']:,} (one sort); real {bd['real_tokens']:,}")
    s = r["sanity"]
    if s["stored_texts_equal_raw_texts"]:
        table.add_row("  sanity", "", "", "✓",
                      f"stored texts == raw texts; vectors max |Δ| "
                      f"{s['max_abs_diff_stored_vs_raw_vectors']:.2e}, min cos "
                      f"{s['min_cosine_stored_vs_raw_vectors']:.6f}")
    else:
        table.add_row("  sanity", "", "", "✗", "stored chunk texts differ from the raw texts")
    console.print(table)
    m = r["machine"]
    console.print(f"{m['cpu_model']}, {m['cores']} cores, python {m['python']}, numpy "
                  f"{m['numpy']}, onnxruntime {m['onnxruntime']}; load average at start "
                  f"{m['load_average_at_start']}. Other work may share the machine: "
                  f"see the per-run load averages in the JSON.")


if __name__ == "__main__":
    sys.exit(main())
