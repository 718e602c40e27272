"""The progress line printed where no terminal shows a bar: at most one per interval, with
files, chunks, chunks per second and the time left (from the bytes done so far)."""

from __future__ import annotations

import io

from ragd.ingest.progress import ProgressLines, describe
from ragd.ingest.report import IngestReport


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_one_line_per_interval_with_rate_and_time_left():
    clock, stream = Clock(), io.StringIO()
    lines = ProgressLines(stream, interval=10, clock=clock)
    report = IngestReport(files_total=4, bytes_total=4000)
    lines(report)                          # nothing yet: the interval has not passed
    clock.now += 9.9
    lines(report)
    assert stream.getvalue() == ""
    report.files_done, report.bytes_done, report.embedded = 1, 1000.0, 350
    clock.now = 110.0
    lines(report)
    clock.now = 115.0
    lines(report)                          # 5 s since the last line: none
    assert stream.getvalue() == ("ingest: 1/4 files, 350 chunks, 35.0 chunks/s, "
                                 "30s left\n")
    report.bytes_done, report.embedded = 2000.0, 700
    clock.now = 220.0
    lines(report)
    assert stream.getvalue().splitlines()[-1] == (
        "ingest: 1/4 files, 700 chunks, 5.8 chunks/s, 2m00s left")


def test_describe_without_totals_or_progress():
    assert describe(IngestReport(new=2), 0.0) == "2 documents, 0 chunks, 0.0 chunks/s"
    assert describe(IngestReport(files_total=3, bytes_total=10), 5.0).endswith(
        "time left unknown yet")
    assert describe(IngestReport(files_total=1, bytes_total=10, bytes_done=1.0), 3600.0,
                    time_left=False) == "0/1 files, 0 chunks, 0.0 chunks/s"
    assert "2h30m left" in describe(IngestReport(bytes_total=4, bytes_done=1.0), 3000.0)
