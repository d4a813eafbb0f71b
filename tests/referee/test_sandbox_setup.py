"""What the user sees when the sandbox cannot run, and when it is turned off."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.referee import sandbox
from tests.referee.sandboxing import hostile_bot

EXAMPLE = str(Path(__file__).parents[2] / "examples" / "python-bot")


def test_missing_bubblewrap_is_one_line_naming_the_package(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda name: None if name == "bwrap" else real_which(name)
    )
    argv = ["play", "blossom", "--bot", EXAMPLE, "--bot", "builtin:random", "--seed", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "install the 'bubblewrap' package" in err and "--no-sandbox" in err
    assert err.count("\n") == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="only a root referee runs bots as another uid")
def test_a_bot_directory_the_sandbox_uid_cannot_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = hostile_bot(tmp_path, "sleep")
    bot.chmod(0o700)
    argv = ["play", "blossom", "--bot", str(bot), "--bot", "builtin:random", "--seed", "1"]
    assert main(argv) == 2
    assert f"chmod -R o+rX {bot}" in capsys.readouterr().err


def test_no_sandbox_plays_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:random",
            "--seed", "1", "--quiet", "--no-sandbox"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "WITHOUT a sandbox" in captured.err
    assert "(NOT sandboxed)" in captured.out and "result:" in captured.out


def test_the_sandbox_shows_each_installed_jdks_configuration() -> None:
    jdks = sorted(p.name for p in Path("/etc").glob("java-*-openjdk"))
    if not jdks:
        pytest.skip("no JDK here (apt-get install openjdk-17-jdk-headless)")
    assert set(jdks) <= set(sandbox.etc_entries())
