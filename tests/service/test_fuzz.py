"""Fuzz the REST API with schemathesis from its own OpenAPI document: no server error on
any operation, and every response matches its documented schema, status and type.

The server under fuzz has a store of its own (a toy-embedder collection, so that the
random collections an ingest may create cost nothing to embed)."""

from __future__ import annotations

import json

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402

from helpers import VOCABULARY  # noqa: E402
from service.svc import AUTH, KEY, POLICIES, LiveServer  # noqa: E402

EXAMPLES = 15
TOY = json.dumps({"kind": "toy", "vocabulary": list(dict.fromkeys(list(VOCABULARY) + [
    "audit", "logs", "retained", "days", "badges", "visitors", "passwords", "backups"]))})


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    from ragd.config import load_settings
    from ragd.service.config import ServiceConfig
    from ragd.service.ops import Engine
    from ragd.service.rest import create_app

    home = tmp_path_factory.mktemp("fuzz")
    engine = Engine(load_settings({"store": str(home / "store"), "collection": "default",
                                   "embedder": TOY}, environ={"RAGD_HOME": str(home)},
                                  cwd=home), llm_allowed=())
    engine.ingest_records(POLICIES, collection="default")
    app = create_app(ServiceConfig(request_timeout=30, max_upload_bytes=256 * 1024),
                     engine=engine, api_key=KEY)
    with LiveServer(app) as server:
        yield server
    engine.close()


@pytest.fixture(scope="module")
def fuzz_schema(fuzz_server):
    return schemathesis.openapi.from_url(f"{fuzz_server.url}/openapi.json")


def test_no_server_error_and_responses_match_the_schema(fuzz_schema, fuzz_server):
    """Each operation in turn (the schemathesis pytest plugin's lazy loader does not
    support this pytest; the strategies and checks are its own)."""
    from hypothesis import given

    operations = [r.ok() for r in fuzz_schema.get_all_operations()]
    assert len(operations) >= 10
    for operation in operations:
        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case):
            case.call_and_validate(base_url=fuzz_server.url, headers=AUTH, timeout=60)
        check()
