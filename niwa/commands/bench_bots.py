"""``niwa bench referee --bot-matches N``: how fast one bot answers, sandboxed.

The bot plays N matches in seat 0 against ``builtin:random`` (in the referee, so the
opponents cost next to nothing), held back between its turns as in a real match. Per
decision of the bot: the wall time from asking to having its answer (the replay's
``wall_ms``: gRPC, the sandbox's thaw, the bot's own work) and the CPU time its cgroup
used (``cpu_ms``). The starter kits' figures in docs/protocol.md come from here.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from niwa.referee import replay
from niwa.referee.clock import TimeControl
from niwa.referee.failures import MoveStatus
from niwa.referee.match import BotSpec, MatchSpec, play_match


@dataclass(frozen=True)
class Decisions:
    """Seat 0's answered decisions over all matches: wall and CPU milliseconds each."""

    wall_ms: list[float]
    cpu_ms: list[float]


def bot_decisions(bot: BotSpec, game: str, players: int, matches: int, seed: int) -> Decisions:
    wall: list[float] = []
    cpu: list[float] = []
    opponents = [BotSpec.parse("builtin:random")] * (players - 1)
    with tempfile.TemporaryDirectory() as tmp:
        for m in range(matches):
            path = Path(tmp) / f"{m}.jsonl"
            play_match(MatchSpec(
                game=game, bots=[bot, *opponents], seed=seed + m,
                time_control=TimeControl.parse("5s+60s"), in_process=True, sandbox=True,
                replay_path=path,
            ))  # fmt: skip
            for step in replay.read(path).steps:
                for mv in step.moves:
                    if step.kind != "decision" or mv.seat != 0 or mv.status != MoveStatus.OK:
                        continue
                    if mv.wall_ms is not None:
                        wall.append(mv.wall_ms)
                    if mv.cpu_ms is not None:  # None: no CPU accounting here
                        cpu.append(mv.cpu_ms)
    return Decisions(wall, cpu)
