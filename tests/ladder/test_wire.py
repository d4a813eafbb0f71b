"""The ladder's own types and the niwa.v1 messages carry the same fields, and a value
crosses the wire and comes back equal."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from niwa.ladder import views
from niwa.ladder.wire import from_message, to_message
from niwa.proto.v1 import ladder_pb2 as pb

PAIRS: list[tuple[type[Any], Any]] = [
    (views.LadderBot, pb.LadderBot),
    (views.GameStatus, pb.GameStatus),
    (views.BotListing, pb.ListBotsResponse),
    (views.LeaderboardRow, pb.LeaderboardRow),
    (views.Leaderboard, pb.Leaderboard),
    (views.SeatResult, pb.SeatResult),
    (views.MatchView, pb.Match),
    (views.MatchQuery, pb.ListMatchesRequest),
    (views.SeatLog, pb.SeatLog),
    (views.BotLogs, pb.BotLogs),
    (views.Replay, pb.Replay),
    (views.SeasonView, pb.Season),
    (views.LeaguesView, pb.Leagues),
    (views.LeagueView, pb.League),
]

BOT = views.LadderBot(
    id=7, name="ash", version="2", game="blossom", owner="alice", source="archive",
    archive_hash="ab" * 32, status="active", reason="", elo=1512.5, games=40, wins=22,
    stderr_tail=("Traceback (most recent call last):", "ValueError: no"),
)  # fmt: skip
SEAT = views.SeatResult(
    seat=1, bot_id=7, bot="ash@2", place=1, score=-3.5, status="crashed",
    reason="CRASHED: exited with code 1", failure="CRASHED", out_step=12,
    out_at_start=False, detail="exited with code 1", stderr_tail=("boom",),
)  # fmt: skip


@pytest.mark.parametrize(("view", "message"), PAIRS, ids=lambda x: x.__name__)
def test_each_view_has_exactly_its_message_fields(view: type[Any], message: Any) -> None:
    assert {f.name for f in dataclasses.fields(view)} == set(message.DESCRIPTOR.fields_by_name)


@pytest.mark.parametrize(
    "value",
    [
        views.BotListing(bots=(BOT,), games=(views.GameStatus("sakura", 1, 2, "1 more bot"),)),
        views.Leaderboard(
            game="blossom", matches=3,
            rows=(views.LeaderboardRow(1, BOT, 1512.5, 80.25),
                  views.LeaderboardRow(2, BOT, 1500.0, float("inf"))),
            season="2027-spring",
        ),
        views.SeasonView(name="2027-spring", started_at=1.5, ended_at=0.0,
                         games=("blossom", "sakura"), time_control="2s+60s", current=True),
        views.MatchView(
            id=3, game="blossom", game_version="blossom@1", kind="rated", seed=2**63 + 5,
            options_json="{}", state="done", seats=(7, 9), results=(SEAT,), created_at=1.5,
            started_at=2.5, finished_at=3.5, wall_s=1.0, decisions=60, error="", seq=4,
            replay_sha256="cd" * 32, duplicate_group=0,
        ),
        views.MatchQuery(game="blossom", bot="ash@2", state="done", limit=5, before_id=9),
        views.BotLogs(match_id=3, seats=(views.SeatLog(1, 7, "ash@2", "crashed", "CRASHED",
                                                       ("boom",)),)),
        views.Replay(match_id=3, content=b"\x00niwa replay\n", sha256="ef" * 32),
    ],
    ids=lambda v: type(v).__name__,
)  # fmt: skip
def test_a_view_crosses_the_wire_and_comes_back_equal(value: Any) -> None:
    message_type = dict(PAIRS)[type(value)]
    data = to_message(value, message_type).SerializeToString()
    assert from_message(type(value), message_type.FromString(data)) == value
