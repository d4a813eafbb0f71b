"""How a bot is launched: the pieces of the sandbox the hostile tests cannot see."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from niwa.referee.sandbox import BotLimits, Sandbox, address_space_mib, bwrap_args, launcher

BOX = Sandbox(bot_dir=Path("/srv/bots/abc"), uid=60001, seccomp_fd=7, info_fd=8)


def test_without_a_memory_cgroup_the_address_space_limit_comes_down() -> None:
    limits = BotLimits(memory_mib=1024, address_space_mib=16_384)
    assert address_space_mib(limits, has_cgroup=True) == 16_384
    assert address_space_mib(limits, has_cgroup=False) == 4096


def test_the_launcher_joins_every_cgroup_before_running_the_bot(tmp_path: Path) -> None:
    procs = [tmp_path / "memory/cgroup.procs", tmp_path / "pids/cgroup.procs"]
    argv = launcher(["python3", "bot.py"], {}, BotLimits(), procs, None)
    script = argv[2]
    assert script.index(f"echo $$ > {procs[0]}") < script.index('exec "$@"')
    assert f"echo $$ > {procs[1]}" in script
    assert argv[-2:] == ["python3", "bot.py"]


def test_the_sandbox_has_no_network_and_a_read_only_bot_directory() -> None:
    args = bwrap_args(BOX, BotLimits())
    assert "--unshare-net" in args and "--die-with-parent" in args and "--clearenv" in args
    i = args.index("/bot")
    assert args[i - 2] == "--ro-bind" and args[i - 1].endswith("/mnt/bot")
    assert args[args.index("--cap-drop") + 1] == "ALL"
    assert args[args.index("--seccomp") + 1] == "7" and args[args.index("--info-fd") + 1] == "8"


def test_the_file_size_limit_is_given_to_sh_in_512_byte_blocks() -> None:
    script = launcher(["bot"], {}, BotLimits(file_size_mib=64), [], None)[2]
    assert f"ulimit -f {64 * 1024 * 1024 // 512}" in script


@pytest.mark.skipif(os.geteuid() != 0, reason="the mount point is made in a root-only dir")
def test_as_root_the_tmpfs_is_capped_in_bytes_and_inodes_and_the_uid_is_the_lease() -> None:
    argv = launcher(["bot"], {}, BotLimits(tmp_mib=64, tmp_inodes=4096, tasks=128), [], BOX)
    mounts = argv[argv.index("niwa-mounts") - 1]
    assert "mount -t tmpfs -o size=64m,nr_inodes=4101," in mounts
    assert "lowerdir=.:" in mounts and "cd /srv/bots/abc" in mounts
    assert "--reuid=60001" in argv and "--nproc=128" in argv
