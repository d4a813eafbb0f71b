"""A bot that goes out of N rated matches in a row is suspended, on SQLite and on
PostgreSQL; its owner reads why in ``niwa ladder bots --all``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from niwa.ladder import archive, runner, submission, suspension, worker
from niwa.ladder.store import ACTIVE, RATED, SUSPENDED, VALIDATION, Finished, SeatResult, Store
from niwa.referee import replay
from niwa.web.app import create_app
from niwa.web.server import open_read_only


@pytest.fixture
def store(any_store: Store) -> Store:
    return any_store


def bots(store: Store) -> tuple[int, int]:
    owner = store.owners.system_owner()
    a = store.bots.add_bot("flaky", "1", "blossom", owner.id, "builtin:random", None, ACTIVE)
    b = store.bots.add_bot("steady", "1", "blossom", owner.id, "builtin:random", None, ACTIVE)
    return a.id, b.id


def play(store: Store, a: int, b: int, a_out: bool, kind: str = RATED) -> int:
    """One finished match of ``a`` against ``b``; ``a`` went out of it or not."""
    match_id = store.matches.queue_match("blossom", "1", [a, b], 7, kind=kind)
    assert store.matches.claim_next() is not None
    a_seat = SeatResult(0, a, 1 if a_out else 0, 0.0, "out" if a_out else "ok",
                        "timeout" if a_out else "")  # fmt: skip
    b_seat = SeatResult(1, b, 0 if a_out else 1, 5.0, "ok")
    assert store.matches.finish_match(match_id, Finished((a_seat, b_seat), 3, 0.1, "f" * 64))
    suspension.check(store, (a, b))
    return match_id


def test_a_bot_out_of_5_rated_matches_in_a_row_is_suspended_naming_the_cause(
    store: Store,
) -> None:
    a, b = bots(store)
    for _ in range(4):
        play(store, a, b, a_out=True)
    assert store.bots.bot(a).status == ACTIVE
    last = play(store, a, b, a_out=True)
    bot = store.bots.bot(a)
    assert bot.status == SUSPENDED
    assert f"match {last}: timeout" in bot.reason and "5 rated matches in a row" in bot.reason
    assert store.bots.bot(b).status == ACTIVE


def test_a_match_played_properly_starts_the_count_again(store: Store) -> None:
    a, b = bots(store)
    for out in [True] * 4 + [False] + [True] * 4:
        play(store, a, b, a_out=out)
    assert store.bots.bot(a).status == ACTIVE


def test_validation_matches_do_not_count(store: Store) -> None:
    a, b = bots(store)
    for _ in range(3):
        play(store, a, b, a_out=True)
    for _ in range(3):
        play(store, a, b, a_out=True, kind=VALIDATION)
    assert store.bots.bot(a).status == ACTIVE


def test_the_admins_setting_is_kept_in_the_store(store: Store) -> None:
    suspension.set_after(store, 2)
    a, b = bots(store)
    play(store, a, b, a_out=True)
    play(store, a, b, a_out=True)
    assert suspension.after(store) == 2
    assert store.bots.bot(a).status == SUSPENDED


def test_0_never_suspends(store: Store) -> None:
    suspension.set_after(store, 0)
    a, b = bots(store)
    for _ in range(8):
        play(store, a, b, a_out=True)
    assert store.bots.bot(a).status == ACTIVE


def test_a_negative_setting_names_the_fix(store: Store) -> None:
    with pytest.raises(ValueError, match="0 to never suspend"):
        suspension.set_after(store, -1)


def test_a_validation_match_runs_its_opponent_sandboxed_like_a_rated_one(store: Store) -> None:
    a, b = bots(store)
    rated = store.matches.match(store.matches.queue_match("blossom", "1", [a, b], 7, kind=RATED))
    validation_id = store.matches.queue_match("blossom", "1", [a, b], 8, kind=VALIDATION)
    validation = store.matches.match(validation_id)
    ladder = runner.Runner(runner.Settings(db_url="unused", builtins_in_process=True))
    rated_job, validation_job = ladder._job(store, rated), ladder._job(store, validation)
    assert validation_job.builtins_in_process is False
    assert validation_job.time_control == rated_job.time_control


def suspended_in_a_file(tmp_path: Path) -> tuple[Path, int, int]:
    """A SQLite store whose bot "flaky" was suspended after one match: the store's
    file, the bot's id, the match's id."""
    db = tmp_path / "ladder.db"
    store = Store.open(str(db))
    try:
        suspension.set_after(store, 1)
        a, b = bots(store)
        return db, a, play(store, a, b, a_out=True)
    finally:
        store.close()


def test_niwa_ladder_bots_all_shows_the_suspension_to_the_owner(tmp_path: Path) -> None:
    db, _, _ = suspended_in_a_file(tmp_path)
    shown = subprocess.run(
        [sys.executable, "-m", "niwa", "ladder", "bots", "--all", "--db", str(db)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    line = next(line for line in shown.splitlines() if "flaky" in line)
    assert "suspended" in line and "1 rated matches in a row" in line


def test_a_negative_suspend_after_is_refused_by_niwa_ladder_serve(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "niwa", "ladder", "serve", "--db", str(tmp_path / "l.db"),
         "--listen", "127.0.0.1:0", "--suspend-after", "-1"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert "0 to never suspend" in done.stderr


def test_the_bots_web_page_shows_the_suspension_and_its_cause(tmp_path: Path) -> None:
    db, a, last = suspended_in_a_file(tmp_path)
    reader = open_read_only(str(db))
    try:
        with TestClient(create_app(reader)) as web:
            page = web.get(f"/bots/{a}").text
    finally:
        reader.close()
    assert "status-suspended" in page
    assert f"1 rated matches in a row (the last, match {last}: timeout)" in page


def test_a_validation_match_plays_its_opponent_as_a_sandboxed_process(tmp_path: Path) -> None:
    """The real match: bubblewrap and gRPC for both seats, as the replay records."""
    store = Store.open(str(tmp_path / "ladder.db"))
    try:
        owner, _ = store.owners.add_owner("alice")
        example = Path(__file__).resolve().parents[2] / "examples" / "python-bot"
        data = archive.pack_directory(example)
        submission.submit(store, owner, data, games_played=["blossom"])
        match = store.matches.claim_next()
        assert match is not None and match.kind == VALIDATION
        job = runner.Runner(runner.Settings(db_url="unused"))._job(store, match)
    finally:
        store.close()
    worker.run_job(job)
    seats = replay.read(job.replay_path).header.seats
    assert [s.isolation for s in seats] == ["sandbox"] * len(seats)
