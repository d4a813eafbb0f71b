"""The store keeps each rated match's balance figures and adds them to running sums as
the match commits, on both engines; the backfill fills a store from before balance
with the very sums the commits would have made."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa import engine
from niwa.ladder import balance_backfill, submission
from niwa.ladder.balance import MatchBalance
from niwa.ladder.store import ACTIVE, VALIDATION, Finished, SeatResult, Store
from niwa.ladder.store.balance import ALL, STRONG, STRONG_ELO
from tests.web.ladders import play_builtins

GAME = "blossom"


def _bots(store: Store) -> tuple[int, int]:
    a = submission.builtin_bot(store, "random", GAME, ACTIVE).id
    b = submission.builtin_bot(store, "greedy", GAME, ACTIVE).id
    return a, b


def _commit(store: Store, seats: tuple[int, int], figures: MatchBalance | None,
            kind: str = "rated", first_seat: str = "ok") -> int:  # fmt: skip
    version = engine.load(GAME).info.version
    match_id = store.matches.queue_match(GAME, version, list(seats), seed=1, kind=kind)
    assert store.matches.claim_next() is not None
    results = (SeatResult(0, seats[0], 1, 4.0, first_seat), SeatResult(1, seats[1], 0, 5.0, "ok"))
    finished = Finished(results, 12, 0.1, "0" * 64, balance=figures)
    assert store.matches.finish_match(match_id, finished)
    return match_id


FIGURES = MatchBalance.of([1, 0], [4, 5], (0, 0), [(1, 0), (3, 4), (4, 5)], steps=12)


def test_a_rated_match_adds_its_figures_to_the_all_pool(any_store: Store) -> None:
    _commit(any_store, _bots(any_store), FIGURES)
    (size,) = any_store.balance.report(GAME, ALL)
    assert (size.seats, size.matches) == (2, 1)
    assert size.figures["lead_changes"].mean == 1.0
    assert size.figures["margin"].mean == 1.0
    assert [seat["win"].mean for seat in size.by_seat] == [0.0, 1.0]
    assert [seat["place"].mean for seat in size.by_seat] == [2.0, 1.0]


def test_a_match_between_newcomers_is_not_strong(any_store: Store) -> None:
    _commit(any_store, _bots(any_store), FIGURES)
    assert any_store.balance.report(GAME, STRONG) == []
    assert any_store.db.scalar("SELECT strong FROM balance_matches") == 0


def test_a_match_between_bots_rated_above_the_bar_counts_as_strong(any_store: Store) -> None:
    seats = _bots(any_store)
    any_store.db.execute("UPDATE ratings SET elo = ?", (STRONG_ELO + 1,))
    _commit(any_store, seats, FIGURES)
    (size,) = any_store.balance.report(GAME, STRONG)
    assert size.matches == 1


def test_one_seat_below_the_bar_makes_the_match_not_strong(any_store: Store) -> None:
    a, b = _bots(any_store)
    any_store.db.execute("UPDATE ratings SET elo = ?", (STRONG_ELO + 200,))
    any_store.db.execute("UPDATE ratings SET elo = ? WHERE bot_id = ?", (STRONG_ELO - 1, b))
    _commit(any_store, (a, b), FIGURES)
    assert any_store.balance.report(GAME, STRONG) == []


def test_a_match_a_seat_failed_out_of_is_not_strong(any_store: Store) -> None:
    seats = _bots(any_store)
    any_store.db.execute("UPDATE ratings SET elo = ?", (STRONG_ELO + 200,))
    _commit(any_store, seats, FIGURES, first_seat="out")
    assert any_store.balance.report(GAME, STRONG) == []
    assert [size.matches for size in any_store.balance.report(GAME, ALL)] == [1]


def test_the_sums_add_up_match_after_match(any_store: Store) -> None:
    seats = _bots(any_store)
    other = MatchBalance.of([0, 1], [9, 2], (0, 0), [(4, 1), (9, 2)], steps=8)
    _commit(any_store, seats, FIGURES)
    _commit(any_store, seats, other)
    (size,) = any_store.balance.report(GAME, ALL)
    assert size.matches == 2
    assert size.figures["steps"].mean == 10.0
    assert size.figures["margin"].mean == 4.0  # (1 + 7) / 2
    assert [seat["win"].mean for seat in size.by_seat] == [0.5, 0.5]


def test_a_validation_match_adds_nothing(any_store: Store) -> None:
    _commit(any_store, _bots(any_store), FIGURES, kind=VALIDATION)
    assert any_store.balance.report(GAME, ALL) == []


def test_a_rated_match_without_figures_waits_for_the_backfill(any_store: Store) -> None:
    match_id = _commit(any_store, _bots(any_store), None)
    assert any_store.balance.backlog(10) == [(match_id, GAME)]


@pytest.fixture
def played(db_url: str, tmp_path: Path) -> str:
    """A store on each engine where the built-ins played 3 rated Blossom matches."""
    play_builtins(db_url, tmp_path, GAME, 3)
    return db_url


def _totals(store: Store) -> list[tuple[object, ...]]:
    rows = store.db.execute("SELECT * FROM balance_totals ORDER BY pool, seats, seat, metric")
    return [tuple(round(v, 9) if isinstance(v, float) else v for v in r.values()) for r in rows]


def test_every_played_rated_match_has_its_figures_from_its_replay(
    played: str, tmp_path: Path
) -> None:
    store = Store.open(played, tmp_path)
    rated = store.db.scalar("SELECT COUNT(*) FROM matches WHERE kind = 'rated' AND state = 'done'")
    rows = store.db.execute("SELECT * FROM balance_matches")
    assert len(rows) == rated == 3
    assert all(r["rounds"] >= 1 and r["steps"] >= r["rounds"] for r in rows)
    assert all(r["lead_changes"] is not None for r in rows)
    assert store.balance.backlog_count() == 0
    store.close()


def test_the_backfill_gives_the_sums_the_commits_made(played: str, tmp_path: Path) -> None:
    store = Store.open(played, tmp_path)
    committed = _totals(store)
    # As if the matches finished before balance was kept: the migration's backlog.
    with store.db.transaction() as db:
        db.execute("DELETE FROM balance_totals")
        db.execute("DELETE FROM balance_matches")
        db.execute(
            "INSERT INTO balance_backlog (match_id) SELECT id FROM matches"
            " WHERE kind = 'rated' AND state = 'done'"
        )
    seen: list[int] = []
    done = balance_backfill.backfill(store, lambda p: seen.append(p.done))
    assert (done.total, done.counted, done.skipped) == (3, 3, 0)
    assert seen[-1] == 3
    assert _totals(store) == committed
    assert store.balance.backlog_count() == 0
    store.close()


def test_a_match_whose_replay_is_gone_is_skipped_with_the_rest_filled(
    played: str, tmp_path: Path
) -> None:
    store = Store.open(played, tmp_path)
    with store.db.transaction() as db:
        db.execute("DELETE FROM balance_totals")
        db.execute("DELETE FROM balance_matches")
        db.execute(
            "INSERT INTO balance_backlog (match_id) SELECT id FROM matches"
            " WHERE kind = 'rated' AND state = 'done'"
        )
        first = int(db.scalar("SELECT MIN(match_id) FROM balance_backlog"))
        db.execute("DELETE FROM blobs WHERE kind = 'replay'")
    store.files.replay_path(first).unlink()
    done = balance_backfill.backfill(store)
    assert (done.counted, done.skipped) == (2, 1)
    assert store.db.scalar("SELECT COUNT(*) FROM balance_matches") == 2
    reason = store.db.scalar("SELECT reason FROM balance_skipped WHERE match_id = ?", (first,))
    assert "NotFound" in str(reason) and "not in the store" in str(reason)
    store.close()


def test_a_skipped_match_is_not_tried_again(played: str, tmp_path: Path) -> None:
    store = Store.open(played, tmp_path)
    first = int(store.db.scalar("SELECT MIN(match_id) FROM balance_matches"))
    store.db.execute("INSERT INTO balance_skipped (match_id, reason) VALUES (?, 'gone')", (first,))
    with store.db.transaction() as db:
        db.execute("DELETE FROM balance_matches WHERE match_id = ?", (first,))
    assert balance_backfill.backfill(store).total == 0
    store.close()


def test_the_backfill_finds_a_match_an_older_node_recorded_without_figures(
    played: str, tmp_path: Path
) -> None:
    # During a rolling upgrade the old leader commits to the migrated store: its rated
    # matches get ratings but neither figures nor a place in the backlog.
    store = Store.open(played, tmp_path)
    committed = _totals(store)
    last = int(store.db.scalar("SELECT MAX(match_id) FROM balance_matches"))
    # the older matches wait from the migration; the last, recorded by the old node, not
    with store.db.transaction() as db:
        db.execute("DELETE FROM balance_totals")
        db.execute("DELETE FROM balance_matches")
        db.execute(
            "INSERT INTO balance_backlog (match_id) SELECT id FROM matches"
            " WHERE kind = 'rated' AND state = 'done' AND id <> ?", (last,)
        )
    done = balance_backfill.backfill(store)
    assert (done.total, done.counted) == (3, 3)
    assert _totals(store) == committed
    store.close()


def test_a_places_interval_stays_between_first_and_last(any_store: Store) -> None:
    seats = _bots(any_store)
    other = MatchBalance.of([0, 1], [9, 2], (0, 0), [(4, 1), (9, 2)], steps=8)
    _commit(any_store, seats, FIGURES)
    _commit(any_store, seats, other)
    (size,) = any_store.balance.report(GAME, ALL)
    place = size.by_seat[0]["place"]  # 2 then 1: the normal interval runs past both ends
    assert (place.low, place.mean, place.high) == (1.0, 1.5, 2.0)
    assert size.figures["margin"].low >= 0.0
