"""Reading a BEIR dataset folder: ``corpus.jsonl[.gz]``, ``queries.jsonl``, ``qrels/<split>.tsv``.

The corpus itself is streamed by ragd's JSONL loader at ingest time (BEIR
records load as they are: ``_id``, ``title``, ``text``); this module finds the
files, fingerprints the corpus (sha256 of its bytes, the cache key) and reads
the queries and relevance judgements. Test queries come in qrels order (the
order in which a query id first appears in the qrels file), so
``--limit-queries N`` always picks the same N queries.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

CORPUS_NAMES = ("corpus.jsonl", "corpus.jsonl.gz")

Qrels = dict[str, dict[str, int]]


@dataclass(frozen=True)
class BeirDataset:
    """A BEIR folder's test material: the corpus file, the queries to run and their qrels."""

    name: str
    root: Path
    corpus_path: Path
    corpus_sha256: str
    split: str
    queries: dict[str, str]        # query id -> text, in qrels order
    qrels: Qrels                   # query id -> {doc id: relevance}

    @property
    def query_ids(self) -> list[str]:
        return list(self.queries)


def find_corpus(root: Path) -> Path:
    for name in CORPUS_NAMES:
        if (root / name).is_file():
            return root / name
    raise UsageError(f"{root}: no corpus.jsonl or corpus.jsonl.gz (is this a BEIR folder?)")


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def read_qrels(path: Path) -> Qrels:
    """``query-id<TAB>corpus-id<TAB>score`` lines (a header line is skipped), query order kept."""
    if not path.is_file():
        raise UsageError(f"no qrels file {path}")
    qrels: Qrels = {}
    with open(path, encoding="utf-8") as stream:
        for lineno, line in enumerate(stream, start=1):
            parts = line.rstrip("\r\n").split("\t")
            if not line.strip():
                continue
            if lineno == 1 and parts[-1].strip().lower() == "score":
                continue  # the BEIR header: query-id corpus-id score
            if len(parts) == 4:  # TREC qrels: qid 0 docid rel
                parts = [parts[0], parts[2], parts[3]]
            if len(parts) != 3:
                raise UsageError(f"{path}:{lineno}: expected query-id, corpus-id, score "
                                 f"separated by tabs, got {len(parts)} fields")
            qid, did, score = (p.strip() for p in parts)
            try:
                rel = int(float(score))
            except ValueError:
                raise UsageError(f"{path}:{lineno}: score {score!r} is not a number") from None
            qrels.setdefault(qid, {})[did] = rel
    if not qrels:
        raise UsageError(f"{path}: no relevance judgements")
    return qrels


def read_queries(path: Path, wanted: set[str]) -> dict[str, str]:
    """Query id -> text for the ids in ``wanted`` (``{"_id", "text"}`` per line)."""
    if not path.is_file():
        raise UsageError(f"no queries file {path}")
    found: dict[str, str] = {}
    with open(path, encoding="utf-8") as stream:
        for lineno, line in enumerate(stream, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                qid, text = str(record["_id"]), record["text"]
            except (ValueError, KeyError, TypeError) as exc:
                raise UsageError(f"{path}:{lineno}: not a BEIR query record ({exc})") from None
            if qid in wanted:
                found[qid] = str(text)
    return found


def load_beir(root: str | Path, split: str = "test", limit_queries: int | None = None,
              name: str | None = None) -> BeirDataset:
    """The dataset in ``root`` with the queries of ``split`` (the first ``limit_queries``)."""
    root = Path(root)
    if not root.is_dir():
        raise UsageError(f"no such directory: {root}")
    corpus = find_corpus(root)
    qrels = read_qrels(root / "qrels" / f"{split}.tsv")
    texts = read_queries(root / "queries.jsonl", set(qrels))
    missing = [q for q in qrels if q not in texts]
    if missing:
        raise UsageError(f"{len(missing)} {split} queries have qrels but no text in "
                         f"queries.jsonl (first: {missing[0]!r})")
    order = list(qrels)
    if limit_queries is not None:
        if limit_queries < 1:
            raise UsageError(f"--limit-queries must be >= 1, got {limit_queries}")
        order = order[:limit_queries]
    return BeirDataset(name=name or root.resolve().name, root=root, corpus_path=corpus,
                       corpus_sha256=file_sha256(corpus), split=split,
                       queries={q: texts[q] for q in order},
                       qrels={q: qrels[q] for q in order})


def write_subset(src: str | Path, dst: str | Path, query_ids: list[str], doc_ids: list[str],
                 split: str = "test") -> Path:
    """A smaller BEIR folder: the ``doc_ids`` documents (lines copied verbatim, corpus order),
    the ``query_ids`` queries and their qrels rows (header kept). For fast regression gates."""
    import gzip

    src, dst = Path(src), Path(dst)
    (dst / "qrels").mkdir(parents=True, exist_ok=True)
    wanted_docs, wanted_queries = set(doc_ids), set(query_ids)
    corpus = find_corpus(src)
    opener = gzip.open if corpus.name.endswith(".gz") else open
    with opener(corpus, "rt", encoding="utf-8") as stream, \
            open(dst / "corpus.jsonl", "w", encoding="utf-8") as out:
        for line in stream:
            if line.strip() and str(json.loads(line)["_id"]) in wanted_docs:
                out.write(line if line.endswith("\n") else line + "\n")
    with open(src / "queries.jsonl", encoding="utf-8") as stream, \
            open(dst / "queries.jsonl", "w", encoding="utf-8") as out:
        for line in stream:
            if line.strip() and str(json.loads(line)["_id"]) in wanted_queries:
                out.write(line if line.endswith("\n") else line + "\n")
    lines = (src / "qrels" / f"{split}.tsv").read_text("utf-8").splitlines()
    kept = [ln for i, ln in enumerate(lines)
            if (i == 0 and ln.split("\t")[-1].strip().lower() == "score")
            or ln.split("\t")[0].strip() in wanted_queries]
    (dst / "qrels" / f"{split}.tsv").write_text("\n".join(kept) + "\n", "utf-8")
    return dst
