"""Why a bot died, in plain sight: real sandboxed bots that crash at import, through
``niwa play`` and ``niwa replay show`` on the replay it wrote; and the choice of the
stderr lines shown (:mod:`niwa.referee.stderr_tail`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.referee import replay
from niwa.referee.stderr_tail import REPLAY_TAIL_BYTES, cause_lines, for_replay
from tests.referee.sandboxing import bot_crashing_at_import, readable

JS_EXAMPLE = Path(__file__).parents[2] / "examples" / "js-bot"

#: What Node 20 prints for a missing package (the shape, with this test's paths).
NODE_MISSING = """\
node:internal/modules/cjs/loader:1143
  throw err;
  ^

Error: Cannot find module '@grpc/grpc-js'
Require stack:
- /bot/bot.js
    at Module._resolveFilename (node:internal/modules/cjs/loader:1140:15)
    at Module._load (node:internal/modules/cjs/loader:981:27)
    at Module.require (node:internal/modules/cjs/loader:1231:19)
    at require (node:internal/modules/helpers:177:18)
    at Object.<anonymous> (/bot/bot.js:11:14)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '/bot/bot.js' ]
}

Node.js v20.11.1""".splitlines()


def node_bot_without_its_packages(root: Path) -> Path:
    bot = root / "js-bot"
    bot.mkdir()
    for name in ("bot.js", "bot.toml", "package.json"):
        shutil.copy(JS_EXAMPLE / name, bot / name)
    shutil.copytree(JS_EXAMPLE / "proto", bot / "proto")  # but no node_modules
    readable(root)
    return bot


def play_and_show(
    bot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """Exit code and output of ``niwa play`` with the bot in seat 0, then the output
    of ``niwa replay show`` on the replay it wrote."""
    path = tmp_path / "m.jsonl"
    code = main(["play", "blossom", "--bot", str(bot), "--bot", "builtin:random",
                 "--seed", "1", "--quiet", "--replay", str(path)])
    played = capsys.readouterr().out
    assert main(["replay", "show", str(path)]) == 0
    return code, played, capsys.readouterr().out


def lines_under_out(output: str) -> list[str]:
    _, after = output.split("OUT (CRASHED at start-up: exited with code 1 before READY)", 1)
    return [ln for ln in after.splitlines()[1:] if ln.startswith("       | ")]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_python_bot_dying_at_import_shows_its_error_in_play_and_replay_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, played, shown = play_and_show(bot_crashing_at_import(tmp_path), tmp_path, capsys)
    assert code == 1  # a bot directory went out
    for output in (played, shown):
        under = lines_under_out(output)
        assert under[-1] == "       | ModuleNotFoundError: No module named 'numpyy'"
        assert "       |     import numpyy" in under


@pytest.mark.skipif(
    shutil.which("bwrap") is None or shutil.which("node") is None,
    reason="needs bubblewrap and Node.js",
)
def test_a_node_bot_without_its_packages_shows_the_missing_module_in_play_and_replay_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, played, shown = play_and_show(node_bot_without_its_packages(tmp_path), tmp_path, capsys)
    assert code == 1
    for output in (played, shown):
        under = lines_under_out(output)
        assert "       | Error: Cannot find module '@grpc/grpc-js'" in under
        assert not any("Node.js v" in ln for ln in under)  # the trailer is not the cause


def test_the_lines_shown_for_node_hold_its_error_not_its_trailer() -> None:
    shown = cause_lines(NODE_MISSING)
    assert shown == ["  throw err;", "  ^", "Error: Cannot find module '@grpc/grpc-js'",
                     "Require stack:", "- /bot/bot.js"]


def test_the_lines_shown_for_a_python_traceback_end_with_its_exception() -> None:
    tail = ["Traceback (most recent call last):", '  File "/bot/bot.py", line 2, in <module>',
            "    import numpyy", "ModuleNotFoundError: No module named 'numpyy'"]
    assert cause_lines(tail, 3) == tail[1:]


def test_without_an_error_line_the_last_lines_are_shown() -> None:
    tail = ["starting", "", "thinking", "giving up before READY", ""]
    assert cause_lines(tail, 2) == ["thinking", "giving up before READY"]


def test_the_replay_keeps_at_most_4_kib_of_stderr_per_seat() -> None:
    lines = [f"line {i} " + "x" * 390 for i in range(20)]  # 20 lines of 400: 8 KiB
    kept = for_replay(lines)
    assert sum(len(ln) + 1 for ln in kept) <= REPLAY_TAIL_BYTES
    assert kept == lines[-len(kept):] and len(kept) == 10


def test_a_single_stderr_line_over_4_kib_keeps_its_end() -> None:
    kept = for_replay(["a" * 10_000 + "the end"])
    assert len(kept) == 1 and kept[0].endswith("the end")
    assert len(kept[0]) < REPLAY_TAIL_BYTES


def test_a_replay_written_by_play_keeps_the_tail_within_its_bound(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap")
    bot = tmp_path / "noisy"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "noisy"\nversion = "1"\ngames = ["*"]\ncommand = ["python3", "bot.py"]\n'
    )
    (bot / "bot.py").write_text(
        "import sys\nfor i in range(100):\n    print('noise', i, 'x' * 300, file=sys.stderr)\n"
        "raise SystemExit('gave up: no strategy')\n"
    )
    readable(tmp_path)
    path = tmp_path / "m.jsonl"
    main(["play", "blossom", "--bot", str(bot), "--bot", "builtin:random", "--seed", "2",
          "--quiet", "--replay", str(path)])
    tail = replay.read(path).result.seats[0].stderr_tail  # type: ignore[union-attr]
    assert sum(len(ln.encode()) + 1 for ln in tail) <= REPLAY_TAIL_BYTES
    assert tail[-1] == "gave up: no strategy"
