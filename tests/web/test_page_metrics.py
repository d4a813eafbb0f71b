"""The web front's own /metrics: each request's time under its route's template, so a
page per bot or match adds no series."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from niwa.ladder.health import StoreCheck
from niwa.web.app import create_app
from niwa.web.server import open_read_only
from tests.web.ladders import played_store


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = played_store(tmp_path_factory.mktemp("ladder"))
    store = open_read_only(str(db))
    try:
        with TestClient(create_app(store, check=StoreCheck(str(db)))) as client:
            yield client
    finally:
        store.close()


def counts(client: TestClient) -> dict[str, float]:
    """Requests timed so far, by route label."""
    reply = client.get("/metrics")
    assert reply.status_code == 200
    return {
        s.labels["route"]: s.value
        for family in text_string_to_metric_families(reply.text)
        for s in family.samples
        if s.name == "niwa_web_request_seconds_count"
    }


def test_page_times_are_labelled_by_route_template_not_by_id(client: TestClient) -> None:
    before = counts(client)
    for match_id in (1, 2, 999_999):  # 999999: a 404 is timed under its route too
        client.get(f"/matches/{match_id}")
    after = counts(client)
    route = "/matches/{match_id:int}"
    assert after[route] - before.get(route, 0) == 3
    assert not any("999999" in label for label in after)


def test_a_path_no_route_takes_is_timed_as_other(client: TestClient) -> None:
    before = counts(client).get("other", 0)
    assert client.get("/no/such/page").status_code == 404
    assert counts(client)["other"] - before == 1


def test_the_web_front_answers_healthz_and_readyz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "alive"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ready", "database": "ok"}

