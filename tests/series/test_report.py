"""Standings, the head-to-head counts and the live display, on made-up game records."""

from __future__ import annotations

import io

from niwa.series.games import FirstFailure, GameJob, GameRecord, SeatRecord
from niwa.series.headtohead import HeadToHead, a_score
from niwa.series.report import Live, Standings, points
from niwa.series.stats import Sprt


def record(places: list[int], ids: tuple[str, ...], deal: int = 0, **out: str) -> GameRecord:
    job = GameJob(0, "blossom", tuple("builtin:x" for _ in ids), ids, 5, "1s+1s", round=deal)
    seats = [
        SeatRecord(bot, "/bots/" + bot if bot in out else "builtin:x", place, 10.0 - place,
                   "out" if bot in out else "ok", reason=out.get(bot, ""),
                   stderr_tail=["Traceback", "ImportError: no \x1b[31mnumpy"] if bot in out
                   else [], failures={"CRASHED": 1} if bot in out else {})
        for bot, place in zip(ids, places, strict=True)
    ]
    return GameRecord(job, seats, 10, 0.1, "m1")


def test_points_are_the_share_of_seats_placed_ahead_of() -> None:
    assert points(0, [0, 1]) == 1.0 and points(1, [0, 1]) == 0.0 and points(0, [0, 0]) == 0.5
    assert points(1, [0, 1, 2]) == 0.5


def test_a_scores_its_places_against_bs_ties_half() -> None:
    assert a_score([0, 1], ("A", "B"), "A", "B") == 1.0
    assert a_score([0, 1, 2, 3], ("A", "B", "B", "A"), "A", "B") == 0.5
    assert a_score([1, 0, 2], ("A", "F", "B"), "A", "B") == 1.0


def test_a_pair_counts_once_both_games_of_its_deal_are_in() -> None:
    duel = HeadToHead("A", "B", per_pair=2, sprt=None)
    duel.add(record([0, 1], ("A", "B"), deal=3))
    assert duel.counts == [0, 0, 0, 0, 0]
    duel.add(record([0, 0], ("B", "A"), deal=3))  # a draw: the pair scores 1½ of 2
    assert duel.counts == [0, 0, 0, 1, 0]


def test_the_sprt_stops_on_a_run_of_wins_and_keeps_its_verdict() -> None:
    duel = HeadToHead("A", "B", per_pair=1, sprt=Sprt(0, 200, 0.05, 0.05))
    n = 0
    while duel.verdict == "continue":
        duel.add(record([0, 1], ("A", "B")))
        n += 1
    assert duel.verdict == "H1" and n < 20
    duel.add(record([1, 0], ("A", "B")))
    assert duel.verdict == "H1" and duel.to_json(finished=True)["sprt"]["verdict"] == "H1"


def test_an_out_seat_is_noted_once_per_bot_with_its_stderr_escaped() -> None:
    standings = Standings(["A", "B"])
    notes = standings.add(record([1, 0], ("A", "B"), A="CRASHED"))
    assert notes[0].startswith("A OUT in game 0 (seed 5): CRASHED at start-up")
    assert notes[-1] == "       | ImportError: no \\x1b[31mnumpy"
    assert standings.add(record([1, 0], ("A", "B"), A="CRASHED")) == []
    assert standings.lines["A"].failures == {"CRASHED": 2} and standings.lines["A"].outs == 2


def illegal_once(index: int, at: int, detail: str) -> GameRecord:
    """A game where bot A answered illegally once (and stayed in)."""
    job = GameJob(index, "blossom", ("/bots/a", "builtin:x"), ("A", "B"), 5 + index, "1s+1s")
    seats = [
        SeatRecord("A", "/bots/a", 0, 10.0, "ok", failures={"ILLEGAL": 1},
                   first_failures={"ILLEGAL": FirstFailure(at, detail)}),
        SeatRecord("B", "builtin:x", 1, 9.0, "ok"),
    ]
    return GameRecord(job, seats, 10, 0.1, "m1")


def test_a_bots_first_failure_of_a_class_is_noted_once_with_its_detail_escaped() -> None:
    standings = Standings(["A", "B"])
    notes = standings.add(illegal_once(0, 12, "index 9 out of range \x1b[2J"))
    assert notes == ["A: first ILLEGAL in game 0 (seed 5) at step 12: "
                     "index 9 out of range \\x1b[2J"]
    assert standings.add(illegal_once(1, 3, "another")) == []


def test_the_failure_lines_count_each_class_and_keep_the_first_detail() -> None:
    standings = Standings(["A", "B"])
    standings.add(illegal_once(0, 12, "first one"))
    standings.add(illegal_once(1, 3, "second one"))
    assert standings.failure_lines() == [
        "failures (count, and the first reported):",
        "  A: ILLEGAL x2, first in game 0 (seed 5) at step 12: first one",
    ]
    assert Standings(["A"]).failure_lines() == []


def test_the_live_table_is_redrawn_in_place_on_a_terminal() -> None:
    out = io.StringIO()
    live = Live(out, tty=True)
    live.update(["progress 1", "row"])
    live.last = 0.0  # past the redraw interval
    live.update(["progress 2", "row"])
    assert out.getvalue() == "progress 1\nrow\n\x1b[2F\x1b[Jprogress 2\nrow\n"


def test_without_a_terminal_only_progress_lines_are_appended_then_the_table() -> None:
    out = io.StringIO()
    live = Live(out, tty=False)
    live.update(["progress 1", "row"])
    live.update(["progress 2", "row"])
    live.update(["done", "row"], final=True)
    assert out.getvalue() == "progress 1\nprogress 2\ndone\nrow\n"
