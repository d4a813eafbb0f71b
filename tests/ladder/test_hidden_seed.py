"""A match's seed decides its hidden cards: the reads and the web pages show it to
nobody until the match is done (a ``--db`` read, which has the store anyway, sees it)."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from niwa.ladder.reads import Reads
from niwa.ladder.store import ACTIVE, Finished, SeatResult, Store
from niwa.web.app import create_app

SEED = 987654321


def queued_match(store: Store) -> int:
    owner, _ = store.owners.add_owner("alice")
    a = store.bots.add_bot("a", "1", "blossom", owner.id, "archive", "ha", ACTIVE).id
    b = store.bots.add_bot("b", "1", "blossom", owner.id, "archive", "hb", ACTIVE).id
    return store.matches.queue_match("blossom", "blossom@1", [a, b], seed=SEED)


def seed_shown(store: Store, match_id: int, trusted: bool = False) -> int:
    reads = Reads(store, trusted=trusted)
    return reads.match_view(reads.match(match_id)).seed


def test_a_queued_or_running_matchs_seed_is_hidden(any_store: Store) -> None:
    match_id = queued_match(any_store)
    assert seed_shown(any_store, match_id) == 0
    assert any_store.matches.claim_next() is not None
    assert seed_shown(any_store, match_id) == 0


def test_a_read_of_the_store_itself_sees_the_seed(any_store: Store) -> None:
    assert seed_shown(any_store, queued_match(any_store), trusted=True) == SEED


def test_a_done_matchs_seed_is_shown(any_store: Store) -> None:
    match_id = queued_match(any_store)
    match = any_store.matches.claim_next()
    assert match is not None
    results = tuple(SeatResult(s, b, s, 1.0 - s, "ok") for s, b in enumerate(match.seats))
    assert any_store.matches.finish_match(match_id, Finished(results, 3, 0.1, "0" * 64))
    assert seed_shown(any_store, match_id) == SEED


def test_the_web_page_of_a_running_match_shows_no_seed(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "ladder.db"), tmp_path)
    try:
        match_id = queued_match(store)
        assert store.matches.claim_next() is not None
        with TestClient(create_app(store)) as client:
            page = client.get(f"/matches/{match_id}")
        assert page.status_code == 200 and "running" in page.text
        assert str(SEED) not in page.text and "seed" not in page.text
    finally:
        store.close()
