"""A person's seat inside the referee: one more kind of player, asked the same
questions under its own clock, failing the same ways, recorded in the replay."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio

from niwa import engine
from niwa.referee.clock import HUMAN_TIME_MS, TimeControl
from niwa.referee.failures import Failure, SeatStatus
from niwa.referee.human import AnswerRefused, Desk
from niwa.referee.match import BotSpec, MatchOutcome, MatchSpec, run_match
from niwa.referee.replay import read
from niwa.referee.replay.check import verify

Person = Callable[[Desk], Awaitable[None]]


def human_match(tmp_path: Path, desk: Desk, **kw: object) -> MatchSpec:
    return MatchSpec(
        "blossom",
        [BotSpec.parse("human:ann"), BotSpec.parse("builtin:random")],
        seed=5,
        in_process=True,
        humans={0: desk},
        replay_path=tmp_path / "m.jsonl",
        **kw,  # type: ignore[arg-type]
    )


def play(spec: MatchSpec, person: Person) -> MatchOutcome:
    async def main() -> MatchOutcome:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(person, spec.humans[0])
            outcome = await run_match(spec)
            nursery.cancel_scope.cancel()
        return outcome

    return trio.run(main)


async def random_person(desk: Desk) -> None:
    """Opens the page and picks a random legal move whenever asked."""
    desk.connect()
    rng = random.Random(1)
    seen = 0
    while not desk.closed:
        await desk.changed_since(seen)
        seen = desk.version
        question = desk.snapshot()["question"]
        if isinstance(question, dict):
            moves = question["moves"]
            assert isinstance(moves, list)
            desk.answer(int(question["decision"]), rng.randrange(len(moves)))  # type: ignore[call-overload]


def test_a_person_plays_a_whole_match_and_the_replay_verifies(tmp_path: Path) -> None:
    outcome = play(human_match(tmp_path, Desk(0)), random_person)
    assert [s.status for s in outcome.seats] == [SeatStatus.OK, SeatStatus.OK]
    replay = read(tmp_path / "m.jsonl")
    assert verify(replay) == len(replay.steps)  # raises ReplayMismatch on any difference


def test_the_replay_names_the_seat_a_human_with_its_own_clock(tmp_path: Path) -> None:
    play(human_match(tmp_path, Desk(0)), random_person)
    seat = read(tmp_path / "m.jsonl").header.seats[0]
    assert (seat.bot, seat.name, seat.isolation) == ("human:ann", "ann", "human")
    per, bank = HUMAN_TIME_MS
    assert seat.time_control == {"per_decision_ms": per, "bank_ms": bank}


async def first_question(desk: Desk) -> tuple[int, list[dict[str, object]]]:
    """Open the page and wait for the first question: its step and its moves."""
    desk.connect()
    while desk.snapshot()["question"] is None:
        await desk.changed_since(desk.version)
    question = desk.snapshot()["question"]
    assert isinstance(question, dict) and isinstance(question["moves"], list)
    return int(question["decision"]), question["moves"]  # type: ignore[call-overload,return-value]


def test_the_page_gets_each_legal_move_in_words(tmp_path: Path) -> None:
    texts: list[str] = []

    async def reader(desk: Desk) -> None:
        decision, moves = await first_question(desk)
        texts.extend(str(m["text"]) for m in moves)
        desk.answer(decision, 0)
        await random_person(desk)

    play(human_match(tmp_path, Desk(0)), reader)
    assert texts and not any(t.startswith("{") for t in texts)


def test_an_answer_to_a_step_not_asked_is_refused(tmp_path: Path) -> None:
    refusals: list[str] = []

    async def stale(desk: Desk) -> None:
        decision, _ = await first_question(desk)
        try:
            desk.answer(decision + 1, 0)
        except AnswerRefused as e:
            refusals.append(str(e))
        await random_person(desk)

    play(human_match(tmp_path, Desk(0)), stale)
    assert len(refusals) == 1 and "not waiting for a move" in refusals[0]


def test_a_second_answer_to_one_question_is_refused(tmp_path: Path) -> None:
    refusals: list[str] = []

    async def twice(desk: Desk) -> None:
        decision, _ = await first_question(desk)
        desk.answer(decision, 0)
        with pytest.raises(AnswerRefused, match="already answered") as refused:
            desk.answer(decision, 0)
        refusals.append(str(refused.value))
        await random_person(desk)

    play(human_match(tmp_path, Desk(0)), twice)
    assert len(refusals) == 1


def test_a_closed_page_is_disconnected_after_the_grace_period(tmp_path: Path) -> None:
    async def leaves(desk: Desk) -> None:
        desk.connect()
        desk.disconnect()

    outcome = play(human_match(tmp_path, Desk(0, grace_s=0.05)), leaves)
    seat = outcome.seats[0]
    assert (seat.status, seat.reason) == (SeatStatus.OUT, str(Failure.DISCONNECTED))
    assert "no page open" in seat.detail
    verify(read(tmp_path / "m.jsonl"))  # raises ReplayMismatch naming any difference


def test_no_answer_within_the_human_clock_is_a_timeout(tmp_path: Path) -> None:
    async def opens_and_waits(desk: Desk) -> None:
        desk.connect()
        await trio.sleep_forever()

    spec = human_match(tmp_path, Desk(0), human_time=TimeControl(1, 0), max_failures=1)
    outcome = play(spec, opens_and_waits)
    assert (outcome.seats[0].status, outcome.seats[0].reason) == (
        SeatStatus.OUT, str(Failure.TIMEOUT),
    )


def test_a_persons_name_must_be_a_bot_name() -> None:
    with pytest.raises(ValueError, match="a person's 'name' must be"):
        BotSpec.parse("human:no spaces")


def test_a_game_without_board_parts_offers_its_moves_in_words_only() -> None:
    from niwa.referee.human import choices
    from tests.engine.test_plugin_fallbacks import CountGame

    state = CountGame().new_game(1)
    while state.to_move() != (0,):
        state.apply({-1: state.chance_outcomes()[0][0]})
    legal = state.legal_actions(0)
    listed = choices(state, 0, legal, state.observe(0), None)
    assert [c.parts for c in listed] == [()] * len(legal)
    described = [engine.describe_move(state, 0, a) for a in legal]
    assert all(c.text.startswith(d) for c, d in zip(listed, described, strict=True))


def test_a_page_reopened_within_the_grace_period_plays_on(tmp_path: Path) -> None:
    async def reloads(desk: Desk) -> None:
        await first_question(desk)
        desk.disconnect()  # the tab reloads: its stream closes, a new one opens
        await random_person(desk)

    outcome = play(human_match(tmp_path, Desk(0, grace_s=0.05)), reloads)
    assert [s.status for s in outcome.seats] == [SeatStatus.OK, SeatStatus.OK]
