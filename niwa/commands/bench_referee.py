"""``niwa bench referee``: what the referee costs per decision, and how fast bots start.

* The headline, in process, for every game: whole matches of built-in random bots
  inside the referee, with a replay file, every seat's question also built into the
  request a gRPC bot gets (the observation, its JSON, the legal actions' JSON, the
  proto; ``builtin:random`` in process never reads its observation, every gRPC bot
  pays for it). The referee's cost per decision is the CPU time of the whole
  ``play_match`` call (trio, the players, the replay file, start-up and teardown
  amortised over the match) minus what the engine alone needs to play the same moves
  again and minus the bots' own CPU time inside ``act`` (recorded per move), divided by
  the decisions. Goal: < 50 µs. ``--rounds`` fresh processes
  (:mod:`niwa.commands.bench_referee_match`) measure it; with ``--baseline CHECKOUT``
  as many measure that checkout's engine, referee and bots, alternating, so the same
  load falls on both. The parts (requests, the rest of the loop, per match), the
  engine's and the bots' time and the wall time are printed below it.
* The floors, measured in the same run: a plain synchronous gRPC stub calling the
  same bot (a plain process) over a Unix socket in a hot loop, requests built in
  advance; and a raw Unix-socket echo between two processes.
* On the same sockets: ``--players`` sandboxed bots started as a match starts them,
  asked in turn as a match asks its seats, every request once through the referee's
  client and once through a plain synchronous gRPC stub connected to the same socket
  (which goes first alternates). Goals for sandboxed gRPC: the referee's client p50
  <= 1.2 x the stub's there; a decision's p50 <= 0.7 ms and p99 <= 1.2 ms (on an
  idle machine: the load average is printed). The decision's ratio to the hot-loop
  stub is printed too: it adds building the request and bots woken from sleep.
* Per decision over gRPC: matches of built-in random bots in process (no gRPC), as plain
  processes over gRPC, as sandboxed processes over gRPC (held back between their
  turns, the default), and sandboxed but pondering (never held back); the modes take
  turns match by match. The recorded ``wall_ms`` of a decision is the time from asking
  to having the answer (building the request included); the random bot itself needs
  microseconds, so the process figures are the protocol's overhead (serialisation,
  the Unix socket, the bot's gRPC server, trio wake-ups) and the sandbox's.
* Start-up: spawn to ``READY`` for each bot, sandboxed, and the CPU time the bot's
  cgroup used until it answered ``Start`` (sandbox set-up and interpreter start-up;
  unlike the wall time, it hardly depends on what else the machine is doing).
* With ``--bot-matches N``, each bot directory's own decisions over N sandboxed matches
  against builtin:random (:mod:`niwa.commands.bench_bots`); ``--bots-only`` leaves out
  everything above but the bots' figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import trio

from niwa import engine
from niwa.bots.sdk import GameStart
from niwa.cli import UsageError
from niwa.commands.bench import (
    add_json_option,
    baseline_packages,
    run_child,
    text_out,
    write_json,
)
from niwa.commands.bench_baselines import act_requests, bare_stub_ms, echo_ms, same_socket_ms
from niwa.commands.bench_bots import bot_decisions
from niwa.referee import replay
from niwa.referee.clock import TimeControl
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import BotLimits, BotSpec, MatchSpec, play_match
from niwa.referee.process_player import ProcessPlayer
from niwa.referee.sandbox import SandboxUnavailable, bwrap
from niwa.referee.text import printable

#: Seats per in-process match (the player counts the performance goals name).
IN_PROCESS_PLAYERS = {"blossom": 3, "bonsai": 2, "sakura": 4, "miyabi": 2}
#: The goals docs/benchmarks.md judges against.
GOAL_IN_PROCESS_US = 50.0
GOAL_STUB_RATIO = 1.2
GOAL_P50_MS = 0.7
GOAL_P99_MS = 1.2

ROOT = Path(__file__).resolve().parents[2]
#: A --baseline checkout's packages the in-process figure runs (this harness drives them).
BASELINE_PACKAGES = ["engine", "referee", "bots", "proto"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "referee",
        help="per-decision overhead (sandboxed gRPC vs in process) and bot start-up time",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", default="blossom", help="game to play (default blossom)")
    p.add_argument("--players", type=int, default=3, help="bots per match (default 3)")
    p.add_argument("--matches", type=int, default=5,
                   help="matches per mode, and per game in process (default 5)")
    p.add_argument("--rounds", type=int, default=3,
                   help="fresh processes per side for the in-process figure, each playing "
                        "--matches matches of every game (default 3)")
    p.add_argument("--baseline", metavar="CHECKOUT", type=Path,
                   help="also time the in-process figure with another checkout's engine, "
                        "referee and bots (`git worktree add DIR COMMIT`), alternating")
    p.add_argument("--calls", type=int, default=500,
                   help="timed calls of each baseline: bare stub, socket echo (default 500)")
    p.add_argument("--startups", type=int, default=10, help="start-ups per bot (default 10)")
    p.add_argument("--seed", type=int, default=0, help="first match's seed (default 0)")
    p.add_argument("--bot", action="append", default=[], metavar="DIR_OR_BUILTIN",
                   help="bots to time start-up for (default: builtin:random and the examples)")
    p.add_argument("--bot-matches", type=int, default=0, metavar="N",
                   help="also time each --bot's decisions over N sandboxed matches against "
                        "builtin:random (default 0: start-up only)")
    p.add_argument("--bots-only", action="store_true",
                   help="only the bots' figures: leave out the referee's overhead sections")
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


@dataclass
class Whole:
    """One side's in-process figures for one game, summed over its rounds: seconds
    (see :mod:`niwa.commands.bench_referee_match`) and decisions, and the headline of
    each round (µs per decision) for its range."""

    seconds: dict[str, float] = field(default_factory=dict)
    decisions: int = 0
    rounds: list[float] = field(default_factory=list)

    def add(self, row: dict[str, float]) -> None:
        for key, value in row.items():
            if key != "decisions":
                self.seconds[key] = self.seconds.get(key, 0.0) + value
        self.decisions += int(row["decisions"])
        self.rounds.append(_outside(row, "whole_cpu") / max(1, int(row["decisions"])) * 1e6)

    def us(self, seconds: float) -> float:
        return seconds / max(1, self.decisions) * 1e6

    @property
    def headline(self) -> float:
        """The whole match's CPU outside the engine and the bots, per decision."""
        return self.us(_outside(self.seconds, "whole_cpu"))

    def parts(self) -> dict[str, float]:
        """The headline in three parts (µs per decision), with the engine, the bots and
        the whole match's wall time (outside the engine, bots included) beside it."""
        s = self.seconds
        loop = _outside(s, "loop_cpu")
        return {"requests_us": self.us(s["requests_cpu"]),
                "loop_rest_us": self.us(loop - s["requests_cpu"]),
                "per_match_us": self.us(s["whole_cpu"] - s["loop_cpu"]),
                "engine_us": self.us(s["engine_cpu"]), "bots_us": self.us(s["bots_cpu"]),
                "wall_us": self.us(s["whole_wall"] - s["engine_wall"])}


