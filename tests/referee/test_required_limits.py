"""Without cgroups: the ladder refuses to run a sandboxed bot, ``niwa play`` warns loudly.
"No cgroup" is simulated by pointing the cgroup root at an empty directory."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from niwa.cli import build_parser, main
from niwa.commands.play import build_spec
from niwa.ladder.worker import Job, run_job
from niwa.referee import cgroups, process_player
from niwa.referee.cgroups import ROOT_ENV, LimitsUnavailable, probe
from niwa.referee.match import BotLimits, BotSpec, MatchSpec, play_match
from niwa.referee.process_player import ProcessPlayer
from tests.referee.sandboxing import FAST, hostile_bot
from tests.referee.toy import GAME

BANNER = "WARNING: the bots' limits are NOT enforced"


@pytest.fixture
def no_cgroups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = tmp_path / "no-cgroups"
    empty.mkdir()
    monkeypatch.setenv(ROOT_ENV, str(empty))
    return empty


def test_a_match_requiring_limits_refuses_before_any_bot_starts(
    tmp_path: Path, no_cgroups: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[object] = []
    monkeypatch.setattr(process_player, "Child", lambda *a: started.append(a))
    spec = MatchSpec(
        game=GAME,
        bots=[BotSpec.parse(str(hostile_bot(tmp_path, "quiet"))), BotSpec.parse("builtin:random")],
        time_control=FAST,
        require_limits=True,
        replay_path=tmp_path / "r.jsonl",
    )
    with pytest.raises(LimitsUnavailable) as e:
        play_match(spec)
    assert "no memory limit" in str(e.value) and "run the referee as root" in str(e.value)
    assert started == []


def test_a_bot_group_failing_after_the_check_still_refuses_the_match(
    tmp_path: Path, no_cgroups: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cgroups, "check_required", lambda limits: None)  # it passed, then
    spec = MatchSpec(
        game=GAME,
        bots=[BotSpec.parse(str(hostile_bot(tmp_path, "quiet"))), BotSpec.parse("builtin:random")],
        time_control=FAST,
        require_limits=True,
    )
    with pytest.raises(LimitsUnavailable, match="cannot enforce the bot limits"):
        play_match(spec)  # the refusal itself, not an exception group holding it


def test_a_player_requiring_limits_is_not_started_without_its_cgroup(no_cgroups: Path) -> None:
    async def start() -> None:
        async with trio.open_nursery() as nursery:
            player = ProcessPlayer(
                manifest=BotSpec.parse("builtin:random").manifest(),
                seat=0,
                match_id="nolimits",
                sandbox=True,
                limits=BotLimits(),
                startup_timeout_s=5,
                log_dir=None,
                nursery=nursery,
                require_limits=True,
            )
            with pytest.raises(LimitsUnavailable, match="no cgroup hierarchy is mounted"):
                await player._spawn()
            await player.close()
            assert player._process is None and player._run_dir is None

    trio.run(start)


def test_the_ladder_worker_refuses_a_submitted_bot_without_cgroups(
    tmp_path: Path, no_cgroups: Path
) -> None:
    job = Job(
        match_id=1,
        game="blossom",
        options={},
        seed=1,
        bots=(str(hostile_bot(tmp_path, "quiet")), "builtin:random", "builtin:random"),
        bot_ids=(1, 2, 3),
        replay_path=str(tmp_path / "replays" / "1.jsonl"),
        log_dir=str(tmp_path / "logs"),
        time_control="300ms+1s",
    )
    with pytest.raises(LimitsUnavailable, match="cannot enforce the bot limits"):
        run_job(job)
    assert list((tmp_path / "replays").iterdir()) == []  # its partial replay removed


def test_niwa_play_without_cgroups_prints_a_banner_naming_what_is_not_enforced(
    no_cgroups: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:random",
            "--bot", "builtin:random", "--quiet", "--time", "300ms+1s"]  # fmt: skip
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert BANNER in err
    assert "no memory limit, process limit, CPU quota, CPU accounting or freezer" in err


def test_niwa_play_with_cgroups_prints_no_banner(capsys: pytest.CaptureFixture[str]) -> None:
    if probe(BotLimits()):
        pytest.skip(f"this machine lacks cgroup limits: {probe(BotLimits())}")
    argv = ["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:random",
            "--bot", "builtin:random", "--quiet", "--time", "300ms+1s"]  # fmt: skip
    assert main(argv) == 0
    assert BANNER not in capsys.readouterr().err


def test_niwa_play_in_process_needs_no_cgroups(
    no_cgroups: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:random",
            "--bot", "builtin:random", "--quiet", "--in-process"]  # fmt: skip
    assert main(argv) == 0
    assert BANNER not in capsys.readouterr().err


def test_niwa_play_ponder_lets_bots_run_between_their_turns() -> None:
    argv = ["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:random"]
    assert build_spec(build_parser().parse_args(argv)).ponder is False
    assert build_spec(build_parser().parse_args([*argv, "--ponder"])).ponder is True
