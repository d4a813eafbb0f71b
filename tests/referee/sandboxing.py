"""Helpers for tests that run real bot processes: bot directories, leftover checks."""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
from pathlib import Path

from niwa.referee.clock import TimeControl
from niwa.referee.match import BotLimits, BotSpec, MatchOutcome, MatchSpec, play_match
from niwa.referee.replay import Replay, read
from tests.referee.toy import GAME

HOSTILE = Path(__file__).parent / "hostile" / "hostile.py"
#: A bot on grpc directly, for answers the SDK cannot send (see its docstring).
RAW = Path(__file__).parent / "hostile" / "raw.py"
#: A bot speaking HTTP/2 itself, flooding frames of one kind before its answers.
H2FLOOD = Path(__file__).parent / "hostile" / "h2flood.py"
#: Short clocks keep these matches quick; two failures put a seat out.
FAST = TimeControl.parse("300ms+1s")


def readable(*paths: Path) -> None:
    """The sandbox runs bots as an unprivileged uid: it must read them."""
    for path in paths:
        for p in (path, *path.rglob("*")):
            p.chmod(0o755 if p.is_dir() else 0o644)


def bot_crashing_at_import(root: Path) -> Path:
    """A Python bot directory ``root/crashy`` whose bot.py dies at its second line:
    ``ModuleNotFoundError: No module named 'numpyy'``."""
    bot = root / "crashy"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "crashy"\nversion = "1"\ngames = ["*"]\ncommand = ["python3", "bot.py"]\n'
    )
    (bot / "bot.py").write_text("import json\nimport numpyy\n")
    readable(root)
    return bot


def hostile_bot(root: Path, behaviour: str, *args: str, script: Path = HOSTILE) -> Path:
    """A bot directory running ``script`` (hostile.py) with ``behaviour``.
    World-readable, because the sandbox runs bots as an unprivileged uid."""
    d = root / f"bot-{behaviour}"
    d.mkdir(mode=0o755)
    shutil.copy(script, d / script.name)
    command = json.dumps(["python3", script.name, behaviour, *args])
    (d / "bot.toml").write_text(
        f'name = "hostile-{behaviour}"\nversion = "0"\ngames = ["*"]\ncommand = {command}\n'
    )
    for f in d.iterdir():
        f.chmod(0o644)
    d.chmod(0o755)
    return d


def run_against_randoms(
    bot: Path | str, tmp_path: Path, sandbox: bool = True, **kw: object
) -> tuple[MatchOutcome, Replay]:
    """The bot in seat 0 against two sandboxed random bots, on the toy game."""
    replay_path = tmp_path / "match.jsonl"
    spec = MatchSpec(
        game=GAME,
        bots=[BotSpec.parse(str(bot)), BotSpec.parse("builtin:random"),
              BotSpec.parse("builtin:random")],
        options={"rounds": 9},
        seed=11,
        time_control=kw.pop("time_control", FAST),  # type: ignore[arg-type]
        sandbox=sandbox,
        max_failures=2,
        limits=kw.pop("limits", BotLimits(memory_mib=256)),  # type: ignore[arg-type]
        replay_path=replay_path,
        **kw,  # type: ignore[arg-type]
    )
    outcome = play_match(spec)
    return outcome, read(replay_path)


def leftover_processes(match_id: str) -> list[int]:
    """Processes still carrying this match's NIWA_MATCH in their environment."""
    marker = f"NIWA_MATCH={match_id}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def cgroups_named(pattern: str, top: Path = Path("/sys/fs/cgroup")) -> list[Path]:
    """The cgroups under ``top`` whose name matches ``pattern`` (fnmatch). Other
    matches' groups come and go while this walks: one that vanishes is skipped (where a
    recursive glob raises FileNotFoundError; os.walk ignores a folder it cannot list)."""
    found = []
    for parent, names, _ in os.walk(top):
        found += [Path(parent, name) for name in names if fnmatch.fnmatchcase(name, pattern)]
    return found


def leftover_cgroups(match_id: str) -> list[Path]:
    return cgroups_named(f"niwa-{match_id}-*")


def moves_of(replay: Replay, seat: int) -> list[tuple[str, str, str]]:
    """(status, note, detail) of every move of ``seat``."""
    return [(m.status, m.note, m.detail) for s in replay.steps for m in s.moves if m.seat == seat]
