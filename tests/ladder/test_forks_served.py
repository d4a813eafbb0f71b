"""An owner replays a finished match from a step with their other version, on a served
ladder playing real sandboxed bots: through the API (ForkMatch) and through the match
page's form (CSRF-checked). The fork plays, is unrated, its replay verifies and its
first N steps are the origin's."""

from __future__ import annotations

import dataclasses
import json
import signal
from pathlib import Path

import grpc
import pytest

from niwa.cli import main
from niwa.ladder import client
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc
from niwa.referee import replay
from tests.ladder.serving import start_ladder, wait_for
from tests.ladder.tiny_bots import QUICK, cli, owner_tokens, write_bot
from tests.web.signed_in import ORIGIN, Ladder, csrf_of, pages, sign_in

#: Steps of the origin the API's fork and the page's fork keep.
API_STEP, PAGE_STEP = 4, 2


def submit(folder: Path, address: str, token: str) -> None:
    code, out = cli("ladder", "submit", str(folder), "--server", address, "--token", token)
    assert code == 0 and "accepted" in out, out


def matches(stub: pb_grpc.LadderStub, state: str = "") -> list[pb.Match]:
    return list(stub.ListMatches(pb.ListMatchesRequest(state=state, limit=100)).matches)


def ratings(stub: pb_grpc.LadderStub) -> tuple[int, list[tuple[int, float, int, int]]]:
    """The blossom leaderboard's rated matches, and every bot's (retired and superseded
    ones too) running Elo, rated games and wins."""
    found = stub.GetLeaderboard(pb.LeaderboardRequest(game="blossom")).boards[0]
    every = stub.ListBots(pb.ListBotsRequest(game="blossom", all=True)).bots
    return found.matches, sorted((b.id, b.elo, b.games, b.wins) for b in every)


def unchained(steps: list[replay.Step]) -> list[replay.Step]:
    return [dataclasses.replace(s, chain="") for s in steps]


def code_of(call: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    return caught.value.code()


def test_an_owner_forks_a_finished_match_through_the_api_and_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "ladder.db"
    tokens = owner_tokens(db, (), ("alice", "bob"))
    bots = tmp_path / "bots"
    bots.mkdir()
    proc, address = start_ladder(db, tmp_path / "ladder.log", "--game", "blossom")
    channel, stub = client.connect(address)
    try:
        alice, bob = client.auth(tokens["alice"]), client.auth(tokens["bob"])
        submit(write_bot(bots, "quick", "0.2.0", QUICK), address, tokens["alice"])
        submit(write_bot(bots, "rival", "1.0.0", QUICK.replace("quick", "rival")), address,
               tokens["bob"])  # fmt: skip
        origin = wait_for("a rated match", lambda: next(
            (m for m in matches(stub, "done") if m.kind == "rated"), None))  # fmt: skip
        # bob's bot leaves: one active bot, no more rated matches, ratings stand still
        rival = next(r.bot_id for r in origin.results if r.bot.startswith("rival@"))
        stub.RetireBot(pb.RetireBotRequest(bot_id=rival), metadata=bob)
        wait_for("the rated matches to end", lambda: not any(
            m.kind == "rated" for m in matches(stub) if m.state in ("queued", "running")
        ))  # fmt: skip
        newer = tmp_path / "newer"
        newer.mkdir()
        submit(write_bot(newer, "quick", "0.3.0", QUICK), address, tokens["alice"])
        before = ratings(stub)
        seat = next(r.seat for r in origin.results if r.bot == "quick@0.2.0")

        request = pb.ForkMatchRequest(match_id=origin.id, step=API_STEP, seat=seat,
                                      bot="quick@0.3.0")  # fmt: skip
        assert code_of(lambda: stub.ForkMatch(request)) == grpc.StatusCode.UNAUTHENTICATED
        assert code_of(lambda: stub.ForkMatch(request, metadata=bob)) == (
            grpc.StatusCode.PERMISSION_DENIED)
        by_api = stub.ForkMatch(request, metadata=alice)
        assert (by_api.kind, by_api.fork_of, by_api.fork_at, by_api.fork_seat) == (
            "forked", origin.id, API_STEP, seat)

        with pages(Ladder(db, tokens)) as browser:
            sign_in(browser, tokens["alice"])
            page = browser.get(f"/matches/{origin.id}")
            assert 'id="fork"' in page.text and "quick@0.3.0" in page.text
            newer_id = next(b.id for b in stub.ListBots(pb.ListBotsRequest(game="blossom")).bots
                            if b.name == "quick" and b.version == "0.3.0")  # fmt: skip
            form = {"step": str(PAGE_STEP), "seat": str(seat), "bot": str(newer_id)}
            forged = browser.post(f"/matches/{origin.id}/fork", data=form,
                                  headers={"origin": ORIGIN})  # fmt: skip
            assert forged.status_code == 403
            sent = browser.post(f"/matches/{origin.id}/fork",
                                data={**form, "csrf": csrf_of(page.text)},
                                headers={"origin": ORIGIN})  # fmt: skip
            assert sent.status_code == 303
            by_page = int(sent.headers["location"].removeprefix("/matches/"))
            shown = browser.get(f"/matches/{by_page}")
            assert f"fork of <a href=\"/matches/{origin.id}\">#{origin.id}</a> at step " \
                   f"{PAGE_STEP}" in shown.text

        command = ["ladder", "fork", str(origin.id), "--at", "1", "--seat", str(seat),
                   "--server", address, "--token", tokens["alice"]]  # fmt: skip
        with pytest.raises(grpc.RpcError) as caught:  # both versions are "quick"
            stub.ForkMatch(pb.ForkMatchRequest(match_id=origin.id, step=1, seat=seat,
                                               bot="quick"), metadata=alice)  # fmt: skip
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "names 2 versions: give name@version" in (caught.value.details() or "")
        code, out = cli(*command, "--bot", "quick@0.3.0")
        assert code == 0 and f"fork of #{origin.id} at step 1 (seat {seat} replaced)" in out

        def both_done() -> list[pb.Match] | None:
            done = {m.id: m for m in matches(stub, "done")}
            return [done[by_api.id], done[by_page]] if {by_api.id, by_page} <= set(done) else None

        forked = wait_for("both forks to finish", both_done)
        # three waited at once (the most): now one more may
        code, out = cli(*command, "--bot", "quick@0.3.0", "--json")
        assert code == 0 and json.loads(out)["match"]["fork"] == {"of": origin.id, "at": 1,
                                                                   "seat": seat}  # fmt: skip
        assert ratings(stub) == before  # unrated: no rated match more, no Elo moved
        assert all(m.kind == "forked" for m in forked)

        original = tmp_path / "origin.jsonl"
        assert main(["ladder", "replay", str(origin.id), "--server", address,
                     "-o", str(original)]) == 0  # fmt: skip
        recorded = replay.read(original)
        for match, step in zip(forked, (API_STEP, PAGE_STEP), strict=True):
            path = tmp_path / f"fork-{match.id}.jsonl"
            assert main(["ladder", "replay", str(match.id), "--server", address,
                         "-o", str(path)]) == 0  # fmt: skip
            assert main(["replay", "verify", str(path)]) == 0
            played = replay.read(path)
            assert played.header.fork is not None
            assert (played.header.fork.at, played.header.fork.replay_sha256) == (
                step, origin.replay_sha256)
            # the same moves and states; the hash chain starts from each file's own header
            assert unchained(played.steps[:step]) == unchained(recorded.steps[:step])
            assert played.header.seats[seat].bot == "quick@0.3.0"
        capsys.readouterr()
    finally:
        channel.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait()
