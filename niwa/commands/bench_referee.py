"""``niwa bench referee``: what the referee costs per decision, and how fast bots start.

* Per decision: matches of built-in random bots in process (no gRPC), as plain
  processes over gRPC, as sandboxed processes over gRPC (held back between their
  turns, the default), and sandboxed but pondering (never held back); the modes take
  turns match by match. The recorded ``wall_ms`` of a decision is the time from asking
  to having the answer (building the request included); the random bot itself needs
  microseconds, so the process figures are the protocol's overhead (serialisation,
  the Unix socket, the bot's gRPC server, trio wake-ups) and the sandbox's.
* Start-up: spawn to ``READY`` for each bot, sandboxed, and the CPU time the bot's
  cgroup used until it answered ``Start`` (sandbox set-up and interpreter start-up;
  unlike the wall time, it hardly depends on what else the machine is doing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

import engine
from bots.sdk import GameStart
from niwa.cli import UsageError
from niwa.commands.bench import add_json_option, text_out, write_json
from referee import replay
from referee.clock import TimeControl
from referee.logs import configure_cli_logging
from referee.match import BotSpec, Limits, MatchSpec, play_match
from referee.process_player import ProcessPlayer
from referee.sandbox import SandboxUnavailable, bwrap

ROOT = Path(__file__).resolve().parents[2]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "referee",
        help="per-decision overhead (sandboxed gRPC vs in process) and bot start-up time",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", default="blossom", help="game to play (default blossom)")
    p.add_argument("--players", type=int, default=3, help="bots per match (default 3)")
    p.add_argument("--matches", type=int, default=5, help="matches per mode (default 5)")
    p.add_argument("--startups", type=int, default=10, help="start-ups per bot (default 10)")
    p.add_argument("--seed", type=int, default=0, help="first match's seed (default 0)")
    p.add_argument("--bot", action="append", default=[], metavar="DIR_OR_BUILTIN",
                   help="bots to time start-up for (default: builtin:random and the examples)")
    add_json_option(p)
    p.set_defaults(run=run)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass(frozen=True)
class Mode:
    label: str
    in_process: bool
    sandbox: bool
    ponder: bool = False


MODES = (
    Mode("in process", True, False),
    Mode("gRPC, no sandbox", False, False),
    Mode("sandboxed gRPC", False, True),
    Mode("sandboxed, pondering", False, True, ponder=True),
)


def decision_times(
    game: str, players: int, matches: int, seed: int
) -> dict[str, list[float]]:
    """The wall_ms of every bot decision, per mode. The modes take turns match by match
    (same seeds), so a change in the machine's load falls on all of them alike."""
    walls: dict[str, list[float]] = {mode.label: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        for m in range(matches):
            for i, mode in enumerate(MODES):
                path = Path(tmp) / f"{m}-{i}.jsonl"
                spec = MatchSpec(
                    game=game,
                    bots=[BotSpec.parse("builtin:random")] * players,
                    seed=seed + m,
                    time_control=TimeControl.parse("5s+60s"),
                    in_process=mode.in_process,
                    sandbox=mode.sandbox,
                    ponder=mode.ponder,
                    replay_path=path,
                )
                play_match(spec)
                walls[mode.label] += [
                    mv.wall_ms
                    for step in replay.read(path).steps
                    for mv in step.moves
                    if step.kind == "decision" and mv.wall_ms is not None
                ]
    return walls


async def startup_times(
    bot: BotSpec, runs: int, game: str, players: int
) -> tuple[list[float], list[float]]:
    """Per start-up: (wall ms from spawn to READY, CPU ms the bot used until Start)."""
    times: list[float] = []
    cpu: list[float] = []
    info = engine.load(game).info
    for i in range(runs):
        async with trio.open_nursery() as nursery:
            player = ProcessPlayer(
                manifest=bot.manifest(),
                bot_dir=None if bot.is_builtin else Path(bot.target),
                seat=0,
                match_id=f"bench{i}",
                sandbox=True,
                limits=Limits(),
                startup_timeout_s=10.0,
                log_dir=None,
                nursery=nursery,
            )
            start = GameStart(info.name, info.version, 0, players, {}, 1000, 0, i)
            try:
                await player.start(start, 10.0)
                used = player.cpu_seconds()
            finally:
                await player.close()
            assert player.ready_after_s is not None
            times.append(player.ready_after_s * 1000)
            cpu.append((used or 0.0) * 1000)
    return times, cpu


def run(args: argparse.Namespace) -> int:
    configure_cli_logging()
    if args.matches < 1 or args.startups < 1:
        raise UsageError("--matches and --startups must be at least 1")
    if args.game not in engine.games():
        known = ", ".join(engine.games())
        raise UsageError(f"unknown game {args.game!r}; registered games: {known}")
    try:
        bwrap()
    except SandboxUnavailable as e:
        raise UsageError(str(e)) from None
    out = text_out(args)
    load_start = os.getloadavg()[0]
    doc: dict[str, Any] = {"benchmark": "referee", "game": args.game, "players": args.players,
                           "matches": args.matches, "cpus": os.cpu_count(),
                           "load_average_start": load_start, "decisions": {}, "startups": []}
    print(f"{args.game}, {args.players} builtin:random bots, {args.matches} matches per mode; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs", file=out)
    print(f"{'mode':<22} {'decisions':>9} {'p50 ms':>8} {'p99 ms':>8}", file=out)
    p50s = {}
    walls = decision_times(args.game, args.players, args.matches, args.seed)
    for label, times in walls.items():
        p50s[label] = statistics.median(times)
        p99 = percentile(times, 0.99)
        print(f"{label:<22} {len(times):>9} {p50s[label]:>8.3f} {p99:>8.3f}", file=out)
        doc["decisions"][label] = {"count": len(times), "p50_ms": p50s[label], "p99_ms": p99}
    overhead = p50s["sandboxed gRPC"] - p50s["in process"]
    print(f"gRPC + sandbox overhead per decision (p50 difference): {overhead:.3f} ms", file=out)
    held = p50s["sandboxed gRPC"] - p50s["sandboxed, pondering"]
    print(f"holding idle bots back (throttle, freeze) per decision (p50 difference): "
          f"{held:.3f} ms", file=out)
    doc["overhead_p50_ms"], doc["holding_back_p50_ms"] = overhead, held
    print(file=out)
    bots = args.bot or ["builtin:random", str(ROOT / "examples/python-bot"),
                        str(ROOT / "examples/js-bot")]
    print(f"{'bot (sandboxed)':<40} {'start-ups':>9} {'p50 ms':>8} {'max ms':>8} "
          f"{'CPU p50 ms':>10}", file=out)
    for text in bots:
        try:
            bot = BotSpec.parse(text)
        except ValueError as e:
            raise UsageError(str(e)) from None
        times, cpu = trio.run(startup_times, bot, args.startups, args.game, args.players)
        name = text if len(text) <= 40 else "..." + text[-37:]
        print(f"{name:<40} {len(times):>9} {statistics.median(times):>8.1f} {max(times):>8.1f} "
              f"{statistics.median(cpu):>10.1f}", file=out)
        out.flush()
        doc["startups"].append({"bot": text, "count": len(times),
                                "p50_ms": statistics.median(times), "max_ms": max(times),
                                "cpu_p50_ms": statistics.median(cpu)})
    doc["load_average_end"] = os.getloadavg()[0]
    print(f"load average at the end: {doc['load_average_end']:.1f}", file=out)
    write_json(args, doc)
    return 0
