"""Loading a conformance suite: manifest, vocabulary, corpus, cases and goldens.

A suite is a folder pinned to one spec version (``suite.json``), with a fixed
vocabulary for the toy embedder, a small corpus (``corpus.jsonl``), cases in
``cases/*.json`` and the expected outputs in ``goldens/*.json``. Every file that
carries a ``spec_version`` must be compatible with the spec this ragd implements,
or the suite is refused with a message naming the file: goldens of another spec
version are never compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from ..embedding.toy import ToyEmbedder
from ..errors import UsageError
from ..types import ChunkPolicy, Document, Segment

SPEC_VERSION = "0.2"
"""The canonical RAG spec version this ragd implements (``canonical-rag-spec.md``, draft v0.2)."""

CASE_KINDS: tuple[str, ...] = ("chunking", "fusion", "retrieval")
GOLDEN_KINDS: tuple[str, ...] = ("chunking", "fusion", "retrieval", "ingest")


def default_suite_dir() -> Path:
    """The suite shipped with ragd for its spec version (``ragd/conformance/suites/v0.2``)."""
    return Path(str(resources.files("ragd.conformance") / "suites" / f"v{SPEC_VERSION}"))


def _version(text: str, where: str) -> tuple[int, ...]:
    try:
        parts = tuple(int(p) for p in str(text).split("."))
    except ValueError:
        parts = ()
    if not 1 <= len(parts) <= 3:
        raise UsageError(f"{where}: spec_version {text!r} is not a version like 0.1 or 1.2.0")
    return parts + (0,) * (3 - len(parts))


def spec_compatible(version: str, where: str = "suite") -> bool:
    """Semver compatibility with :data:`SPEC_VERSION`: same major, and for 0.x the same minor."""
    mine, theirs = _version(SPEC_VERSION, "ragd"), _version(version, where)
    return mine[0] == theirs[0] and (mine[0] > 0 or mine[1] == theirs[1])


def check_spec_version(data: Mapping[str, Any], where: str) -> None:
    """Refuse a file pinned to another spec version (exit 2, naming the file and both versions)."""
    version = data.get("spec_version")
    if version is None:
        raise UsageError(f"{where}: no spec_version; conformance files are pinned to a spec "
                         f"version (this ragd implements spec {SPEC_VERSION})")
    if not spec_compatible(str(version), where):
        raise UsageError(
            f"{where} is pinned to spec version {version}, but this ragd implements spec "
            f"{SPEC_VERSION}: refusing to compare. Use a suite for spec {SPEC_VERSION} "
            f"(the bundled one: {default_suite_dir()}), or regenerate these goldens on "
            "purpose with `ragd conformance update`")


def read_json(path: Path) -> Any:
    """A JSON file, or UsageError naming the file and the position of the mistake."""
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise UsageError(f"conformance suite file missing: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON: {exc}") from None


@dataclass(frozen=True)
class Case:
    """One case: ``kind`` (chunking, fusion, retrieval), its id and its inputs as written."""

    kind: str
    id: str
    spec: Mapping[str, Any]

    @property
    def name(self) -> str:
        """``kind/id``, how reports and diffs name the case."""
        return f"{self.kind}/{self.id}"

    @property
    def description(self) -> str:
        return str(self.spec.get("description", ""))


@dataclass(frozen=True)
class Suite:
    """A loaded suite. ``goldens`` maps a kind to ``{case id: expected output}``."""

    root: Path
    spec_version: str
    vocabulary: tuple[str, ...]
    documents: tuple[Document, ...]
    ingest_policy: ChunkPolicy
    score_tolerance: float
    cases: tuple[Case, ...]
    goldens: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    golden_versions: Mapping[str, str] = field(default_factory=dict)

    def embedder(self) -> ToyEmbedder:
        """The toy bag-of-words embedder over the suite's fixed vocabulary."""
        return ToyEmbedder(self.vocabulary)

    def golden_path(self, kind: str) -> Path:
        return self.root / "goldens" / f"{kind}.json"


def _document(record: Mapping[str, Any], where: str) -> Document:
    """A corpus line as a Document (text, Markdown or timed segments)."""
    try:
        segments = record.get("segments")
        return Document(
            doc_id=str(record["doc_id"]), text=str(record.get("text", "")),
            title=str(record.get("title", "")), source=where,
            format=str(record.get("format", "text")), tags=tuple(record.get("tags", ())),
            metadata=dict(record.get("metadata", {})),
            segments=None if segments is None else tuple(
                Segment(s["text"], float(s["t_start"]), float(s["t_end"])) for s in segments))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{where}: bad corpus record: {exc!r}") from None


