"""``niwa bench web``: server time of the web pages on a ladder at scale.

A store filled with ``--synthetic`` finished rated matches between ``--bots`` bots of
one game (:mod:`niwa.commands.ladder_synthetic`, with a rating-history row per seat as
the runner writes them) is opened read-only as ``niwa ladder web`` opens it, and each
page is requested through the ASGI app in this process (no network, no browser):
the first request after opening (it fits the leaderboard and counts every seat for
the mean places and failures) and then ``--rounds`` more, warm. Times are the process's
CPU time (``time.process_time``: the request's worker thread included) and wall time
per request; ``--repeat`` runs, each on a fresh app and store connection. The load
average is printed with every run.

``--viewer`` instead times the replay viewer's frames in Chromium
(:mod:`niwa.commands.bench_viewer`).

``--replay FILE`` (repeatable) instead times what a match page does the first time it
is opened: re-simulating the replay into the viewer's payload and encoding it (the
server keeps the last few payloads, so later opens skip it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from niwa import engine
from niwa.cli import UsageError
from niwa.commands import bench_viewer
from niwa.commands.bench import add_json_option, text_out, write_json
from niwa.commands.ladder_synthetic import fill
from niwa.ladder.store import Store
from niwa.referee import replay as replays
from niwa.web.app import BOARD_PAGE, create_app
from niwa.web.offline import embed_json
from niwa.web.replay_view import replay_payload
from niwa.web.server import open_read_only


def register(sub: Any) -> None:
    p = sub.add_parser(
        "web", help="server time of the web pages with many bots and matches",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    p.add_argument("--synthetic", type=int, default=100_000, metavar="N",
                   help="finished matches in the store (default 100000)")
    p.add_argument("--bots", type=int, default=1000, help="bots in the game (default 1000)")
    p.add_argument("--game", default="blossom", help="the game (default blossom)")
    p.add_argument("--rounds", type=int, default=20, help="warm requests per page (default 20)")
    p.add_argument("--repeat", type=int, default=3, help="runs on a fresh app (default 3)")
    p.add_argument("--replay", type=Path, action="append", metavar="FILE",
                   help="time the match page's payload of this replay instead (repeatable)")
    live = p.add_argument_group("live", "with --live: matches watched live (niwa.commands."
                                "bench_web_live)")  # fmt: skip
    live.add_argument("--live", action="store_true",
                      help="time a running match's live view instead: frame latency and "
                      "the web process's CPU while watchers follow it")
    live.add_argument("--watchers", type=int, action="append", metavar="N",
                      help="watchers of one match, after the 0-watcher baseline "
                      "(repeatable; default 1 and 100)")
    live.add_argument("--pace-ms", type=int, default=600,
                      help="one step written every this many ms (default 600)")
    live.add_argument("--live-steps", type=int, default=40,
                      help="steps written a match (default 40)")
    p.add_argument("--viewer", action="store_true",
                   help="time the replay viewer's frames in Chromium instead, per game: "
                        "each frame is show(i) and the style and layout it forces, GC "
                        "included, paint not (niwa/commands/bench_viewer.py)")
    p.add_argument("--steps", type=int, default=500,
                   help="--viewer: steps of each game's replay (default 500)")
    p.add_argument("--baseline", type=Path, metavar="CHECKOUT",
                   help="--viewer: also measure this niwa checkout's viewer")
    p.add_argument("--paced", action="store_true",
                   help="--viewer: one frame per animation frame, as a held key's steps "
                        "come, with the browser free to paint and collect between "
                        "frames (default: every frame back to back in one script)")
    add_json_option(p)
    p.set_defaults(run=run)


def pages(game: str, bots: int) -> dict[str, str]:
    middle = max(1, bots // 2)
    last = -(-bots // BOARD_PAGE)
    return {
        "leaderboard": f"/games/{game}",
        f"leaderboard page {last}": f"/games/{game}?page={last}",
        "match list": "/matches",
        "match list, game, 100": f"/matches?game={game}&limit=100",
        "match list, one bot": f"/matches?bot=bot{middle}",
        "bot page": f"/bots/{middle}",
    }


async def get(app: Any, target: str) -> int:
    """One GET through the ASGI app; its status."""
    path, _, query = target.partition("?")
    scope = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1", "method": "GET", "scheme": "http", "path": path,
        "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
        "headers": [(b"host", b"bench")], "client": ("127.0.0.1", 1), "server": ("bench", 80),
    }  # fmt: skip
    status = 0

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = int(message["status"])

    await app(scope, receive, send)
    return status


def timed(app: Any, target: str) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    status = anyio.run(get, app, target)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if status != 200:
        raise RuntimeError(f"{target}: status {status}")
    return cpu, wall


def make_store(folder: Path, game: str, matches: int, bots: int) -> Path:
    db = folder / "ladder.db"
    fill(db, game, matches, bots)
    store = Store.open(str(db))  # migrates to the current schema (fills the totals)
    try:
        store.db.execute(
            "INSERT INTO rating_history (match_id, bot_id, elo_before, elo_after) "
            "SELECT r.match_id, r.bot_id, 1500.0, 1500.0 + r.bot_id * 0.5 - r.place "
            "FROM results r"
        )
    finally:
        store.close()
    return db


def run_replays(args: argparse.Namespace) -> int:
    out = text_out(args)
    figures = []
    for path in args.replay:
        try:
            replay = replays.read(path)
        except replays.ReplayError as e:
            raise UsageError(str(e)) from None
        for _ in range(args.repeat):
            load = os.getloadavg()[0]
            cpu = time.process_time()
            text = embed_json(replay_payload(replays.read(path)))
            cpu = time.process_time() - cpu
            frames = len(replay.steps) + 1
            figures.append({"replay": str(path), "frames": frames, "bytes": len(text),
                            "cpu_ms": cpu * 1e3, "load_average": load})  # fmt: skip
            print(f"{path.name}: {replay.header.game}, {frames} frames, payload "
                  f"{len(text) / 1e3:.0f} kB, {cpu * 1e3:.0f} ms CPU (load average {load:.2f})",
                  file=out)  # fmt: skip
    write_json(args, {"target": "web", "payloads": figures})
    return 0


def run(args: argparse.Namespace) -> int:
    if args.live:
        from niwa.commands.bench_web_live import run_live

        args.watchers = args.watchers or [1, 100]
        if min(args.watchers) < 1 or args.pace_ms < 1 or args.live_steps < 1:
            raise UsageError("--watchers, --pace-ms and --live-steps must be at least 1")
        return run_live(args)
    if args.viewer:
        return bench_viewer.run(args)
    if args.replay:
        return run_replays(args)
    if args.game not in engine.games():
        raise UsageError(f"no game {args.game!r}; registered games: {', '.join(engine.games())}")
    if args.synthetic < 1 or args.bots < 2 or args.rounds < 1 or args.repeat < 1:
        raise UsageError("--synthetic, --rounds and --repeat must be at least 1, --bots 2")
    out = text_out(args)
    targets = pages(args.game, args.bots)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="niwa-bench-web-") as tmp:
        started = time.perf_counter()
        db = make_store(Path(tmp), args.game, args.synthetic, args.bots)
        print(f"store: {args.synthetic} matches, {args.bots} bots of {args.game} "
              f"({time.perf_counter() - started:.1f} s to fill)", file=out)  # fmt: skip
        for number in range(1, args.repeat + 1):
            load = os.getloadavg()
            store = open_read_only(str(db))
            try:
                app = create_app(store, [args.game])
                figures: dict[str, Any] = {}
                for name, target in targets.items():
                    first = timed(app, target)
                    warm = [timed(app, target) for _ in range(args.rounds)]
                    figures[name] = {
                        "target": target, "first_cpu_ms": first[0] * 1e3,
                        "first_wall_ms": first[1] * 1e3,
                        "warm_cpu_ms": [c * 1e3 for c, _ in warm],
                        "warm_wall_ms": [w * 1e3 for _, w in warm],
                    }  # fmt: skip
            finally:
                store.close()
            runs.append({"load_average": load, "pages": figures})
            print(f"\nrun {number}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
                  file=out)  # fmt: skip
            print(f"  {'page':<24} {'first cpu':>10} {'warm cpu median':>16} {'max':>8} "
                  f"{'warm wall median':>17}", file=out)  # fmt: skip
            for name, f in figures.items():
                print(f"  {name:<24} {f['first_cpu_ms']:>8.1f}ms "
                      f"{statistics.median(f['warm_cpu_ms']):>14.1f}ms "
                      f"{max(f['warm_cpu_ms']):>6.1f}ms "
                      f"{statistics.median(f['warm_wall_ms']):>15.1f}ms", file=out)  # fmt: skip
    write_json(args, {
        "target": "web", "matches": args.synthetic, "bots": args.bots, "game": args.game,
        "rounds": args.rounds, "runs": runs,
    })  # fmt: skip
    return 0
