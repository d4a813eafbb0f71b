"""The sandbox's surroundings (issue 11): the bot's disk, its socket, its uid, its
system calls and what mountinfo shows, each tried by a real sandboxed bot."""

from __future__ import annotations

import os
import re
import socket
import tempfile
from pathlib import Path

import pytest

from niwa.referee import seccomp
from niwa.referee.match import BotLimits, BotSpec, MatchOutcome, MatchSpec, play_match
from niwa.referee.replay import Replay, read
from niwa.referee.sandbox import MOUNT_POINT
from niwa.referee.uids import uid_range
from tests.referee.sandboxing import FAST, hostile_bot, leftover_processes, moves_of
from tests.referee.toy import GAME

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="per-bot uids and mounts need root")


def play(
    tmp_path: Path, *bots: Path, limits: BotLimits | None = None
) -> tuple[MatchOutcome, Replay]:
    """The given bots, then random bots up to three seats, sandboxed, on the toy game,
    with each bot's stderr kept in tmp_path/logs."""
    seats = [BotSpec.parse(str(b)) for b in bots]
    seats += [BotSpec.parse("builtin:random")] * (3 - len(seats))
    spec = MatchSpec(
        game=GAME, bots=seats, options={"rounds": 9}, seed=11, time_control=FAST,
        sandbox=True, max_failures=2, limits=limits or BotLimits(memory_mib=256),
        replay_path=tmp_path / "match.jsonl", log_dir=tmp_path / "logs",
    )  # fmt: skip
    outcome = play_match(spec)
    assert leftover_processes(outcome.match_id) == []
    return outcome, read(tmp_path / "match.jsonl")


def note(replay: Replay, seat: int = 0) -> str:
    return moves_of(replay, seat)[0][1]


def stderr_of(tmp_path: Path, seat: int) -> str:
    (log,) = (tmp_path / "logs").glob(f"*-seat{seat}-*.stderr")
    return log.read_text()


def own_dir(tmp_path: Path, name: str) -> Path:
    d = tmp_path / name
    d.mkdir(mode=0o755)
    return d


@pytest.fixture
def host_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The referee's temporary directory for this test: whatever it would make on the
    host's disk for a bot lands here."""
    d = tmp_path / "host-tmp"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


def test_a_bot_filling_its_disk_stops_at_the_byte_and_inode_caps(
    tmp_path: Path, host_tmp: Path
) -> None:
    outcome, replay = play(tmp_path, hostile_bot(tmp_path, "fill"))
    found = re.fullmatch(r"bytes (\d+) (\w+); files (\d+) (\w+)", note(replay))
    assert found is not None
    assert int(found[1]) <= BotLimits().tmp_mib << 20 and found[2] == "ENOSPC"
    assert BotLimits().tmp_inodes - 10 < int(found[3]) <= BotLimits().tmp_inodes
    assert found[4] == "ENOSPC"
    assert outcome.seats[0].status == "ok"
    # Nothing reached the host: no run folder, and the mount point stays empty here.
    assert list(host_tmp.iterdir()) == []
    assert list(MOUNT_POINT.iterdir()) == []


def test_the_per_file_limit_is_the_documented_64_mib(tmp_path: Path) -> None:
    size = BotLimits().file_size_mib << 20
    at_limit = hostile_bot(own_dir(tmp_path, "a"), "write-file", str(size))
    over = hostile_bot(own_dir(tmp_path, "b"), "write-file", str(size + 1))
    _, replay = play(tmp_path, at_limit, over, limits=BotLimits(memory_mib=512, tmp_mib=160))
    assert note(replay, 0) == f"wrote {size}"
    assert note(replay, 1) == "refused EFBIG"