def _corpus(path: Path) -> tuple[Document, ...]:
    docs: list[Document] = []
    try:
        lines = path.read_text("utf-8").splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read corpus {path}: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise UsageError(f"{where}: not valid JSON: {exc}") from None
        docs.append(_document(record, where))
    ids = [d.doc_id for d in docs]
    if len(set(ids)) != len(ids):
        raise UsageError(f"{path}: a doc_id appears twice")
    return tuple(docs)


def _cases(root: Path) -> tuple[Case, ...]:
    cases: list[Case] = []
    for kind in CASE_KINDS:
        path = root / "cases" / f"{kind}.json"
        data = read_json(path)
        check_spec_version(data, str(path))
        seen: set[str] = set()
        for spec in data.get("cases", []):
            case_id = str(spec.get("id", ""))
            if not case_id or case_id in seen:
                raise UsageError(f"{path}: every case needs an id of its own (got {case_id!r})")
            seen.add(case_id)
            _check_case(kind, spec, f"{path}: case {case_id!r}")
            cases.append(Case(kind, case_id, spec))
    return tuple(cases)


_REQUIRED: dict[str, tuple[tuple[str, type], ...]] = {
    "chunking": (("policy", dict),),
    "fusion": (("lists", dict),),
    "retrieval": (("query", str), ("plan", dict)),
}


def _check_case(kind: str, spec: Mapping[str, Any], where: str) -> None:
    """The fields a case of ``kind`` needs, with the right JSON types (UsageError if not)."""
    for name, typ in _REQUIRED[kind]:
        if not isinstance(spec.get(name), typ):
            raise UsageError(f"{where}: needs {name!r} ({typ.__name__})")
    if kind == "chunking" and not isinstance(spec.get("text", spec.get("segments")), (str, list)):
        raise UsageError(f"{where}: needs 'text' (a string) or 'segments' (a list)")


def load_goldens(root: Path, *, check: bool = True) -> tuple[dict[str, dict[str, Any]],
                                                             dict[str, str]]:
    """Goldens by kind (a missing file is an empty set) and the spec version of each file.

    With ``check``, a file pinned to an incompatible spec version is refused.
    """
    goldens: dict[str, dict[str, Any]] = {}
    versions: dict[str, str] = {}
    for kind in GOLDEN_KINDS:
        path = root / "goldens" / f"{kind}.json"
        if not path.exists():
            goldens[kind] = {}
            continue
        data = read_json(path)
        if check:
            check_spec_version(data, str(path))
        versions[kind] = str(data.get("spec_version"))
        goldens[kind] = dict(data.get("cases", {}))
    return goldens, versions


def load_suite(root: str | Path | None = None, *, check_goldens: bool = True) -> Suite:
    """Load the suite at ``root`` (default: the bundled one for this spec version)."""
    root = Path(root) if root is not None else default_suite_dir()
    if not root.is_dir():
        raise UsageError(f"no conformance suite at {root} (a folder with suite.json)")
    manifest = read_json(root / "suite.json")
    check_spec_version(manifest, str(root / "suite.json"))
    vocab_file = manifest.get("embedder", {}).get("vocabulary_file", "vocabulary.json")
    vocabulary = read_json(root / vocab_file)
    if not isinstance(vocabulary, list) or not all(isinstance(w, str) for w in vocabulary):
        raise UsageError(f"{root / vocab_file}: the vocabulary must be a JSON list of words")
    try:
        policy = ChunkPolicy(**manifest.get("ingest_policy", {}))
    except TypeError as exc:
        raise UsageError(f"{root / 'suite.json'}: ingest_policy: {exc}") from None
    goldens, versions = load_goldens(root, check=check_goldens)
    return Suite(root=root, spec_version=str(manifest["spec_version"]),
                 vocabulary=tuple(vocabulary),
                 documents=_corpus(root / manifest.get("corpus", "corpus.jsonl")),
                 ingest_policy=policy,
                 score_tolerance=float(manifest.get("score_tolerance", 1e-6)),
                 cases=_cases(root), goldens=goldens, golden_versions=versions)
