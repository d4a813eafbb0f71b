"""One served ladder (a real server on loopback, real sandboxed bots) with a sparring
partner: a lone submitted bot gets rated matches, replays name seats by name and say
who ran sandboxed, and a bot that went out shows why, its stderr only to its owner."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from niwa.ladder import client
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc
from tests.ladder.serving import start_ladder, wait_for
from tests.ladder.tiny_bots import QUICK, SECRET, SLEEPER, cli, owner_tokens, write_bot


@dataclass
class Served:
    address: str
    data: Path
    tokens: dict[str, str]
    stub: pb_grpc.LadderStub
    sleeper_verdict: str
    validation_id: int  # the sleeper's validation match
    rated: pb.Match  # a rated match of the lone submitted bot

    def as_(self, who: str) -> tuple[tuple[str, str], ...]:
        return client.auth(self.tokens[who]) if who in self.tokens else ()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("served")
    db = root / "ladder.db"
    tokens = owner_tokens(db, admins=("root",), owners=("alice", "bob"))
    quick = write_bot(root, "quick", "0.2.0", QUICK)
    sleeper = write_bot(root, "sleeper", "0.1.0", SLEEPER)
    proc, address = start_ladder(
        db, root / "ladder.log", "--game", "blossom", "--time", "500ms+1s",
        "--sparring", "builtin:greedy",
    )  # fmt: skip
    channel, stub = client.connect(address)
    try:
        submit = ("ladder", "submit", "--server", address, "--token", tokens["alice"])
        code, verdict = cli(*submit, str(sleeper))
        assert code == 1 and "rejected" in verdict, verdict
        code, out = cli(*submit, str(quick))
        assert code == 0 and "accepted" in out, out

        def rated() -> pb.Match | None:
            done = stub.ListMatches(pb.ListMatchesRequest(state="done", limit=50)).matches
            return next((m for m in done if m.kind == "rated"), None)

        match = wait_for("a rated match", rated)
        done = stub.ListMatches(pb.ListMatchesRequest(bot="sleeper", limit=5)).matches
        yield Served(address, root, tokens, stub, verdict, done[0].id, match)
    finally:
        channel.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait()


def test_a_lone_submitted_bot_plays_rated_matches_against_a_sparring_partner(
    served: Served,
) -> None:
    assert {r.bot for r in served.rated.results} == {"quick@0.2.0", "greedy@1"}
    board = served.stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards[0]
    rows = {row.bot.name: row for row in board.rows}
    assert set(rows) == {"quick", "greedy"}
    assert rows["greedy"].bot.source == "builtin:greedy" and rows["greedy"].bot.games >= 1
    code, out = cli("ladder", "leaderboard", "blossom", "--server", served.address)
    assert code == 0 and "greedy@1 (built-in)" in out and "quick@0.2.0 " in out


def test_ladder_replays_name_seats_by_name_and_version_and_who_ran_sandboxed(
    served: Served,
) -> None:
    replay = served.stub.GetReplay(pb.GetReplayRequest(match_id=served.rated.id))
    header = json.loads(replay.content.split(b"\n")[0])
    seats = {s["bot"]: s["isolation"] for s in header["seats"]}
    assert seats == {"quick@0.2.0": "sandbox", "builtin:greedy": "in-process"}
    assert header["sandbox"] is True
    assert str(served.data).encode() not in replay.content


def test_a_rejected_bots_verdict_shows_its_owner_the_end_of_its_stderr(served: Served) -> None:
    assert "rejected: validation match: TIMEOUT: no answer within " in served.sleeper_verdict
    assert SECRET in served.sleeper_verdict


def test_the_bots_list_shows_a_rejected_bots_stderr_to_its_owner_only(served: Served) -> None:
    def tail(who: str) -> list[str]:
        listing = served.stub.ListBots(pb.ListBotsRequest(all=True), metadata=served.as_(who))
        return next(list(b.stderr_tail) for b in listing.bots if b.name == "sleeper")

    assert SECRET in tail("alice")
    assert tail("bob") == [] and tail("nobody") == []


def test_matches_shows_anyone_an_out_seats_failure_step_and_detail(served: Served) -> None:
    code, out = cli("ladder", "matches", "--bot", "sleeper", "--server", served.address,
                    "--token", served.tokens["bob"])  # fmt: skip
    assert code == 0
    assert "sleeper@0.1.0 OUT TIMEOUT at step " in out and ": no answer within " in out
    assert SECRET not in out


def test_matches_shows_the_owner_the_stderr_of_its_bot_that_went_out(served: Served) -> None:
    code, out = cli("ladder", "matches", "--bot", "sleeper@0.1.0", "--server", served.address,
                    "--token", served.tokens["alice"])  # fmt: skip
    assert code == 0 and SECRET in out


def test_the_owner_reads_its_bots_logs_of_a_match(served: Served) -> None:
    code, out = cli("ladder", "logs", str(served.validation_id), "--bot", "sleeper",
                    "--server", served.address, "--token", served.tokens["alice"])  # fmt: skip
    assert code == 0 and SECRET in out and "out (TIMEOUT)" in out


def test_an_admin_reads_any_bots_logs(served: Served) -> None:
    request = pb.GetBotLogsRequest(match_id=served.validation_id, bot="sleeper")
    logs = served.stub.GetBotLogs(request, metadata=served.as_("root"))
    assert any(SECRET in line for seat in logs.seats for line in seat.stderr_tail)


@pytest.mark.parametrize(
    ("who", "code", "cause"),
    [("bob", grpc.StatusCode.PERMISSION_DENIED, "not for bob"),
     ("nobody", grpc.StatusCode.UNAUTHENTICATED, "has no token")],
    ids=["another-owner", "anonymous"],
)  # fmt: skip
def test_nobody_else_may_read_a_bots_logs(
    served: Served, who: str, code: grpc.StatusCode, cause: str
) -> None:
    request = pb.GetBotLogsRequest(match_id=served.validation_id, bot="sleeper")
    with pytest.raises(grpc.RpcError) as caught:
        served.stub.GetBotLogs(request, metadata=served.as_(who))
    assert caught.value.code() == code
    details = str(caught.value.details())
    assert "for its owner (alice) and admins" in details and cause in details
    assert SECRET not in details


def test_the_public_replay_keeps_no_stderr_and_still_verifies(
    served: Served, tmp_path: Path
) -> None:
    replay = served.stub.GetReplay(pb.GetReplayRequest(match_id=served.validation_id))
    assert SECRET.encode() not in replay.content
    result = json.loads(replay.content.rstrip(b"\n").split(b"\n")[-1])
    assert [s["status"] for s in result["seats"]] == ["out", "ok"]
    saved = tmp_path / "validation.jsonl"
    code, _ = cli("ladder", "replay", str(served.validation_id), "--server", served.address,
                  "-o", str(saved))  # fmt: skip
    assert code == 0 and cli("replay", "verify", str(saved))[0] == 0
