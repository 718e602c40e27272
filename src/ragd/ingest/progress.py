"""Progress of an ingest run as one line of text every few seconds, for where no terminal
shows a live bar (CI logs, ``nohup``, a file): files, chunks embedded, chunks per second
and the time left, estimated from the bytes of the files done so far."""

from __future__ import annotations

import time
from typing import Callable, TextIO

from .report import IngestReport

Clock = Callable[[], float]


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def describe(report: IngestReport, elapsed: float, time_left: bool = True) -> str:
    """One line: ``12/40 files, 3,456 chunks, 35.1 chunks/s, 2m10s left``."""
    files = (f"{report.files_done}/{report.files_total} files" if report.files_total
             else f"{report.documents} documents")
    rate = report.embedded / elapsed if elapsed > 0 else 0.0
    parts = [files, f"{report.embedded:,} chunks", f"{rate:.1f} chunks/s"]
    if not time_left:
        pass
    elif report.bytes_total and report.bytes_done > 0:
        left = elapsed * (report.bytes_total - report.bytes_done) / report.bytes_done
        parts.append(f"{_duration(max(0.0, left))} left")
    elif report.bytes_total:
        parts.append("time left unknown yet")
    return ", ".join(parts)


class ProgressLines:
    """Writes :func:`describe` to ``stream`` at most every ``interval`` seconds."""

    def __init__(self, stream: TextIO, interval: float = 10.0, clock: Clock = time.monotonic,
                 prefix: str = "ingest: ") -> None:
        self.stream = stream
        self.interval = interval
        self.clock = clock
        self.prefix = prefix
        self.started = clock()
        self.last = self.started

    def __call__(self, report: IngestReport) -> None:
        now = self.clock()
        if now - self.last < self.interval:
            return
        self.last = now
        self.stream.write(self.prefix + describe(report, now - self.started) + "\n")
        self.stream.flush()