def test_a_symlink_at_the_socket_path_is_refused_not_followed(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as host:
        host.bind(str(tmp_path / "host.sock"))
        host.listen()
        host.setblocking(False)
        bot = hostile_bot(tmp_path, "symlink-socket", str(tmp_path / "host.sock"))
        outcome, _ = play(tmp_path, bot)
        with pytest.raises(BlockingIOError):
            host.accept()  # nobody ever connected
    seat = outcome.seats[0]
    assert (seat.status, seat.reason, seat.at) == ("out", "DISCONNECTED", None)
    assert "not a socket the bot made (a symlink" in seat.detail


def test_concurrent_bots_run_as_different_uids_of_the_range(tmp_path: Path) -> None:
    bots = [hostile_bot(own_dir(tmp_path, n), "whoami") for n in "ab"]
    _, replay = play(tmp_path, *bots)
    uids = {int(note(replay, seat).split()[1]) for seat in (0, 1)}
    first, last = uid_range()
    assert len(uids) == 2 and all(first <= u <= last for u in uids)


def test_a_bot_exhausting_its_inotify_quota_leaves_other_bots_theirs(tmp_path: Path) -> None:
    per_user = int(Path("/proc/sys/fs/inotify/max_user_instances").read_text())
    hog = hostile_bot(tmp_path, "inotify-hog")
    other = hostile_bot(tmp_path, "inotify")
    _, replay = play(tmp_path, hog, other)
    assert note(replay, 0) == f"hogged {min(per_user, BotLimits().open_files - 3)}"
    assert note(replay, 1) == "ok"


def _probes() -> dict[str, str]:
    """``label:nr:args`` for the hostile bot -> the errno name expected."""
    nums = seccomp.arch().numbers
    probes = {f"{n}:{nums[n]}": "EPERM" for n in seccomp.DENIED_CALLS if n in nums}
    probes |= {f"{n}:{nums[n]}": "ENOSYS" for n in seccomp.ENOSYS_CALLS}
    # clone with CLONE_NEWUSER (and SIGCHLD), a legacy personality; and two that must
    # pass the filter: a personality query and a plain clone flag check's neighbour.
    probes[f"clone-newuser:{nums['clone']}:{0x10000000 | 17}"] = "EPERM"
    probes[f"personality-read-implies-exec:{nums['personality']}:{0x0400000}"] = "EPERM"
    probes[f"personality-query:{nums['personality']}:{0xFFFFFFFF}"] = "0"
    if seccomp.arch().foreign_from is not None:  # x32's getpid
        probes[f"x32-getpid:{0x40000000 | 39}"] = "ENOSYS"
    return probes


def test_denied_system_calls_fail_with_eperm_or_enosys(tmp_path: Path) -> None:
    probes = _probes()
    outcome, _ = play(tmp_path, hostile_bot(tmp_path, "syscalls", *probes))
    assert outcome.seats[0].status == "ok"
    seen = dict(
        line.removeprefix("PROBE ").split("=")
        for line in stderr_of(tmp_path, 0).splitlines()
        if line.startswith("PROBE ")
    )
    assert seen == {spec.split(":")[0]: want for spec, want in probes.items()}


def test_mountinfo_names_no_data_dir_no_other_bot_and_no_run_dir(tmp_path: Path) -> None:
    data_dir = tmp_path / "ladder-data-dir"
    (data_dir / "bots").mkdir(parents=True, mode=0o755)
    data_dir.chmod(0o755)
    bot = hostile_bot(data_dir / "bots", "mountinfo")
    (data_dir / "bots" / "0f1e2d3c-another-bots-hash").mkdir()
    outcome, _ = play(tmp_path, bot)
    mountinfo = stderr_of(tmp_path, 0)
    assert " /bot " in mountinfo  # it is the real mountinfo
    assert "ladder-data-dir" not in mountinfo and str(tmp_path) not in mountinfo
    assert "another-bots-hash" not in mountinfo and "bot-mountinfo" not in mountinfo
    assert "niwa-bot-" not in mountinfo
    assert outcome.seats[0].status == "ok"


def test_a_bot_nesting_3000_directories_plays_on_and_leaves_nothing(
    tmp_path: Path, host_tmp: Path
) -> None:
    outcome, replay = play(tmp_path, hostile_bot(tmp_path, "nest"))
    assert note(replay) == "nested"
    assert outcome.seats[0].status == "ok"
    assert list(host_tmp.iterdir()) == []
    assert list(MOUNT_POINT.iterdir()) == []


def test_a_bot_cannot_read_the_kernels_global_counters(tmp_path: Path) -> None:
    # /proc/sys/fs/file-nr and the like change with what other bots do: a covert channel.
    _, replay = play(tmp_path, hostile_bot(tmp_path, "counters"))
    assert note(replay) == "readable: none"
