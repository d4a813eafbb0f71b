"""The referee's own CPU per move while a bot floods it with HTTP/2 frames (issue 24):
``python tests/referee/hostile/flood_bench.py [--referee-from DIR] [--count N]``.

For each kind of flood of :mod:`h2flood` (and ``none``, the same server honest), one
sandboxed toy match, the flooder in seat 0 against two random bots, is played in a
fresh process whose ``referee`` package is DIR's (this checkout's by default; give a
folder holding an older ``referee``, say from ``git archive BASE referee``, for the
figures before a change; everything else is this checkout's, as the sandbox binds).
Printed per kind: the referee process's CPU time over the match (its own, not its
children's: the bots run apart), the extra CPU per flooded call against ``none``, the
flooder's statuses, and the load average.

``--honest BOT...`` instead plays each honest bot on a real game against
builtin:random and prints the frames, events and socket reads per call of each seat.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[3]
KINDS = ["none", "data-empty", "data-tiny", "unknown", "ping", "settings", "informational",
         "window-update", "priority", "continuation"]  # fmt: skip

CHILD = """
import json, resource, sys, time
from pathlib import Path
from niwa.referee.clock import TimeControl
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import BotSpec, BotLimits, MatchSpec, play_match
from niwa.referee.replay import read
from tests.referee.toy import GAME

configure_cli_logging()
bot, replay_path = sys.argv[1], Path(sys.argv[2])
spec = MatchSpec(
    game=GAME, options={"rounds": 9}, seed=11, sandbox=True, max_failures=2,
    bots=[BotSpec.parse(bot), BotSpec.parse("builtin:random"), BotSpec.parse("builtin:random")],
    time_control=TimeControl.parse("2s+10s"), limits=BotLimits(memory_mib=256),
    replay_path=replay_path,
)
usage, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
outcome = play_match(spec)
after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
moves = [m.status for s in read(replay_path).steps for m in s.moves if m.seat == 0]
print(json.dumps({"cpu_s": cpu, "wall_s": wall, "statuses": moves,
                  "detail": outcome.seats[0].detail + " ".join(outcome.seats[0].stderr_tail[-2:])}))
"""


def bot_dir(root: Path, kind: str, count: int) -> Path:
    sys.path.insert(0, str(ROOT))
    from tests.referee.sandboxing import H2FLOOD, hostile_bot

    return hostile_bot(root, kind, str(count), script=H2FLOOD)


def measure(referee_from: Path, kind: str, count: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        bot = bot_dir(Path(tmp), kind, count)
        out = subprocess.run(
            [sys.executable, "-P", "-c", CHILD, str(bot), str(Path(tmp) / "m.jsonl")],
            capture_output=True, text=True, check=True, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": f"{referee_from}:{ROOT}"},
        )  # fmt: skip
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


def honest(bots: list[str], game: str) -> None:
    """Per call, the most frames, events and reads each bot's server took over a
    sandboxed match of ``game`` against builtin:random (this checkout's referee)."""
    sys.path.insert(0, str(ROOT))
    from niwa.bots.sdk import GameStart
    from niwa.referee import transport
    from niwa.referee.match import BotSpec, MatchSpec, play_match

    meters: dict[int, list[transport.Traffic]] = {}  # by seat
    seats: dict[int, int] = {}  # a client's seat, by id
    make, start = transport.BotClient._meter, transport.BotClient.start

    def kept(client: transport.BotClient) -> transport._Meter:
        meter = make(client)
        meters.setdefault(seats[id(client)], []).append(meter)
        return meter

    async def seated(
        client: transport.BotClient, game: GameStart, timeout_s: float
    ) -> tuple[str, str]:
        seats[id(client)] = game.seat
        return await start(client, game, timeout_s)

    setattr(transport.BotClient, "_meter", kept)  # noqa: B010 (a patch for this process)
    setattr(transport.BotClient, "start", seated)  # noqa: B010
    for bot in bots:
        meters.clear()
        with tempfile.TemporaryDirectory() as tmp:
            players = [BotSpec.parse(bot), BotSpec.parse("builtin:random")]
            spec = MatchSpec(game=game, bots=players, seed=5, sandbox=True,
                             replay_path=Path(tmp) / "m.jsonl")  # fmt: skip
            play_match(spec)
        for seat, name in enumerate((bot, "builtin:random")):
            calls = meters[seat]
            for what in ("frames", "events", "reads"):
                counts = sorted(getattr(m, what) for m in calls)
                print(f"{name:28} {what:7} per call: median {counts[len(counts) // 2]:3}  "
                      f"most {counts[-1]:3}  over {len(counts)} calls", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--referee-from", type=Path, default=ROOT)
    parser.add_argument("--count", type=int, default=220_000, help="frames per flooded call")
    parser.add_argument("kinds", nargs="*", default=KINDS)
    parser.add_argument("--honest", nargs="+", metavar="BOT",
                        help="instead, the traffic per call of these honest bots")
    parser.add_argument("--game", default="blossom", help="the game of --honest")
    args = parser.parse_args()
    if args.honest:
        honest(args.honest, args.game)
        return
    print(f"referee from {args.referee_from}, {args.count} frames per flooded Act")
    base = None
    for kind in ["none"] + [k for k in args.kinds if k != "none"]:
        r = measure(args.referee_from, kind, args.count)
        statuses: list[str] = r["statuses"]  # type: ignore[assignment]
        called = sum(1 for s in statuses if s != "OUT")
        cpu = float(r["cpu_s"])  # type: ignore[arg-type]
        base = cpu if base is None else base
        extra = (cpu - base) / called * 1000 if kind != "none" and called else 0.0
        shown = ",".join(f"{s}x{statuses.count(s)}" for s in sorted(set(statuses)))
        print(f"{kind:14} referee cpu {cpu:6.2f} s  wall {r['wall_s']:6.2f} s  "
              f"extra {extra:7.1f} ms per call  seat 0: {shown}  "
              f"load {os.getloadavg()[0]:.1f}  {r['detail']}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
