"""A bot whose HTTP/2 server floods the referee with small frames before each valid
answer (docs/security.md, "Floods of frames"): real sandboxed processes, the flooder in
seat 0 against two random bots. The referee reads a bounded number of frames per call
and per match, counted before h2 parses them, and the flooding seat's calls fail as
ILLEGAL; the other seats answer every decision OK."""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest

from niwa.referee.match import MatchOutcome
from niwa.referee.replay import Replay
from niwa.referee.transport import (
    MATCH_FRAMES_BASE,
    MATCH_FRAMES_PER_CALL,
    MAX_CALL_EVENTS,
    MAX_CALL_FRAMES,
    MAX_CALL_READS,
)
from tests.captured_logs import every_event
from tests.referee.sandboxing import H2FLOOD, hostile_bot, moves_of, run_against_randoms

KINDS = ["data-empty", "data-tiny", "unknown", "ping", "settings", "informational",
         "window-update", "priority", "continuation"]  # fmt: skip


#: Frames per call an honest server stays under (gRPC libraries send 3 to 8:
#: docs/security.md, "Floods of frames").
HONEST_FRAMES = 10


def flood_match(
    tmp_path: Path, kind: str, count: int
) -> tuple[MatchOutcome, Replay, MutableMapping[str, Any]]:
    """The match, its replay and the flooder's ``bot_stopped`` log line; the random
    seats' lines are checked here (by :func:`assert_honest_seats_ok`)."""
    bot = hostile_bot(tmp_path, kind, str(count), script=H2FLOOD)
    with every_event() as logs:
        outcome, replay = run_against_randoms(bot, tmp_path)
    stopped = {e["seat"]: e for e in logs if e["event"] == "bot_stopped"}
    assert sorted(stopped) == [0, 1, 2]
    assert_honest_seats_ok(outcome, replay, [stopped[1], stopped[2]])
    return outcome, replay, stopped[0]


def assert_honest_seats_ok(
    outcome: MatchOutcome, replay: Replay, traffic: list[MutableMapping[str, Any]]
) -> None:
    """The random seats answered every decision OK with their usual traffic."""
    for seat, seen in zip((1, 2), traffic, strict=True):
        assert outcome.seats[seat].status == "ok"
        assert {status for status, _, _ in moves_of(replay, seat)} == {"OK"}
        assert 0 < seen["http2_frames"] <= HONEST_FRAMES * seen["calls"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_flood_of_frames_is_cut_off_at_the_per_call_bound(tmp_path: Path, kind: str) -> None:
    outcome, replay, traffic = flood_match(tmp_path, kind, 220_000)
    moves = moves_of(replay, 0)
    assert [status for status, _, _ in moves[:2]] == ["ILLEGAL", "ILLEGAL"]
    assert f"sent more than {MAX_CALL_FRAMES} HTTP/2 frames in one call" in moves[0][2]
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "ILLEGAL")
    # What h2 handled over the match: never more than the bounds of its calls, against
    # the 440,000 frames the two flooded calls were sent.
    calls = traffic["calls"]
    assert traffic["http2_frames"] <= MAX_CALL_FRAMES * calls
    assert traffic["http2_events"] <= MAX_CALL_EVENTS * calls
    assert traffic["socket_reads"] <= MAX_CALL_READS * calls


def test_a_flood_under_the_per_call_bound_runs_out_the_matchs_allowance(
    tmp_path: Path,
) -> None:
    _, replay, traffic = flood_match(tmp_path, "unknown", MAX_CALL_FRAMES - 100)
    moves = moves_of(replay, 0)
    statuses = [status for status, _, _ in moves]
    first = statuses.index("ILLEGAL")
    assert first > 0 and set(statuses[:first]) == {"OK"}  # the first calls fit
    assert moves[first][2] == (
        f"your server sent more HTTP/2 frames than a match allows "
        f"({MATCH_FRAMES_BASE} + {MATCH_FRAMES_PER_CALL} a call)"
    )
    assert traffic["http2_frames"] <= MATCH_FRAMES_BASE + MATCH_FRAMES_PER_CALL * traffic["calls"]


def test_the_same_server_without_a_flood_answers_every_decision(tmp_path: Path) -> None:
    outcome, replay, traffic = flood_match(tmp_path, "none", 0)
    assert {status for status, _, _ in moves_of(replay, 0)} == {"OK"}
    assert outcome.seats[0].status == "ok"
    assert traffic["http2_frames"] <= HONEST_FRAMES * traffic["calls"]
