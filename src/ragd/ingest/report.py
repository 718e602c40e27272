"""What an ingest run did: counts, every file skipped or failed with its reason, progress."""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field

from .base import SKIPPED_CODES, LoadFailure, reason_name

JOB_NAMESPACE = uuid.UUID("6f1c2a52-3b0e-5d6e-9a51-72616764a0b1")


@dataclass
class IngestReport:
    """What an ingest run did (the CLI prints it as its summary).

    ``failures`` are documents (files, JSONL lines) that could not be stored: each counts
    in ``failed``. ``skipped`` are files left out by design (a type no loader reads, a file
    reached twice): reported, but not failures. ``pruned`` lists the doc_ids removed because
    their file is gone (``--prune``). ``files_total``/``bytes_total`` (when known) and
    ``bytes_done`` drive the progress line's ETA.
    """

    new: int = 0
    changed: int = 0
    unchanged: int = 0
    failed: int = 0
    chunks: int = 0
    embedded: int = 0
    seconds: float = 0.0
    failures: list[LoadFailure] = field(default_factory=list)
    skipped: list[LoadFailure] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)  # doc_id:content_hash of every document
    files_total: int = 0
    bytes_total: int = 0
    files_done: int = 0
    bytes_done: float = 0.0

    @property
    def documents(self) -> int:
        return self.new + self.changed + self.unchanged + self.failed

    @property
    def loaded(self) -> int:
        """Documents that are in the store as they are on disk after the run."""
        return self.new + self.changed + self.unchanged

    @property
    def job_id(self) -> str:
        """A UUID derived from what the run saw (the same input gives the same id)."""
        return str(uuid.uuid5(JOB_NAMESPACE, "\n".join(sorted(self.seen))))

    def add_failure(self, failure: LoadFailure) -> None:
        """A file or line not loaded: skipped by design, or a failed document."""
        if failure.code in SKIPPED_CODES:
            self.skipped.append(failure)
        else:
            self.failed += 1
            self.failures.append(failure)

    def by_reason(self) -> dict[str, int]:
        """How many were skipped or failed, per reason (as a person reads it)."""
        counts = Counter(reason_name(f.code) for f in self.skipped + self.failures)
        return dict(sorted(counts.items()))

    @property
    def exit_code(self) -> int:
        """0 when every document found was loaded; 1 when any failed (the others are
        stored) or when nothing at all was found to load."""
        return 1 if self.failed or (self.documents == 0 and not self.pruned) else 0

    def as_dict(self) -> dict:
        def items(found: list[LoadFailure]) -> list[dict]:
            return [{"source": f.source, "reason": f.reason, "code": f.code} for f in found]

        return {"documents": self.documents, "new": self.new, "changed": self.changed,
                "unchanged": self.unchanged, "failed": self.failed, "chunks": self.chunks,
                "seconds": round(self.seconds, 3), "failures": items(self.failures),
                "skipped": items(self.skipped), "by_reason": self.by_reason(),
                "pruned": list(self.pruned), "warnings": list(self.warnings),
                "exit_code": self.exit_code}

    def as_ingestion_result(self) -> dict:
        """The rag-pipeline contract's IngestionResult (field names as the contract)."""
        return {"job_id": self.job_id, "documents_processed": self.documents - self.failed,
                "documents_failed": self.failed, "embedding_count": self.embedded,
                "errors": [f.source for f in self.failures], "warnings": list(self.warnings),
                "duration_seconds": round(self.seconds, 3)}
