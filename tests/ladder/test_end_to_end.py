"""End to end: serve a ladder, submit the two example bots over the API, let them play,
read the leaderboard and fetch a replay that ``niwa replay verify`` accepts."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.ladder import client
from niwa.proto.v1 import ladder_pb2 as pb
from tests.ladder.serving import start_ladder, wait_for

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BOTS = {"python-bot": "python-example", "js-bot": "js-example"}


def test_two_submitted_bots_are_ranked_and_their_replays_verify(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], js_bot: Path
) -> None:
    store = ["--db", db_url, "--data", str(tmp_path)]
    assert main(["ladder", "user", "add", "alice", *store]) == 0
    token = capsys.readouterr().out.split()[-1]
    # One game keeps the test short; the scheduler treats every game alike.
    proc, address = start_ladder(db_url, tmp_path / "ladder.log", *store[2:], "--game", "blossom")
    other: subprocess.Popen[str] | None = None
    channel, stub = client.connect(address)
    try:
        for folder, name in BOTS.items():
            submit = ["ladder", "submit", str(EXAMPLES / folder), "--server", address]
            code = main([*submit, "--token", token])
            out = capsys.readouterr().out
            assert code == 0 and f"({name}@1.0.0, blossom): accepted" in out, out

        def rated_matches() -> list[pb.Match]:
            listing = stub.ListMatches(pb.ListMatchesRequest(state="done", limit=100))
            rated = [m for m in listing.matches if m.kind == "rated"]
            return rated if len(rated) >= 4 else []

        rated = wait_for("four rated matches", rated_matches)
        played = {r.bot.split("@")[0] for m in rated for r in m.results}
        assert played == set(BOTS.values())

        boards = stub.GetLeaderboard(pb.LeaderboardRequest()).boards
        ranked = {b.game: {row.bot.name for row in b.rows} for b in boards if b.matches}
        assert ranked and all(names == set(BOTS.values()) for names in ranked.values())

        first_seq = min(m.seq for m in rated)
        watched = next(iter(stub.WatchMatches(pb.WatchMatchesRequest(after_seq=first_seq))))
        assert watched.seq > first_seq and watched.state == "done"

        replay = tmp_path / "match.jsonl"
        fetch = ["ladder", "replay", str(rated[0].id), "--server", address, "-o", str(replay)]
        assert main(fetch) == 0
        assert main(["replay", "verify", str(replay)]) == 0
        # The ladder vouches for its copy, not for a consistent edit of it.
        capsys.readouterr()
        assert main(["replay", "verify", str(replay), "--ladder", address]) == 0
        assert f"holds this file as the public copy of match {rated[0].id}" in (
            capsys.readouterr().out)
        edited = tmp_path / "edited.jsonl"
        edited.write_bytes(replay.read_bytes().replace(b'"note":"', b'"note":"x', 1))
        assert main(["replay", "verify", str(edited)]) == 0  # a note proves nothing
        assert main(["replay", "verify", str(edited), "--ladder", address]) == 1
        assert f"FAILED: not the ladder's public copy of match {rated[0].id}" in (
            capsys.readouterr().out)

        # A second node, its folder empty (its runner a standby), serves that replay too.
        (tmp_path / "other").mkdir()
        flags = ("--data", str(tmp_path / "other"), "--game", "blossom")
        other, other_address = start_ladder(db_url, tmp_path / "other.log", *flags)
        again = tmp_path / "again.jsonl"
        fetch = ["ladder", "replay", str(rated[0].id), "--server", other_address, "-o", str(again)]
        assert main(fetch) == 0
        assert again.read_bytes() == replay.read_bytes()
    finally:
        channel.close()
        for running in (proc, other):
            if running is not None:
                running.send_signal(signal.SIGTERM)
                running.wait()