def _outside(seconds: dict[str, float], key: str) -> float:
    return seconds[key] - seconds["engine_cpu"] - seconds["bots_cpu"]


def _measure_whole(first: str | None, matches: int, seed: int) -> dict[str, Any]:
    """One fresh process of :mod:`niwa.commands.bench_referee_match`; with ``first``,
    that folder's packages (a baseline's) are imported ahead of this checkout's."""
    cases = [f"{g}:{IN_PROCESS_PLAYERS.get(g, engine.load(g).info.min_players)}"
             for g in engine.games()]
    return run_child([str(matches), str(seed), *cases], first,
                     module="niwa.commands.bench_referee_match")


def whole_matches(
    args: argparse.Namespace, out: TextIO, doc: dict[str, Any]
) -> None:
    """The headline: whole in-process matches, every seat's request built, here and
    beside ``--baseline`` (fresh processes, alternating round by round)."""
    sides: dict[str, dict[str, Whole]] = {"this": {}}
    with tempfile.TemporaryDirectory(prefix="niwa-baseline-") as tmp:
        base = None
        if args.baseline is not None:
            base = baseline_packages(args.baseline, BASELINE_PACKAGES, Path(tmp))
            sides["base"] = {}
        loads = []
        for r in range(args.rounds):
            order = [("this", None), ("base", base)][: len(sides)]
            for side, first in order if r % 2 == 0 else order[::-1]:
                found = _measure_whole(first, args.matches, args.seed)
                loads.append(found["load_average"])
                for game, row in found["games"].items():
                    sides[side].setdefault(game, Whole()).add(row)
    base_label = "" if base is None else f" beside {args.baseline} (alternating)"
    print(f"\nIn process, whole matches with the observation built (every seat's request "
          f"built and serialised, as for a gRPC bot): µs of CPU per decision outside the "
          f"engine and the bots; {args.rounds} rounds of {args.matches} matches per game, "
          f"each in a fresh process{base_label}; load average {min(loads):.2f}-"
          f"{max(loads):.2f}", file=out)
    print(f"{'game':<10} {'players':>7} {'decisions':>9} {'base µs':>8} {'this µs':>8} "
          f"{'ratio':>6} {'rounds':>11}  goal < {GOAL_IN_PROCESS_US:.0f} µs (this)", file=out)
    doc["in_process"] = {}
    for game, now in sides["this"].items():
        was = sides.get("base", {}).get(game)
        base_us = f"{was.headline:>8.1f}" if was else f"{'-':>8}"
        ratio = f"{now.headline / was.headline:>6.2f}" if was else f"{'-':>6}"
        span = f"{min(now.rounds):.1f}-{max(now.rounds):.1f}"
        ok = now.headline < GOAL_IN_PROCESS_US
        print(f"{game:<10} {IN_PROCESS_PLAYERS.get(game, 0):>7} {now.decisions:>9} "
              f"{base_us} {now.headline:>8.1f} {ratio} {span:>11}  {verdict(ok)}", file=out)
        doc["in_process"][game] = {
            "players": IN_PROCESS_PLAYERS.get(game), "decisions": now.decisions,
            "referee_cpu_us": now.headline, "rounds_us": now.rounds, "meets_goal": ok,
            **now.parts(),
            **({"baseline_cpu_us": was.headline, "baseline": was.parts()} if was else {}),
        }
    print("its parts (this), µs per decision: requests = the observation, its JSON, the "
          "legal actions' JSON and the proto; loop = the rest from seats started to the "
          "result; per match = trio, players, replay file, start-up and teardown", file=out)
    print(f"{'game':<10} {'requests':>8} {'loop':>8} {'per match':>9} {'engine':>8} "
          f"{'bots':>8} {'wall':>8}", file=out)
    for game, row in doc["in_process"].items():
        print(f"{game:<10} {row['requests_us']:>8.1f} {row['loop_rest_us']:>8.1f} "
              f"{row['per_match_us']:>9.1f} {row['engine_us']:>8.1f} {row['bots_us']:>8.1f} "
              f"{row['wall_us']:>8.1f}", file=out)
    out.flush()


