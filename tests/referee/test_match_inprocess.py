"""The match loop with built-in bots in process, on the toy game."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.bots import builtin
from niwa.referee import replay
from niwa.referee.clock import TimeControl
from niwa.referee.match import SeatOutcome, final_places
from niwa.referee.replay import check as replay_check
from tests.referee.conftest import RunToy
from tests.referee.toy import GAME


@pytest.fixture(autouse=True)
def _test_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, cls in [("oor", "OutOfRange"), ("names", "NamesAnAction"), ("raises", "Raises"),
                      ("slow", "Slow"), ("unserialisable", "Unserialisable"),
                      ("odd-thinking", "OddThinking")]:
        monkeypatch.setitem(builtin.BUILTIN, name, f"tests.referee.inproc_bots:{cls}")


def _lines_without_start_stamp(path: Path) -> list[object]:
    """What must repeat exactly: every move and hash, and the result (not timings)."""
    r = replay.read(path)
    steps: list[object] = [(s.index, s.kind, s.joint(), s.hash) for s in r.steps]
    return [*steps, r.result.scores if r.result else None]


def test_same_seed_gives_the_same_game(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random", "builtin:random", seed=5, replay="a.jsonl")
    run_toy("builtin:random", "builtin:random", "builtin:random", seed=5, replay="b.jsonl")
    assert _lines_without_start_stamp(tmp_path / "a.jsonl") == _lines_without_start_stamp(
        tmp_path / "b.jsonl"
    )


def test_another_seed_gives_another_game(run_toy: RunToy, tmp_path: Path) -> None:
    run_toy("builtin:random", "builtin:random", seed=5, replay="a.jsonl")
    run_toy("builtin:random", "builtin:random", seed=6, replay="b.jsonl")
    assert _lines_without_start_stamp(tmp_path / "a.jsonl") != _lines_without_start_stamp(
        tmp_path / "b.jsonl"
    )


def test_replay_of_a_match_verifies(run_toy: RunToy, tmp_path: Path) -> None:
    outcome = run_toy("builtin:random", "builtin:random", "builtin:random")
    r = replay.read(tmp_path / "toy.jsonl")
    assert replay_check.verify(r, GAME) == len(r.steps)
    assert r.result is not None and r.result.places == list(outcome.result.places)


def test_replay_records_chance_simultaneous_and_single_decisions(
    run_toy: RunToy, tmp_path: Path
) -> None:
    run_toy("builtin:random", "builtin:random")
    r = replay.read(tmp_path / "toy.jsonl")
    kinds = {(s.kind, len(s.moves)) for s in r.steps}
    assert kinds == {("chance", 1), ("decision", 1), ("decision", 2)}


def test_decision_count_excludes_chance(run_toy: RunToy, tmp_path: Path) -> None:
    outcome = run_toy("builtin:random", "builtin:random")
    r = replay.read(tmp_path / "toy.jsonl")
    assert outcome.decisions == sum(1 for s in r.steps if s.kind == "decision")


def test_answering_with_the_action_itself_plays_it_and_keeps_the_note(
    run_toy: RunToy, tmp_path: Path
) -> None:
    outcome = run_toy("builtin:names", "builtin:random")
    moves = [m for s in replay.read(tmp_path / "toy.jsonl").steps for m in s.moves if m.seat == 0]
    assert {m.action for m in moves} == {"pass", "lo"}
    assert {m.note for m in moves} == {"last one"}
    assert outcome.seats[0].status == "ok"


def test_index_out_of_range_is_illegal_and_gets_a_default_move(
    run_toy: RunToy, tmp_path: Path
) -> None:
    run_toy("builtin:oor", "builtin:random", max_failures=100)
    first = next(
        m for s in replay.read(tmp_path / "toy.jsonl").steps for m in s.moves if m.seat == 0
    )
    assert first.status == "ILLEGAL"
    assert "out of range" in first.detail


def test_repeated_failures_put_the_seat_out_and_it_places_last(run_toy: RunToy) -> None:
    outcome = run_toy("builtin:oor", "builtin:random", "builtin:random", max_failures=2)
    assert outcome.seats[0].status == "out" and outcome.seats[0].reason == "ILLEGAL"
    assert outcome.result.places[0] == 2
    assert [s.status for s in outcome.seats[1:]] == ["ok", "ok"]


def test_a_seat_that_is_out_takes_default_moves_marked_out(
    run_toy: RunToy, tmp_path: Path
) -> None:
    run_toy("builtin:oor", "builtin:random", max_failures=1)
    statuses = [m.status for s in replay.read(tmp_path / "toy.jsonl").steps for m in s.moves
                if m.seat == 0]
    assert statuses[0] == "ILLEGAL" and set(statuses[1:]) == {"OUT"}


def test_a_bot_that_raises_in_process_is_crashed_and_out(run_toy: RunToy) -> None:
    outcome = run_toy("builtin:raises", "builtin:random")
    assert outcome.seats[0].reason == "CRASHED"
    assert "boom" in outcome.seats[0].detail


def test_an_answer_past_the_time_left_in_process_is_a_timeout_with_a_default_move(
    run_toy: RunToy, tmp_path: Path
) -> None:
    # The bot runs in the referee's thread: nothing stops it, the clock classifies it.
    outcome = run_toy("builtin:slow", "builtin:random", time_control=TimeControl(1, 0),
                      max_failures=100)
    first = next(
        m for s in replay.read(tmp_path / "toy.jsonl").steps for m in s.moves if m.seat == 0
    )
    assert (first.status, outcome.seats[0].status) == ("TIMEOUT", "ok")
    assert first.detail.startswith("answered after") and first.cpu_ms is not None


def test_out_seats_place_below_every_seat_still_in() -> None:
    seats = [SeatOutcome(0, "out", "CRASHED", at=5), SeatOutcome(1), SeatOutcome(2)]
    assert final_places([0, 1, 2], seats) == [2, 0, 1]


def test_a_seat_out_later_places_above_one_out_earlier() -> None:
    seats = [SeatOutcome(0, "out", "CRASHED", at=9), SeatOutcome(1, "out", "TIMEOUT", at=3),
             SeatOutcome(2)]
    assert final_places([1, 2, 0], seats) == [1, 2, 0]


def test_a_seat_that_never_started_places_below_one_out_during_play() -> None:
    seats = [SeatOutcome(0, "out", "CRASHED", at=None), SeatOutcome(1, "out", "TIMEOUT", at=0),
             SeatOutcome(2)]
    assert final_places([0, 1, 2], seats) == [2, 1, 0]


def test_an_answer_that_breaks_the_referees_handling_is_the_bots_illegal_move(
    run_toy: RunToy, tmp_path: Path
) -> None:
    outcome = run_toy("builtin:unserialisable", "builtin:random", max_failures=100)
    moves = [m for s in replay.read(tmp_path / "toy.jsonl").steps for m in s.moves if m.seat == 0]
    assert moves and {m.status for m in moves} == {"ILLEGAL"}
    assert moves[0].detail == "the answer could not be used (TypeError)"
    assert outcome.seats[0].status == "ok" and outcome.result.places


def test_thinking_the_referee_cannot_read_is_dropped_and_the_seat_plays_on(
    run_toy: RunToy, tmp_path: Path
) -> None:
    run_toy("builtin:odd-thinking", "builtin:random")
    r = replay.read(tmp_path / "toy.jsonl")
    moves = [m for s in r.steps for m in s.moves if m.seat == 0]
    assert moves and {m.status for m in moves} == {"OK"}
    assert all(m.thinking is None for m in moves)
    assert {m.debug for m in moves} == {"[thinking dropped: it could not be read (TypeError)]"}
