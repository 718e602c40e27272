"""Running a whole suite against a backend, and rewriting its goldens on purpose.

``run_suite`` executes every case and compares it with its golden. The corpus is
ingested into two fresh stores (two temporary SQLite stores by default; with a
store location, two fresh collections ``conformance-<random>-a``/``-b`` in it,
dropped afterwards, so user data is never touched), which must hold identical
chunks, ids, embeddings and storage keys; re-ingesting must change nothing.
Retrieval cases then run on the first. ``update_goldens`` runs the same and
writes what the engine does now as the goldens, refusing when the engine is not
deterministic or a vector case holds a near-tie that backends could order
differently.
"""

from __future__ import annotations

import secrets
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..collection import Collection
from ..errors import RagdError, UnknownCollectionError
from ..retrieval import candidate_lists
from ..stores import Store, open_store
from .compare import CaseResult, compare_output, render
from .execute import (ingest_corpus, plan_of, run_chunking, run_fusion, run_retrieval,
                      snapshot)
from .goldens import write_goldens
from .suite import GOLDEN_KINDS, SPEC_VERSION, Case, Suite, load_suite

NEAR_TIE = 1e-5
"""Vector scores closer than this but not equal could be ordered differently by two
backends' float arithmetic: ``update`` refuses to pin such a case."""


@dataclass(frozen=True)
class RunReport:
    """Every case's verdict, where it ran, and the actual outputs (what ``update`` writes)."""

    spec_version: str
    suite: str
    store: str
    backend: str
    results: tuple[CaseResult, ...]
    outputs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    near_ties: tuple[str, ...] = ()

    @property
    def failed(self) -> list[CaseResult]:
        return [r for r in self.results if not r.ok]

    @property
    def ok(self) -> bool:
        return not self.failed

    def as_dict(self) -> dict[str, Any]:
        return {"spec_version": self.spec_version, "suite": self.suite, "store": self.store,
                "backend": self.backend, "ok": self.ok, "cases": len(self.results),
                "passed": len(self.results) - len(self.failed), "failed": len(self.failed),
                "results": [r.as_dict() for r in self.results]}


@dataclass(frozen=True)
class _Target:
    store: Store
    name: str


@contextmanager
def conformance_stores(location: str | None) -> Iterator[tuple[_Target, _Target, str]]:
    """Two fresh, empty places to ingest into, and how to name them in a report.

    No location: two temporary SQLite stores, deleted afterwards. A location (a path or a
    ``postgresql://`` URL): two new collections in it with a random suffix, dropped
    afterwards whatever happens.
    """
    if location is None:
        with tempfile.TemporaryDirectory(prefix="ragd-conformance-") as tmp:
            a, b = open_store(Path(tmp) / "a"), open_store(Path(tmp) / "b")
            try:
                yield _Target(a, "conformance"), _Target(b, "conformance"), \
                    "two temporary SQLite stores"
            finally:
                a.close()
                b.close()
        return
    store = open_store(location)
    token = secrets.token_hex(4)
    names = [f"conformance-{token}-a", f"conformance-{token}-b"]
    try:
        yield _Target(store, names[0]), _Target(store, names[1]), \
            f"{store.url} (collections {names[0]}, {names[1]}, dropped afterwards)"
    finally:
        try:
            for name in names:
                try:
                    store.drop_collection(name)
                except UnknownCollectionError:
                    pass
        finally:
            store.close()


def _error(name: str, exc: Exception) -> CaseResult:
    return CaseResult(name, False, f"raised {type(exc).__name__}: {exc}")


