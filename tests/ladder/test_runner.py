"""The runner's scheduling against a real store (no worker pool needed)."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg

from niwa.ladder import submission
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, Store
from tests.postgres import Server


def ladder_of(store: Store, games: tuple[str, ...], bots: int = 3) -> None:
    for game in games:
        for k in range(bots):
            submission.builtin_bot(store, "random", game, ACTIVE, alias=f"random-{k}")


def test_games_take_turns_so_every_game_plays_side_by_side(store: Store) -> None:
    ladder_of(store, ("blossom", "sakura"))
    runner = Runner(Settings(db_url="unused", games=("blossom", "sakura"), seed=1))
    for _ in range(4):
        runner._schedule_one(store)
    games = [m.game for m in reversed(store.matches.matches(state="queued", limit=10))]
    assert games == ["blossom", "sakura", "blossom", "sakura"]


def test_a_game_without_enough_bots_is_skipped(store: Store) -> None:
    ladder_of(store, ("blossom",))
    ladder_of(store, ("sakura",), bots=1)
    runner = Runner(Settings(db_url="unused", games=("blossom", "sakura"), seed=1))
    for _ in range(3):
        runner._schedule_one(store)
    assert {m.game for m in store.matches.matches(state="queued", limit=10)} == {"blossom"}


def test_a_duplicate_round_plays_one_seed_in_every_seat_rotation(store: Store) -> None:
    ladder_of(store, ("blossom",))
    runner = Runner(Settings(db_url="unused", games=("blossom",), duplicate=True, seed=3))
    made = runner._schedule_one(store)
    round_ = store.matches.matches(state="queued", limit=10)
    assert len(round_) == made
    assert len({m.seed for m in round_}) == 1
    assert len({m.duplicate_group for m in round_}) == 1
    for seat in range(made):
        assert len({m.seats[seat] for m in round_}) == made  # every bot in every seat


def test_the_least_played_bot_gets_the_next_match(store: Store) -> None:
    ladder_of(store, ("blossom",), bots=4)
    runner = Runner(Settings(db_url="unused", games=("blossom",), seed=5))
    for _ in range(6):
        runner._schedule_one(store)
    seats = [bot for m in store.matches.matches(state="queued", limit=10) for bot in m.seats]
    counts = [seats.count(b.id) for b in store.bots.bots("blossom")]
    assert max(counts) - min(counts) <= 2


def test_a_store_that_went_away_is_opened_again_once_it_answers(
    postgres_server: Server, tmp_path: Path
) -> None:
    name = "niwa_reopened"  # no such database at first: opening the store fails
    runner = Runner(Settings(db_url=postgres_server.url(name), data_dir=tmp_path))

    def create() -> None:
        with psycopg.connect(postgres_server.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    threading.Timer(1.5, create).start()  # ... until it is there
    store = runner._reopen(threading.Event())
    assert store is not None
    store.close()


def test_reopening_gives_up_when_the_runner_is_stopped(
    postgres_server: Server, tmp_path: Path
) -> None:
    runner = Runner(Settings(db_url=postgres_server.url("niwa_never_made"), data_dir=tmp_path))
    stop = threading.Event()
    threading.Timer(1.5, stop.set).start()
    assert runner._reopen(stop) is None
