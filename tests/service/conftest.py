"""Fixtures of the service tests: one store (the bundled demo corpus under the ear profile,
and a small policy collection under the default profile), an Engine over it, and a live
server on 127.0.0.1 (REST, page and MCP at /mcp, behind an API key) in a thread."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp")

from ragd.collection import open_collection  # noqa: E402
from ragd.demo import demo_corpus  # noqa: E402
from ragd.ingest.loaders import LoadOptions  # noqa: E402
from ragd.ingest.pipeline import ingest  # noqa: E402
from service.svc import AUTH, KEY, POLICIES, LiveServer, make_engine  # noqa: E402


@pytest.fixture(scope="session")
def service_home(tmp_path_factory) -> Path:
    """A ragd home whose store holds ``demo`` (ear) and ``policies`` (default)."""
    root = tmp_path_factory.mktemp("service")
    coll = open_collection(root / "home", "demo", create=True, profile="ear")
    report = ingest([demo_corpus()], coll, options=LoadOptions(exclude=("SOURCE.txt",)))
    assert report.failed == 0
    coll.close()
    return root


@pytest.fixture(scope="session")
def engine(service_home):
    eng = make_engine(service_home)
    out = eng.ingest_records(POLICIES, collection="policies", profile="default")
    assert out["new"] == len(POLICIES), out
    yield eng
    eng.close()


@pytest.fixture(scope="session")
def live(engine):
    """The REST API, the page and MCP over HTTP, behind :data:`KEY`."""
    from ragd.service.config import ServiceConfig
    from ragd.service.rest import create_app

    app = create_app(ServiceConfig(collection="demo", mcp=True, request_timeout=60),
                     engine=engine, api_key=KEY)
    with LiveServer(app) as server:
        yield server


@pytest.fixture(scope="session")
def client(live):
    import httpx

    with httpx.Client(base_url=live.url, headers=AUTH, timeout=60) as c:
        yield c


