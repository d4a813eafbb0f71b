"""Seasons through a real server and the CLI: only an admin starts one, and the ended
season's standings read the same through the API, the CLI (server or --db) afterwards."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from niwa.ladder import client, server
from niwa.ladder.store import Store
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc
from tests.ladder.test_api import code_of
from tests.ladder.tiny_bots import cli
from tests.web.ladders import play_builtins


@dataclass
class Served:
    db: Path
    address: str
    stub: pb_grpc.LadderStub
    admin: str
    owner: str
    before: pb.LeaderboardResponse  # the leaderboards read before any season started


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "ladder.db"
    play_builtins(str(db), tmp_path, "blossom", 4)
    store = Store.open(str(db), tmp_path)
    _, admin = store.owners.add_owner("root", admin=True)
    _, owner = store.owners.add_owner("alice")
    store.close()
    grpc_server, port = server.start(str(db), None, "127.0.0.1:0")
    channel, stub = client.connect(f"127.0.0.1:{port}")
    before = stub.GetLeaderboard(pb.LeaderboardRequest(), metadata=client.auth(admin))
    try:
        yield Served(db, f"127.0.0.1:{port}", stub, admin, owner, before)
    finally:
        channel.close()
        grpc_server.stop(None)


def start(served: Served, token: str | None, name: str = "spring") -> pb.Season:
    request = pb.StartSeasonRequest(name=name, games=["blossom"], time_control="2s+10s")
    reply: pb.Season = served.stub.StartSeason(request, metadata=client.auth(token))
    return reply


def seasons(served: Served) -> list[str]:
    return [s.name for s in served.stub.ListSeasons(pb.ListSeasonsRequest()).seasons]


def test_starting_a_season_without_a_token_is_refused(served: Served) -> None:
    assert code_of(lambda: start(served, None)) == grpc.StatusCode.UNAUTHENTICATED
    assert seasons(served) == ["season-1"]


def test_an_owner_who_is_not_an_admin_may_not_start_a_season(served: Served) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        start(served, served.owner)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "needs an admin token" in (caught.value.details() or "")
    assert seasons(served) == ["season-1"]


def test_an_admin_starts_a_season_and_the_old_standings_read_as_they_were(
    served: Served,
) -> None:
    season = start(served, served.admin)
    assert (season.name, season.current, list(season.games)) == ("spring", True, ["blossom"])
    assert season.time_control == "2s+10s" and season.ended_at == 0
    assert seasons(served) == ["spring", "season-1"]
    (old,) = served.stub.ListSeasons(pb.ListSeasonsRequest(name="season-1")).seasons
    assert not old.current and old.ended_at >= old.started_at
    frozen = served.stub.GetLeaderboard(pb.LeaderboardRequest(season="season-1"))
    assert frozen == served.before
    (board,) = served.stub.GetLeaderboard(pb.LeaderboardRequest()).boards
    assert board.season == "spring" and board.matches == 0


def test_a_season_name_taken_already_is_refused(served: Served) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        start(served, served.admin, "season-1")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "exists already" in (caught.value.details() or "")


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (pb.LeaderboardRequest(season="winter"), grpc.StatusCode.NOT_FOUND),
        (pb.LeaderboardRequest(season="x" * 65), grpc.StatusCode.INVALID_ARGUMENT),
        (pb.ListSeasonsRequest(name="winter"), grpc.StatusCode.NOT_FOUND),
    ],
)
def test_an_unknown_or_overlong_season_is_classified(
    served: Served, request_: object, code: grpc.StatusCode
) -> None:
    method = (
        served.stub.GetLeaderboard if isinstance(request_, pb.LeaderboardRequest)
        else served.stub.ListSeasons
    )  # fmt: skip
    assert code_of(lambda: method(request_)) == code


def test_the_cli_starts_a_season_on_the_server_and_reads_the_old_standings(
    served: Served,
) -> None:
    server_args = ("--server", served.address)
    code, out = cli("ladder", "leaderboard", "blossom", *server_args)
    assert code == 0 and "(season season-1)" in out
    table = out.splitlines()[1:]
    code, out = cli("ladder", "season", "start", "spring", *server_args, "--token", served.owner)
    assert code != 0
    code, out = cli("ladder", "season", "start", "spring", "--games", "blossom",
                    *server_args, "--token", served.admin)  # fmt: skip
    assert code == 0 and "season spring started" in out, out
    code, out = cli("ladder", "leaderboard", "blossom", "--season", "season-1", *server_args)
    assert code == 0 and out.splitlines()[1:] == table
    code, out = cli("ladder", "season", "show", "season-1", "blossom", *server_args)
    assert code == 0 and out.splitlines()[-len(table):] == table
    code, out = cli("ladder", "season", "list", *server_args)
    names = [line.split()[0] for line in out.splitlines()[1:]]
    assert code == 0 and names == ["spring", "season-1"]
    assert "blossom; time control the ladder's own" in out


def test_the_cli_starts_a_season_in_a_store_and_shows_it_as_json(served: Served) -> None:
    store_args = ("--db", str(served.db))
    code, out = cli("ladder", "season", "start", "blitz", "--time-control", "500ms+5s",
                    "--json", *store_args)  # fmt: skip
    assert code == 0
    assert json.loads(out)["season"]["time_control"] == "500ms+5s"
    code, out = cli("ladder", "season", "show", "season-1", "--json", *store_args)
    shown = json.loads(out)
    assert code == 0 and shown["season"]["current"] is False
    (board,) = shown["boards"]
    assert board["season"] == "season-1" and board["matches"] == 4
    assert [r["name"] for r in board["rows"]] == [r.bot.name for r in served.before.boards[0].rows]
