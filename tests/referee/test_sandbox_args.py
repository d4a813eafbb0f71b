"""How a bot is launched: the pieces of the sandbox the hostile tests cannot see."""

from __future__ import annotations

from pathlib import Path

from referee.sandbox import Limits, address_space_mib, bwrap_args, launcher


def test_without_a_memory_cgroup_the_address_space_limit_comes_down() -> None:
    limits = Limits(memory_mib=1024, address_space_mib=16_384)
    assert address_space_mib(limits, has_cgroup=True) == 16_384
    assert address_space_mib(limits, has_cgroup=False) == 4096


def test_the_launcher_joins_every_cgroup_before_running_the_bot(tmp_path: Path) -> None:
    procs = [tmp_path / "memory/cgroup.procs", tmp_path / "pids/cgroup.procs"]
    argv = launcher(["python3", "bot.py"], {}, Limits(), procs, False, None, tmp_path)
    script = argv[2]
    assert script.index(f"echo $$ > {procs[0]}") < script.index('exec "$@"')
    assert f"echo $$ > {procs[1]}" in script
    assert argv[-2:] == ["python3", "bot.py"]


def test_the_sandbox_has_no_network_and_a_read_only_bot_directory(tmp_path: Path) -> None:
    args = bwrap_args(tmp_path / "bot", tmp_path / "run", Limits(), as_root=True)
    assert "--unshare-net" in args and "--die-with-parent" in args and "--clearenv" in args
    i = args.index(str(tmp_path / "bot"))
    assert args[i - 1 : i + 2] == ["--ro-bind", str(tmp_path / "bot"), "/bot"]
    assert args[args.index("--cap-drop") + 1] == "ALL"