def decision_times(
    game: str, players: int, matches: int, seed: int
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """The wall_ms of every bot decision, per mode, and the match's steps' wall time
    per decision (end to end: engine, replay and all; bot start-up and ``Finish`` left
    out). The modes take turns match by match
    (same seeds), so a change in the machine's load falls on all of them alike."""
    walls: dict[str, list[float]] = {mode.label: [] for mode in MODES}
    loop_s = {mode.label: 0.0 for mode in MODES}
    decisions = {mode.label: 0 for mode in MODES}
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
                outcome = play_match(spec)
                loop_s[mode.label] += outcome.steps_s
                decisions[mode.label] += outcome.decisions
                walls[mode.label] += [
                    mv.wall_ms
                    for step in replay.read(path).steps
                    for mv in step.moves
                    if step.kind == "decision" and mv.wall_ms is not None
                ]
    per_decision = {k: loop_s[k] / max(1, decisions[k]) * 1000 for k in loop_s}
    return walls, per_decision


def verdict(ok: bool) -> str:
    return "meets the goal" if ok else "MISSES the goal"


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
                limits=BotLimits(),
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


def overhead_sections(args: argparse.Namespace, out: TextIO, doc: dict[str, Any]) -> None:
    """The referee's own cost in process, and per decision over gRPC against the floors."""
    whole_matches(args, out, doc)
    print(f"\n{args.game}, {args.players} builtin:random bots, {args.matches} matches per "
          "mode; per decision: the time from asking to the answer, and the steps' wall "
          "time (end to end: engine, replay; not start-up)", file=out)
    print(f"{'mode':<22} {'decisions':>9} {'p50 ms':>8} {'p99 ms':>8} {'loop ms':>8}", file=out)
    p50s = {}
    walls, loop_ms = decision_times(args.game, args.players, args.matches, args.seed)
    for label, times in walls.items():
        p50s[label] = statistics.median(times)
        p99 = percentile(times, 0.99)
        print(f"{label:<22} {len(times):>9} {p50s[label]:>8.3f} {p99:>8.3f} "
              f"{loop_ms[label]:>8.3f}", file=out)
        doc["decisions"][label] = {"count": len(times), "p50_ms": p50s[label], "p99_ms": p99,
                                   "end_to_end_ms": loop_ms[label]}
    requests = act_requests(args.game, args.players, 200, args.seed)
    size = int(statistics.median(len(r.SerializeToString()) for r in requests))
    doc["baselines"] = {}
    for label, times in (("bare gRPC stub", bare_stub_ms(requests, args.calls)),
                         (f"unix echo {size} B", echo_ms(size, args.calls))):
        p50s[label] = statistics.median(times)
        p99 = percentile(times, 0.99)
        print(f"{label:<22} {len(times):>9} {p50s[label]:>8.3f} {p99:>8.3f} {'':>8}", file=out)
        key = "bare stub" if label.startswith("bare") else "unix echo"
        doc["baselines"][key] = {"count": len(times), "p50_ms": p50s[label], "p99_ms": p99,
                                 "bytes": size}
    same = trio.run(same_socket_ms, args.game, args.players, args.calls, args.seed)
    for label, key, times in (("same socket: referee", "referee", same.referee),
                              ("same socket: stub", "stub", same.stub)):  # fmt: skip
        p50s[label] = statistics.median(times)
        p99 = percentile(times, 0.99)
        print(f"{label:<22} {len(times):>9} {p50s[label]:>8.3f} {p99:>8.3f} {'':>8}", file=out)
        doc["baselines"][f"same socket {key}"] = {
            "count": len(times), "p50_ms": p50s[label], "p99_ms": p99}
    cpu = same.cpu_us()
    doc["same_socket_cpu_us"] = cpu
    print(f"CPU per call on the same sockets, µs (calling process / bots' cgroups): "
          f"referee's client {cpu['referee_client']:.0f} / {cpu['referee_bots']:.0f}, "
          f"stub {cpu['stub_client']:.0f} / {cpu['stub_bots']:.0f}", file=out)
    sandboxed = doc["decisions"]["sandboxed gRPC"]
    ratio = sandboxed["p50_ms"] / doc["baselines"]["bare stub"]["p50_ms"]
    same_ratio = p50s["same socket: referee"] / p50s["same socket: stub"]
    goals = {
        "p50_vs_stub_same_socket": (same_ratio, same_ratio <= GOAL_STUB_RATIO),
        "p50_ms": (sandboxed["p50_ms"], sandboxed["p50_ms"] <= GOAL_P50_MS),
        "p99_ms": (sandboxed["p99_ms"], sandboxed["p99_ms"] <= GOAL_P99_MS),
    }
    print(f"referee's client p50 / stub p50 on the same sandboxed sockets: {same_ratio:.2f}x "
          f"(goal <= {GOAL_STUB_RATIO}x): {verdict(goals['p50_vs_stub_same_socket'][1])}",
          file=out)
    print(f"sandboxed gRPC decision p50 / bare stub p50 (a hot loop to one plain bot, "
          f"requests built in advance): {ratio:.2f}x", file=out)
    doc["decision_vs_bare_stub"] = ratio
    print(f"sandboxed gRPC p50 {sandboxed['p50_ms']:.3f} ms (goal <= {GOAL_P50_MS} ms): "
          f"{verdict(goals['p50_ms'][1])}; p99 {sandboxed['p99_ms']:.3f} ms "
          f"(goal <= {GOAL_P99_MS} ms): {verdict(goals['p99_ms'][1])}", file=out)
    doc["goals"] = {k: {"value": v, "met": ok} for k, (v, ok) in goals.items()}
    overhead = p50s["sandboxed gRPC"] - p50s["in process"]
    print(f"gRPC + sandbox overhead per decision (p50 difference): {overhead:.3f} ms", file=out)
    held = p50s["sandboxed gRPC"] - p50s["sandboxed, pondering"]
    print(f"holding idle bots back (throttle, freeze) per decision (p50 difference): "
          f"{held:.3f} ms", file=out)
    doc["overhead_p50_ms"], doc["holding_back_p50_ms"] = overhead, held


def decisions_section(
    args: argparse.Namespace, bots: list[str], out: TextIO, doc: dict[str, Any]
) -> None:
    """Each bot directory's decisions, sandboxed, against builtin:random."""
    print(f"\n{args.game}, each bot in seat 0 against {args.players - 1} builtin:random, "
          f"{args.bot_matches} matches; per decision of the bot: asking to answer (wall) "
          "and its own CPU time", file=out)
    print(f"{'bot (sandboxed)':<40} {'decisions':>9} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'CPU p50 ms':>10}", file=out)
    doc["bot_decisions"] = []
    for text in bots:
        found = bot_decisions(BotSpec.parse(text), args.game, args.players, args.bot_matches,
                              args.seed)
        if not found.wall_ms:
            raise UsageError(f"{printable(text)}: no decision of it was timed (did it go OUT?)")
        p50, p99 = statistics.median(found.wall_ms), percentile(found.wall_ms, 0.99)
        cpu = statistics.median(found.cpu_ms) if found.cpu_ms else None  # no CPU accounting
        name = text if len(text) <= 40 else "..." + text[-37:]
        shown = "-" if cpu is None else f"{cpu:.3f}"
        print(f"{name:<40} {len(found.wall_ms):>9} {p50:>8.3f} {p99:>8.3f} {shown:>10}",
              file=out)
        out.flush()
        doc["bot_decisions"].append({"bot": text, "count": len(found.wall_ms), "p50_ms": p50,
                                     "p99_ms": p99, "cpu_p50_ms": cpu})


def run(args: argparse.Namespace) -> int:
    configure_cli_logging()
    if min(args.matches, args.startups, args.calls, args.rounds) < 1 or args.bot_matches < 0:
        raise UsageError("--matches, --rounds, --startups and --calls must be at least 1, "
                         "--bot-matches at least 0")
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
    print(f"load average {load_start:.2f} on {os.cpu_count()} CPUs (the goals are for an "
          "idle machine)", file=out)
    if not args.bots_only:
        overhead_sections(args, out, doc)
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
    if args.bot_matches:
        decisions_section(args, [b for b in bots if not b.startswith("builtin:")], out, doc)
    doc["load_average_end"] = os.getloadavg()[0]
    print(f"load average at the end: {doc['load_average_end']:.2f}", file=out)
    write_json(args, doc)
    return 0
