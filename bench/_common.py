"""Shared helpers of the benchmarks: machine info, timing summaries, JSON results, rich output.

Benchmarks are run by hand (never by CI) and make no timed assertions: each
prints a table and writes ``bench/results/<name>.json``.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_DIR = BENCH_DIR / "results"
DATA_DIR = Path(os.environ.get("RAGD_BENCH_DATA", BENCH_DIR.parent.parent / "shared" / "data"))
SCIFACT = DATA_DIR / "scifact"


def pgserver() -> Any:
    """The throwaway local PostgreSQL of the test support code (``tests/support/pgserver.py``)."""
    tests = str(BENCH_DIR.parent / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from support import pgserver as module

    return module


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def cpu_times() -> list[int] | None:
    """The machine's CPU time counters (Linux ``/proc/stat``: user, nice, system, idle,
    iowait, irq, softirq, steal), or None where there are none."""
    try:
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None


def steal_share(before: list[int] | None, after: list[int] | None) -> float | None:
    """Share of the machine's CPU time the hypervisor took between two :func:`cpu_times`
    readings: on a shared virtual machine, time this run could not use."""
    if not before or not after or len(before) < 8 or len(after) < 8:
        return None
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta)
    return round(delta[7] / total, 3) if total > 0 else None


def ragd_source() -> dict[str, Any]:
    """Which ragd was measured: its import path, and the git commit of that checkout
    (with ``dirty`` when its ``src/`` differs from the commit)."""
    import subprocess

    import ragd

    path = Path(ragd.__file__).resolve().parent
    out: dict[str, Any] = {"path": str(path), "version": getattr(ragd, "__version__", None)}
    root = path.parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode == 0:
            status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                     "src"], capture_output=True, text=True, timeout=10)
            out["git_commit"] = head.stdout.strip()
            out["dirty"] = bool(status.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    snapshot = root / "SNAPSHOT_COMMIT"
    if "git_commit" not in out and snapshot.exists():
        out["git_commit"] = snapshot.read_text().strip()
        out["dirty"] = False
    return out


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on (stored with every result)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    return {
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "machine": platform.machine(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "onnxruntime": _version("onnxruntime"),
        "tokenizers": _version("tokenizers"),
        "numba": _version("numba"),
        "ragd": _version("ragd"),
        "ragd_source": ragd_source(),
        "sqlite": __import__("sqlite3").sqlite_version,
        "thread_env": {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                        "MKL_NUM_THREADS")},
        "lexical_kernel": os.environ.get("RAGD_LEXICAL_KERNEL", "auto"),
        "load_average_at_start": load_average(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "argv": sys.argv,
    }


def rss_mb() -> dict[str, float]:
    """Current RSS (from /proc/self/statm) and peak RSS (getrusage ru_maxrss), in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    current = None
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        current = pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError):
        pass
    return {"rss_mb": round(current, 1) if current is not None else None,
            "max_rss_mb": round(peak, 1)}


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100), like numpy's default."""
    data = sorted(values)
    if not data:
        return float("nan")
    pos = (len(data) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def write_results(name: str, payload: dict[str, Any]) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    payload = {**payload}
    payload.setdefault("machine", machine_info())
    payload["machine"]["load_average_at_end"] = load_average()
    tmp.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def make_console():
    """A rich console that does not squeeze the tables when output goes to a file or pipe."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console = Console(width=180)
    return console


def print_table(console: Any, title: str, columns: list[str], rows: list[list[Any]]) -> None:
    """A rich table: the first column left-aligned (names), the others right-aligned (figures)."""
    from rich.table import Table

    table = Table(title=title)
    for c in columns:
        table.add_column(c, justify="right" if c != columns[0] else "left")
    for r in rows:
        table.add_row(*[str(v) for v in r])
    console.print(table)


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"
