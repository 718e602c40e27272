"""kill -9 during an ingest, once writes have begun: nothing partial, nothing lost, and a
re-run equals a clean ingest. Used by tests/ingest/test_kill.py (a few trials) and
bench/kill_ingest.py (a hundred).

A trial ingests a fixed folder (small documents and one document large enough to be staged
in batches) in a child process that SIGKILLs itself at a point chosen at random:

- ``after``: right after the Nth document is committed;
- ``during``: inside the Nth document's write transaction: at its Kth statement; or (K = 0)
  as it inserts the new chunks, the old ones deleted and the document row written; or
  (K = -1) as it commits, everything written;
- ``staging``: after the Kth batch of the large document is staged, before its swap.

The child logs each committed doc_id (fsync'ed) before going on. Then: every stored
document must equal its clean version (no partial document), every logged one must be
stored (none lost), and a re-run without a kill must leave the store equal to a clean
ingest (documents, chunk ids, texts and embedding bytes), with no staged rows left.

    python crash_trial.py child LOCATION DATA MODE N K LOG
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

VOCABULARY = ("audit", "logs", "export", "license", "items", "rule", "red", "green", "blue")
BATCH_CHUNKS = 40        # a document with more chunks than this is staged in batches
STAGE_BATCH = 16         # chunks per staged batch
SMALL_DOCS = 24
BIG_PARAGRAPHS = 120


def make_folder(root: Path) -> Path:
    colours = ("red", "green", "blue")
    for i in range(SMALL_DOCS):
        text = "\n\n".join(f"Rule {i}.{j}: audit logs of {colours[(i + j) % 3]} items"
                           for j in range(1 + i % 4))
        (root / f"doc{i:02d}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"doc{i:02d}.md").write_text(f"# Document {i}\n\n{text}\n")
    (root / "big.txt").write_text("\n\n".join(
        f"Export license rule {i} for {colours[i % 3]} items" for i in range(BIG_PARAGRAPHS)))
    return root


def _policy():
    from ragd.types import ChunkPolicy

    return ChunkPolicy(target_tokens=8, overlap_tokens=0)


def ingest_folder(location: str, data: str) -> dict:
    """A clean (or resumed) ingest of the folder; the report as a dict."""
    from ragd import open_collection
    from ragd.embedding.toy import ToyEmbedder
    from ragd.ingest.pipeline import ingest

    coll = open_collection(location, "c", ToyEmbedder(VOCABULARY), create=True)
    try:
        return ingest([data], coll, policy=_policy(), batch_chunks=BATCH_CHUNKS).as_dict()
    finally:
        coll.close()


def contents(location: str) -> dict[str, tuple]:
    """doc_id -> (content hash, source, [(index, chunk id, text, embedding bytes)])."""
    from ragd.stores import open_store

    store = open_store(location)
    try:
        docs = {d.doc_id: d for d in store.list_documents("c")}
        chunks: dict[str, list] = {d: [] for d in docs}
        for chunk, vector in store.iter_chunks("c"):
            chunks.setdefault(chunk.doc_id, []).append(
                (chunk.chunk_index, chunk.chunk_id, chunk.text, vector.tobytes()))
        return {d: (docs[d].content_hash if d in docs else None,
                    docs[d].source_path if d in docs else None, rows)
                for d, rows in chunks.items()}
    finally:
        store.close()


def staged_rows(location: str) -> int:
    from ragd.stores import open_store

    store = open_store(location)
    try:
        if hasattr(store, "_pool"):
            with store._conn() as conn:
                return conn.execute("SELECT count(*) FROM chunk_staging").fetchone()[0]
        return store._conn.execute("SELECT count(*) FROM chunk_staging").fetchone()[0]
    finally:
        store.close()


def choose(rng: random.Random) -> tuple[str, int, int]:
    """A kill point: (mode, N, K). Documents commit in walk order, the large one first."""
    mode = rng.choice(["after", "during", "staging"])
    if mode == "staging":
        return mode, rng.randint(1, BIG_PARAGRAPHS // STAGE_BATCH - 1), 0
    n = rng.randint(1, SMALL_DOCS)
    return mode, n, (rng.choice([0, -1, rng.randint(1, 12)]) if mode == "during" else 0)


def run_trial(location: str, data: Path, clean: dict, mode: str, n: int, k: int, log: Path,
              env: dict | None = None) -> dict:
    """One killed ingest, then the checks; a dict of what was found (empty lists: fine)."""
    child = subprocess.run([sys.executable, __file__, "child", location, str(data), mode,
                            str(n), str(k), str(log)], capture_output=True, text=True,
                           timeout=300, env={**os.environ, **(env or {})})
    killed = child.returncode == -signal.SIGKILL
    committed = log.read_text().split() if log.exists() else []
    after_kill = contents(location)
    partial = sorted(d for d, value in after_kill.items() if value != clean.get(d))
    lost = sorted(d for d in committed if after_kill.get(d) != clean.get(d))
    rerun = subprocess.run([sys.executable, __file__, "resume", location, str(data)],
                           capture_output=True, text=True, timeout=300,
                           env={**os.environ, **(env or {})})
    final = contents(location)
    differs = sorted(d for d in set(final) | set(clean) if final.get(d) != clean.get(d))
    return {"mode": mode, "n": n, "k": k, "killed": killed, "child_error": "" if killed else
            child.stderr[-2000:], "committed_before_kill": len(committed),
            "stored_after_kill": len(after_kill), "partial": partial, "lost": lost,
            "rerun_exit": rerun.returncode, "rerun_differs": differs,
            "staged_left": staged_rows(location)}


def _child(location: str, data: str, mode: str, n: int, k: int, log: str) -> None:
    """Ingest with a SIGKILL armed at (mode, n, k)."""
    from ragd import open_collection
    from ragd.embedding.toy import ToyEmbedder
    from ragd.ingest import index as index_module
    from ragd.ingest.pipeline import ingest

    coll = open_collection(location, "c", ToyEmbedder(VOCABULARY), create=True)
    store = coll.store
    state = {"docs": 0, "statements": 0, "armed": False, "staged": 0}
    out = open(log, "a")

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def committed(doc_id: str) -> None:
        out.write(doc_id + "\n")
        out.flush()
        os.fsync(out.fileno())
        state["docs"] += 1
        if mode == "after" and state["docs"] == n:
            die()

    def statement(sql: object = "") -> None:
        """Before a statement of a write runs: K > 0, the Kth from document N's write on
        (spilling into the writes after it); K = 0, the insert of its chunks; K = -1, its
        COMMIT."""
        if not state["armed"]:
            return
        state["statements"] += 1
        text = str(sql).upper().strip()  # SQLite: the SQL; Postgres: a Composed's repr
        inserts_chunks = (text.startswith(("INSERT INTO CHUNKS ", "INSERT INTO CHUNKS("))
                          or "SQL('INSERT INTO '), IDENTIFIER('CHUNKS_" in text)
        if ((k > 0 and state["statements"] >= k) or (k == 0 and inserts_chunks)
                or (k < 0 and text.startswith("COMMIT"))):
            die()

    def wrap_write(real):
        def write(collection, record, *args, **kwargs):
            if mode == "during" and state["docs"] + 1 == n:
                state["armed"] = True
            result = real(collection, record, *args, **kwargs)
            committed(record.doc_id)
            return result
        return write

    store.upsert_document = wrap_write(store.upsert_document)
    store.commit_staged = wrap_write(store.commit_staged)
    real_stage = store.stage_chunks

    def stage(*args, **kwargs):
        real_stage(*args, **kwargs)
        state["staged"] += 1
        if mode == "staging" and state["staged"] == n:
            die()

    store.stage_chunks = stage
    if hasattr(store, "_pool"):  # Postgres: the statements a write sends, and its commit
        import psycopg

        for cls, name in ((psycopg.Connection, "execute"), (psycopg.Cursor, "execute"),
                          (psycopg.Cursor, "executemany")):
            real = getattr(cls, name)

            def counted(self, query, *args, __real=real, **kwargs):
                statement(query)
                return __real(self, query, *args, **kwargs)

            setattr(cls, name, counted)
        real_commit = psycopg.Connection.commit

        def commit(self):
            statement("COMMIT")
            return real_commit(self)

        psycopg.Connection.commit = commit
    else:
        store._conn.set_trace_callback(statement)
    index_module_write_staged = index_module.write_staged

    def write_staged(*args, **kwargs):
        kwargs["batch"] = STAGE_BATCH
        return index_module_write_staged(*args, **kwargs)

    from ragd.ingest import pipeline as pipeline_module

    pipeline_module.write_staged = write_staged
    ingest([data], coll, policy=_policy(), batch_chunks=BATCH_CHUNKS)
    coll.close()


if __name__ == "__main__":
    if sys.argv[1] == "child":
        _child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]),
               sys.argv[7])
    elif sys.argv[1] == "resume":
        print(json.dumps(ingest_folder(sys.argv[2], sys.argv[3])))
