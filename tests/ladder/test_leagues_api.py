"""Leagues through a real server and the CLI: only an admin sets or clears them, a
wrong setting is refused with one line, and the leaderboard rows name the leagues."""

from __future__ import annotations

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

LEAGUES = ["bronze:random@1", "silver:greedy@1"]


@dataclass
class Served:
    address: str
    stub: pb_grpc.LadderStub
    admin: str
    owner: str


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "ladder.db"
    play_builtins(str(db), tmp_path, "blossom", 2)
    store = Store.open(str(db), tmp_path)
    _, admin = store.owners.add_owner("root", admin=True)
    _, owner = store.owners.add_owner("alice")
    store.close()
    grpc_server, port = server.start(str(db), None, "127.0.0.1:0")
    channel, stub = client.connect(f"127.0.0.1:{port}")
    try:
        yield Served(f"127.0.0.1:{port}", stub, admin, owner)
    finally:
        channel.close()
        grpc_server.stop(None)


def set_leagues(served: Served, token: str | None, leagues: list[str]) -> pb.Leagues:
    request = pb.SetLeaguesRequest(game="blossom", leagues=leagues, share_above=0.2)
    reply: pb.Leagues = served.stub.SetLeagues(request, metadata=client.auth(token))
    return reply


def row_leagues(served: Served) -> set[str]:
    (board,) = served.stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards
    return {r.league for r in board.rows}


def test_setting_leagues_without_a_token_is_refused(served: Served) -> None:
    assert code_of(lambda: set_leagues(served, None, LEAGUES)) == grpc.StatusCode.UNAUTHENTICATED
    assert row_leagues(served) == {""}


def test_an_owner_who_is_not_an_admin_may_not_set_leagues(served: Served) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        set_leagues(served, served.owner, LEAGUES)
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "needs an admin token" in (caught.value.details() or "")
    assert row_leagues(served) == {""}


def test_an_admin_sets_and_clears_leagues_and_the_rows_name_them(served: Served) -> None:
    reply = set_leagues(served, served.admin, LEAGUES)
    assert [(x.name, x.boss, x.bots) for x in reply.leagues] == [
        ("bronze", "random@1", 0), ("silver", "greedy@1", 0),
    ]  # fmt: skip
    assert row_leagues(served) == {"bronze", "silver"}
    assert not set_leagues(served, served.admin, []).leagues
    assert row_leagues(served) == {""}


def test_a_wrong_league_setting_is_invalid_and_named(served: Served) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        set_leagues(served, served.admin, ["bronze:nobody@9"])
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "no active bot of blossom" in (caught.value.details() or "")


def test_the_cli_sets_leagues_on_the_server_with_an_admin_token(served: Served) -> None:
    code, out = cli("ladder", "league", "set", "blossom", *LEAGUES, "--share-above", "0.5",
                    "--server", served.address, "--token", served.admin)  # fmt: skip
    assert code == 0 and "50% of tables against the league above" in out, out
    code, out = cli("ladder", "league", "clear", "blossom", "--server", served.address,
                    "--token", served.owner)  # fmt: skip
    assert code != 0, out  # PERMISSION_DENIED: the leagues stay
    assert row_leagues(served) == {"bronze", "silver"}
