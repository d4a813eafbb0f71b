"""Sparring partners play only at a submitted bot's table: a sparring ladder schedules
nothing in a game nobody entered (and says so once), every match of an entered game
seats a submitted bot, and the demo's built-ins (not partners) still play each other."""

from __future__ import annotations

import io
import json
import random

from niwa.ladder import demo, logs
from niwa.ladder.reads import Reads
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.scheduler import Candidate, pick_group, playable
from niwa.ladder.store import ACTIVE, PENDING, Bot, Store

GAMES = ("blossom", "sakura", "bonsai", "miyabi")
PARTNERS = ("builtin:random", "builtin:greedy", "builtin:mcts")


def sparring_runner(store: Store) -> Runner:
    runner = Runner(Settings(db_url="unused", games=GAMES, seed=1, sparring=PARTNERS))
    runner._take_partners(store)
    return runner


def submitted(store: Store, game: str) -> Bot:
    owner, _ = store.owners.add_owner("alice")
    return store.bots.add_bot("fern", "1.0.0", game, owner.id, "archive", None, ACTIVE)


def test_a_sparring_ladder_without_submitted_bots_schedules_nothing(store: Store) -> None:
    runner = sparring_runner(store)
    for _ in range(5):
        assert runner._schedule_one(store) == 0
    assert store.matches.matches(state="queued", limit=10) == []


def test_a_game_with_only_sparring_partners_logs_that_it_is_idle_once(store: Store) -> None:
    stream = io.StringIO()
    logs.configure("info", json=True, stream=stream)
    runner = sparring_runner(store)
    for _ in range(5):
        runner._schedule_one(store)
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    idle = [e for e in events if e["event"] == "game_idle"]
    assert sorted(e["game"] for e in idle) == sorted(GAMES)
    assert {e["active"] for e in idle} == {len(PARTNERS)}
    assert all("submit a bot" in e["fix"] for e in idle)


def test_with_one_submitted_bot_only_its_game_plays_and_every_match_seats_it(
    store: Store,
) -> None:
    fern = submitted(store, "blossom")
    runner = sparring_runner(store)
    made = sum(runner._schedule_one(store) for _ in range(12))
    queued = store.matches.matches(state="queued", limit=100)
    assert made == len(queued) == 12
    assert {m.game for m in queued} == {"blossom"}
    assert all(fern.id in m.seats for m in queued)


def test_tables_of_three_or_more_fill_with_partners_around_the_submitted_bot(
    store: Store,
) -> None:
    fern = submitted(store, "sakura")
    runner = sparring_runner(store)
    for _ in range(30):
        runner._schedule_one(store)
    queued = store.matches.matches(state="queued", limit=100)
    partners = {b.id for b in store.bots.bots("sakura", [ACTIVE]) if b.id != fern.id}
    big = [m for m in queued if len(m.seats) >= 3]
    assert big, "no table of three or four in 30 matches"
    for m in big:
        assert fern.id in m.seats and set(m.seats) - {fern.id} <= partners


def test_the_demo_s_built_ins_are_not_partners_and_play_each_other(store: Store) -> None:
    demo.register_builtins(store)
    runner = Runner(Settings(db_url="unused", games=("blossom",), seed=1))
    runner._take_partners(store)
    assert runner._schedule_one(store) == 1


def test_a_sparring_partner_never_leads_a_table() -> None:
    bots = [Candidate(1, 1500, 0, partner=True), Candidate(2, 1500, 9),
            Candidate(3, 1500, 0, partner=True)]  # fmt: skip
    for seed in range(20):
        assert pick_group(bots, 2, random.Random(seed))[0].bot_id == 2


def test_only_partners_make_no_table() -> None:
    partners = [Candidate(i, 1500, 0, partner=True) for i in range(4)]
    assert playable(partners) == []
    assert len(playable([*partners, Candidate(9, 1500, 0)])) == 5


def test_a_game_whose_submitted_bot_is_not_active_says_why_nothing_plays(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    store.bots.add_bot("fern", "1.0.0", "blossom", owner.id, "archive", None, PENDING)
    sparring_runner(store)
    status = Reads(store).game_status("blossom")
    assert status.active == len(PARTNERS)
    assert status.waiting == (
        "waiting: sparring partners play only submitted bots, and none is active in this "
        "game; submit a bot to this game (niwa ladder submit)"
    )


def test_a_game_with_an_active_submitted_bot_and_partners_is_not_waiting(store: Store) -> None:
    submitted(store, "blossom")
    sparring_runner(store)
    assert Reads(store).game_status("blossom").waiting == ""
