"""A person challenges a ladder bot (niwa.ladder.challenges): bounded (one per owner,
a cap per process, active bots only), unrated unless the admin rates them, then on the
leaderboard as the game's ``human`` row, which the scheduler never seats. The matches
are real: the referee plays the bot, a scripted person answers through the seat's desk."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from niwa.ladder import archive, challenges, submission
from niwa.ladder.challenges import Challenge, ChallengeRefused, Challenges
from niwa.ladder.reads import Reads
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, CHALLENGE, DONE, FAILED, RATED, RUNNING, Bot, Owner, Store
from niwa.ladder.submission import builtin_bot
from niwa.referee.failures import Failure, SeatStatus
from niwa.referee.human import Desk
from niwa.referee.replay import read
from niwa.referee.replay.check import verify

GAME = "blossom"


def owner(store: Store, name: str = "alice") -> Owner:
    return store.owners.add_owner(name)[0]


def active_bot(store: Store) -> Bot:
    return builtin_bot(store, "random", GAME, ACTIVE)


async def person(desk: Desk) -> None:
    """Someone at the page who always plays the first move listed."""
    desk.connect()
    seen = -1
    while not desk.closed:
        await desk.changed_since(seen)
        seen = desk.version
        question = desk.snapshot()["question"]
        if isinstance(question, dict):
            desk.answer(int(question["decision"]), 0)  # type: ignore[arg-type]


async def walks_away(desk: Desk) -> None:
    """Someone who opens the page and closes it at once."""
    desk.connect()
    desk.disconnect()


def play(table: Challenges, challenge: Challenge, at_the_page=person) -> None:  # type: ignore[no-untyped-def]
    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(at_the_page, challenge.desk)
            await table.play(challenge)

    trio.run(main)


def elo_rows(store: Store) -> dict[int, float]:
    rows = store.db.execute("SELECT bot_id, elo FROM ratings")
    return {int(r["bot_id"]): float(r["elo"]) for r in rows}


def test_a_challenge_is_stored_as_running_so_no_runner_claims_it(store: Store) -> None:
    table = Challenges(store, rng=random.Random(1))
    challenge = table.open(owner(store), active_bot(store).id)
    assert store.matches.match(challenge.match_id).state == RUNNING
    assert store.matches.claim_next() is None


def test_an_owner_has_one_challenge_at_a_time(store: Store) -> None:
    table = Challenges(store)
    alice, bot = owner(store), active_bot(store)
    table.open(alice, bot.id)
    with pytest.raises(ChallengeRefused, match="already playing match"):
        table.open(alice, bot.id)


def test_challenges_beyond_the_cap_are_refused(store: Store) -> None:
    table = Challenges(store, cap=2)
    bot = active_bot(store)
    table.open(owner(store, "alice"), bot.id)
    table.open(owner(store, "bob"), bot.id)
    with pytest.raises(ChallengeRefused, match="2 challenges are being played"):
        table.open(owner(store, "carol"), bot.id)


def test_only_an_active_bot_is_challenged(store: Store) -> None:
    table = Challenges(store)
    reserve = builtin_bot(store, "greedy", GAME)  # a reserve bot: never on the leaderboard
    with pytest.raises(ChallengeRefused, match="not an active bot"):
        table.open(owner(store), reserve.id)


def test_the_human_row_is_never_challenged(store: Store) -> None:
    challenges.set_rated(store, True)
    row = challenges.human_row(store, GAME, rated=True)
    with pytest.raises(ChallengeRefused, match="not an active bot"):
        Challenges(store).open(owner(store), row.id)


def test_a_challenge_outside_the_tables_seats_is_refused(store: Store) -> None:
    with pytest.raises(ChallengeRefused, match="seats 0 to 1"):
        Challenges(store).open(owner(store), active_bot(store).id, seat=2)


def test_an_unrated_challenge_is_stored_with_its_replay_and_leaves_elo_alone(
    store: Store,
) -> None:
    table = Challenges(store, rng=random.Random(2))
    bot = active_bot(store)
    before = elo_rows(store)
    challenge = table.open(owner(store), bot.id)
    play(table, challenge)
    match = store.matches.match(challenge.match_id)
    assert (match.state, match.kind) == (DONE, CHALLENGE)
    assert elo_rows(store) == before
    replay = read(store.files.replay_path(match.id))
    assert verify(replay) == len(replay.steps)
    assert replay.header.seats[challenge.seat].name == "alice"
    assert replay.header.seats[challenge.seat].isolation == "human"
    assert table.of(challenge.owner) is None  # free for the next challenge


def test_a_rated_challenge_moves_the_bots_and_the_human_rows_ratings(store: Store) -> None:
    challenges.set_rated(store, True)
    table = Challenges(store, rng=random.Random(3))
    bot = active_bot(store)
    challenge = table.open(owner(store), bot.id)
    play(table, challenge)
    assert store.matches.match(challenge.match_id).kind == RATED
    human = challenges.human_row(store, GAME, rated=True)
    moved = store.db.execute(
        "SELECT bot_id FROM rating_history WHERE match_id = ?", (challenge.match_id,)
    )
    assert {int(r["bot_id"]) for r in moved} == {bot.id, human.id}
    assert store.ratings.rated_count(GAME) == 1


def test_the_human_row_is_on_the_leaderboard_only_while_challenges_are_rated(
    store: Store,
) -> None:
    bot = active_bot(store)

    def board_names() -> list[str]:
        return [row.bot.name for row in Reads(store).leaderboards(GAME)[0].rows]

    Challenges(store).open(owner(store, "alice"), bot.id)
    assert "human" not in board_names()
    challenges.set_rated(store, True)
    Challenges(store).open(owner(store, "bob"), bot.id)
    assert "human" in board_names()


def test_the_scheduler_never_seats_the_human_row(store: Store) -> None:
    challenges.set_rated(store, True)
    human = challenges.human_row(store, GAME, rated=True)
    alice = owner(store)
    for name in ("fern", "moss"):
        store.bots.add_bot(name, "1.0.0", GAME, alice.id, "archive", None, ACTIVE)
    runner = Runner(Settings(db_url="unused", games=(GAME,), seed=4))
    made = sum(runner._schedule_one(store) for _ in range(20))
    queued = store.matches.matches(state="queued", limit=100)
    assert made == len(queued) == 20
    assert all(human.id not in m.seats for m in queued)


def test_a_person_who_closes_the_page_is_disconnected_and_the_match_is_stored(
    store: Store,
) -> None:
    table = Challenges(store, grace_s=0.5, rng=random.Random(5))
    challenge = table.open(owner(store), active_bot(store).id)
    play(table, challenge, walks_away)
    match = store.matches.match(challenge.match_id)
    assert match.state == DONE
    seat = store.matches.results(match.id)[challenge.seat]
    assert (seat.status, seat.reason) == (SeatStatus.OUT, Failure.DISCONNECTED)


def test_a_challenge_left_running_by_a_stopped_process_is_failed_not_requeued(
    store: Store, tmp_path: Path
) -> None:
    challenge = Challenges(store).open(owner(store), active_bot(store).id)
    assert store.matches.requeue_running() == []  # no runner can play a person's seat
    assert Challenges(store).abandon_leftovers() == [challenge.match_id]
    match = store.matches.match(challenge.match_id)
    assert (match.state, match.error) == (FAILED, challenges.ABANDONED)


def test_a_negative_max_challenges_is_refused_by_niwa_ladder_serve(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "niwa", "ladder", "serve", "--db", str(tmp_path / "l.db"),
         "--listen", "127.0.0.1:0", "--max-challenges", "-1"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--max-challenges must be at least 0" in done.stderr


def test_a_submitted_bot_is_challenged_in_its_sandbox(store: Store) -> None:
    alice = owner(store)
    example = Path(__file__).resolve().parents[2] / "examples" / "python-bot"
    [bot] = submission.submit(store, alice, archive.pack_directory(example), games_played=[GAME])
    store.bots.set_bot_status(bot.id, ACTIVE)  # as its validation match would
    table = Challenges(store, time_control="5s+60s", rng=random.Random(6))
    challenge = table.open(owner(store, "bob"), bot.id)
    play(table, challenge)
    assert store.matches.match(challenge.match_id).state == DONE
    replay = read(store.files.replay_path(challenge.match_id))
    seats = replay.header.seats
    assert seats[1 - challenge.seat].isolation == "sandbox"
    assert seats[1 - challenge.seat].name == bot.name
    assert seats[challenge.seat].name == "bob"
    assert [s.status for s in store.matches.results(challenge.match_id)] == [SeatStatus.OK] * 2


def test_a_rated_challenge_counts_in_its_games_balance(store: Store) -> None:
    challenges.set_rated(store, True)
    table = Challenges(store, rng=random.Random(3))
    challenge = table.open(owner(store), active_bot(store).id)
    play(table, challenge)
    counted = store.db.one(
        "SELECT rounds FROM balance_matches WHERE match_id = ?", (challenge.match_id,)
    )
    assert counted is not None and counted["rounds"] >= 1
    assert store.balance.backlog_count() == 0


def test_an_unrated_challenge_adds_nothing_to_the_balance(store: Store) -> None:
    table = Challenges(store, rng=random.Random(2))
    play(table, table.open(owner(store), active_bot(store).id))
    assert store.db.scalar("SELECT COUNT(*) FROM balance_matches") == 0
    assert store.balance.backlog_count() == 0