def _snapshot_lines(docs: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for doc_id in sorted(docs):
        lines.append(f"document {doc_id}")
        lines.extend(render("ingest", docs[doc_id]))
    return lines


def _ingest_checks(suite: Suite, a: _Target, b: _Target, outputs: dict[str, dict[str, Any]],
                   results: list[CaseResult]) -> tuple[Collection, str]:
    """Ingest into both targets; check they match and that re-ingesting is a no-op.

    Returns the first target's collection (retrieval cases run on it) and its backend name.
    """
    coll_a, _ = ingest_corpus(suite, a.store, a.name)
    coll_b, _ = ingest_corpus(suite, b.store, b.name)
    backend = str(coll_a.stats().get("backend", type(a.store).__name__))
    snap_a, raw_a = snapshot(coll_a)
    snap_b, raw_b = snapshot(coll_b)
    same = snap_a == snap_b and raw_a == raw_b
    results.append(CaseResult(
        "ingest/two-fresh-stores", same,
        "" if same else "two fresh stores hold different chunks, ids, embeddings or keys",
        tuple(_snapshot_lines(snap_a)), tuple(_snapshot_lines(snap_b)),
        "first store", "second store"))
    again = ingest_corpus(suite, a.store, a.name)[1]
    snap_again, raw_again = snapshot(coll_a)
    expected = f"{len(suite.documents)} unchanged, 0 new, 0 changed, 0 failed"
    got = f"{again.unchanged} unchanged, {again.new} new, {again.changed} changed, " \
          f"{again.failed} failed"
    idempotent = got == expected and snap_again == snap_a and raw_again == raw_a
    results.append(CaseResult(
        "ingest/reingest-unchanged", idempotent,
        "" if idempotent else "re-ingesting the same corpus changed the store",
        (expected, *_snapshot_lines(snap_a)), (got, *_snapshot_lines(snap_again)),
        "first ingest", "after re-ingest"))
    outputs["ingest"] = dict(snap_a)
    for doc in suite.documents:
        results.append(compare_output(f"ingest/{doc.doc_id}", "ingest",
                                      suite.goldens.get("ingest", {}).get(doc.doc_id),
                                      snap_a.get(doc.doc_id) or {}, suite.score_tolerance,
                                      f"actual ({backend})"))
    return coll_a, backend


def _near_ties(case: Case, coll: Collection) -> list[str]:
    """Adjacent vector scores that differ by less than NEAR_TIE without being equal."""
    plan = plan_of(case)
    if plan.mode not in ("vector", "hybrid"):
        return []
    vector = candidate_lists(case.spec["query"], plan, coll).get("vector", [])
    return [f"{case.name}: {x.doc_id}#{x.chunk_index} {x.score!r} and "
            f"{y.doc_id}#{y.chunk_index} {y.score!r}"
            for x, y in zip(vector, vector[1:]) if 0 < abs(x.score - y.score) < NEAR_TIE]


def run_suite(suite: Suite, location: str | None = None, *,
              check_near_ties: bool = False) -> RunReport:
    """Run every case of ``suite`` on ``location`` (default: temporary SQLite stores)."""
    outputs: dict[str, dict[str, Any]] = {kind: {} for kind in GOLDEN_KINDS}
    results: list[CaseResult] = []
    tol = suite.score_tolerance
    for case in suite.cases:
        if case.kind == "retrieval":
            continue
        try:
            actual = run_chunking(case, suite) if case.kind == "chunking" else run_fusion(case)
        except Exception as exc:  # a case that raises is a failed case, not a crashed run
            results.append(_error(case.name, exc))
            continue
        outputs[case.kind][case.id] = actual
        results.append(compare_output(case.name, case.kind,
                                      suite.goldens.get(case.kind, {}).get(case.id), actual, tol))
    near: list[str] = []
    with conformance_stores(location) as (a, b, shown):
        backend = "?"
        try:
            coll, backend = _ingest_checks(suite, a, b, outputs, results)
        except Exception as exc:
            coll = None
            results.append(_error("ingest/two-fresh-stores", exc))
        for case in suite.cases:
            if case.kind != "retrieval":
                continue
            if coll is None:
                results.append(CaseResult(case.name, False, "not run: the corpus did not ingest"))
                continue
            try:
                actual = run_retrieval(case, coll)
                if check_near_ties:
                    near.extend(_near_ties(case, coll))
            except Exception as exc:
                results.append(_error(case.name, exc))
                continue
            outputs["retrieval"][case.id] = actual
            results.append(compare_output(case.name, "retrieval",
                                          suite.goldens.get("retrieval", {}).get(case.id),
                                          actual, tol, f"actual ({backend})"))
    results.extend(_stale(suite))
    return RunReport(SPEC_VERSION, str(suite.root), shown, backend, tuple(results), outputs,
                     tuple(near))


def _stale(suite: Suite) -> list[CaseResult]:
    """Goldens for cases (or documents) the suite no longer has."""
    known: dict[str, set[str]] = {kind: set() for kind in GOLDEN_KINDS}
    for case in suite.cases:
        known[case.kind].add(case.id)
    known["ingest"] = {d.doc_id for d in suite.documents}
    return [CaseResult(f"{kind}/{key}", False, "a golden for a case the suite does not have: "
                       "remove it with `ragd conformance update`")
            for kind in GOLDEN_KINDS for key in sorted(suite.goldens.get(kind, {}))
            if key not in known[kind]]


@dataclass(frozen=True)
class GoldenChange:
    """One golden that ``update`` added, changed or removed (with the diff of a change)."""

    name: str
    change: str
    diff: tuple[str, ...] = ()


def update_goldens(root: str | Path | None = None, location: str | None = None
                   ) -> tuple[RunReport, list[GoldenChange]]:
    """Run the suite and write its actual outputs as the goldens; return what changed.

    Refuses (RagdError, nothing written) when ingest is not deterministic, a case
    raised, or a vector list holds a near-tie.
    """
    suite = load_suite(root, check_goldens=False)
    report = run_suite(suite, location, check_near_ties=True)
    broken = [r for r in report.results
              if not r.ok and (r.name.startswith(("ingest/two-fresh", "ingest/reingest"))
                               or r.message.startswith(("raised", "not run")))]
    if broken:
        raise RagdError("refusing to write goldens: " + "; ".join(
            f"{r.name}: {r.message}" for r in broken))
    if report.near_ties:
        raise RagdError("refusing to write goldens: near-tied vector scores that backends may "
                        "order differently (make them tie exactly or differ clearly): "
                        + "; ".join(report.near_ties))
    changes: list[GoldenChange] = []
    by_name = {r.name: r for r in report.results}
    goldens: dict[str, dict[str, Any]] = {}
    for kind in GOLDEN_KINDS:
        old, new = suite.goldens.get(kind, {}), report.outputs.get(kind, {})
        goldens[kind] = {}
        for key in sorted(set(old) | set(new)):
            name = f"{kind}/{key}"
            if key not in new:
                changes.append(GoldenChange(name, "removed"))
                continue
            if key not in old:
                changes.append(GoldenChange(name, "added"))
            elif not by_name[name].ok:
                changes.append(GoldenChange(name, "changed", tuple(by_name[name].diff())))
            # A golden that still passes is kept as it is: no churn from scores within tolerance.
            goldens[kind][key] = old[key] if key in old and by_name[name].ok else new[key]
        version = suite.golden_versions.get(kind)
        if version is not None and version != SPEC_VERSION:
            changes.append(GoldenChange(f"goldens/{kind}.json",
                                        f"spec_version {version} -> {SPEC_VERSION}"))
    write_goldens(suite.root, goldens)
    return report, changes
