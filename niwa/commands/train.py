"""``niwa train value GAME``: a learned position value for ``builtin:mcts?eval=learned``
and ``builtin:policy`` (niwa.bots.learned), from self-play of the built-in search.

The games played are kept in ``--dir`` as they finish (one file each), so a run that
was stopped continues where it stopped when the same command is given again; the
settings that decide the games are kept there too and must match.
"""

from __future__ import annotations

import argparse
import json
import resource
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from niwa import engine
from niwa.cli import UsageError

if TYPE_CHECKING:
    from niwa.bots import value_training

DESCRIPTION = """\
Trains a learned position value for builtin:mcts?eval=learned and builtin:policy:
self-play of the built-in search, every seat's position labelled by its final place,
and a small network (numpy) correcting the game's heuristic (docs/rl.md, "Learned
values for the built-in bots").

Self-play runs --jobs games at once, each in a process of its own (default: the
cores); the games, and so the weights, are the same for any --jobs. The games played
are kept in --dir as they finish (one file each): the same command continues a
stopped run where it stopped, and a larger --games adds games. The
settings that decide the games are kept there too and must match. Play the result with
NIWA_VALUE_DIR=DIR niwa play GAME --bot 'builtin:mcts?eval=learned' --bot builtin:mcts."""

#: niwa.bots.value_training.SEARCH_SHARE, spelled here so that the CLI starts without numpy
SEARCH_SHARE = 0.25

#: what a game's file holds: each row's final reward and the search's value
KEPT = "outcome+search"

#: what decides the games played (a resumed run must agree on all of it)
SETTINGS_FILE = "selfplay.json"


def register(sub: Any) -> None:
    train = sub.add_parser("train", help="train the built-in bots' learned values")
    train_sub = train.add_subparsers(dest="train_command", metavar="WHAT", required=True)
    p = train_sub.add_parser(
        "value",
        help="a position value from builtin:mcts self-play (for mcts?eval=learned, policy)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help="the game")
    p.add_argument("--games", type=int, default=1000, help="self-play games (default 1000)")
    p.add_argument("--iterations", type=int, default=50,
                   help="search iterations per self-play decision (default 50)")
    p.add_argument("--search-share", type=float, default=None, metavar="S",
                   help="share of a played position's label that is the search's value,"
                        " the rest its final place; 0 fits the final places alone"
                        f" (default {SEARCH_SHARE})")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and the fit")
    p.add_argument("--hidden", type=int, default=32, help="hidden units (default 32)")
    p.add_argument("--epochs", type=int, default=30, help="passes over the positions (default 30)")
    p.add_argument("--without", action="append", default=[], metavar="GROUP",
                   help="leave out a named part of the game's features (repeatable; the"
                        " game's feature encoder names its parts, and an unknown name is"
                        " refused with the list); the games kept are the same")
    p.add_argument("--dir", type=Path, help="where games and weights go (default value-GAME)")
    p.add_argument("--jobs", type=int, default=0, metavar="N",
                   help="self-play games at once, each in a process of its own (default:"
                        " the cores); any N plays the same games and writes the same weights")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from niwa.bots import learned, value_training
    from niwa.referee.pool import cores
    from niwa.series.games import run_jobs

    if args.game not in engine.games():
        raise UsageError(f"no game {args.game!r}; games: {', '.join(engine.games())}")
    for name in ("games", "iterations", "hidden", "epochs"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name} must be 1 or more, not {getattr(args, name)}")
    if args.jobs < 0:
        raise UsageError(f"--jobs must be 0 (the cores) or more, not {args.jobs}")
    share = SEARCH_SHARE if args.search_share is None else args.search_share
    if not 0.0 <= share <= 1.0:
        raise UsageError(f"--search-share is a share from 0 to 1, not {share}")
    args.search_share = share
    game = engine.load(args.game)
    if game.heuristic() is None:
        raise UsageError(f"{args.game} has no heuristic hook: the learned value reads it")
    folder: Path = args.dir or Path(f"value-{args.game}")
    played_dir = folder / "games"
    played_dir.mkdir(parents=True, exist_ok=True)
    try:
        encoder = learned.encoder_of(game, 2)
    except learned.NoLearnedValue as e:
        raise UsageError(str(e)) from None
    try:
        columns = value_training.columns_without(encoder.groups, args.without, encoder.size + 1)
    except ValueError as e:
        raise UsageError(f"--without: {e}") from None
    settings = {
        "game": args.game, "iterations": args.iterations, "seed": args.seed,
        "encoder": encoder.version, "players": value_training.player_counts(game),
        "kept": KEPT,
    }  # fmt: skip
    _check_settings(folder / SETTINGS_FILE, settings)

    counts = settings["players"]
    started = time.monotonic()
    cpu = time.process_time()
    children_cpu = _children_cpu()
    jobs = [
        _SelfPlay(args.game, counts[i % len(counts)], args.seed * 1_000_003 + i,
                  args.iterations, str(played_dir / f"game-{i:06d}.npz"))
        for i in range(args.games)
    ]  # fmt: skip
    missing = [job for job in jobs if not Path(job.path).is_file()]
    workers = min(args.jobs or cores(), len(missing))
    fresh = 0
    if workers > 1:  # the games first, in parallel; then all of them read below, kept
        kept_before = args.games - len(missing)

        def on_done(_path: str) -> bool:
            nonlocal fresh
            fresh += 1
            _progress(kept_before + fresh, args.games, fresh, kept_before, started)
            return True

        run_jobs(missing, _play_in_worker, workers, on_done)
    # each game's rows are labelled (and narrowed to --without's columns) as it is read,
    # and only those are kept: Miyabi's whole rows of 2,400 games are 15 GB
    positions: list[value_training.Positions] = []
    rows = endless = 0
    for i, job in enumerate(jobs):
        path = Path(job.path)
        if path.is_file():
            with np.load(path) as saved:
                game_played = value_training.Played.of(saved)
        else:
            game_played = _play_and_keep(job, game)
            fresh += 1
            _progress(i + 1, args.games, fresh, i + 1 - fresh, started)
        rows += len(game_played.x)
        if len(game_played.x):
            positions.append(game_played.labelled(share, columns))
        else:
            endless += 1
        del game_played
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"self-play: {args.games} games ({fresh} played now, {args.games - fresh} kept from "
          f"before), {rows:,} positions", file=sys.stderr)
    if endless:
        print(f"{endless} of them passed {value_training.MAX_DECISIONS:,} decisions without"
              " ending (the rules let the players go on for ever) and give no positions",
              file=sys.stderr)
    fitted = value_training.fit(positions, args.hidden, args.epochs, args.seed)
    network = value_training.widened(fitted.network, columns, encoder.size + 1)
    cpu_s = time.process_time() - cpu + _children_cpu() - children_cpu
    meta: dict[str, Any] = {
        "game": args.game, "encoder": encoder.version,
        "inputs": encoder.size + 1, "hidden": args.hidden,
        "trained": {
            "command": "niwa train value " + shlex.join(_command_args(args)),
            "seed": args.seed, "games": args.games, "iterations": args.iterations,
            "search_share": args.search_share,
            "players": counts, "epochs": args.epochs, "positions": fitted.positions,
            "endless_games": endless,
            "train_mse": round(fitted.train_mse, 6),
            "held_out_mse": round(fitted.held_out_mse, 6),
            "held_out_mse_heuristic": round(fitted.held_out_mse_heuristic, 6),
        },
    }  # fmt: skip
    if args.without:  # absent otherwise, so that files made before the option stay the same
        meta["trained"] = {**meta["trained"], "without": sorted(set(args.without))}
    out = folder / f"{args.game}.npz"
    digest = learned.save(
        out, network, meta, this_run={"cpu_seconds": round(cpu_s, 1), "games_played": fresh}
    )
    print(f"held-out squared error {fitted.held_out_mse:.4f} (the heuristic alone: "
          f"{fitted.held_out_mse_heuristic:.4f}); {cpu_s:.0f} CPU s this run")
    print(f"wrote {out} (sha256 {digest[:16]}…) and {out.with_suffix('.json')}")
    print(f"play it: NIWA_VALUE_DIR={folder} niwa play {args.game} "
          f"--bot builtin:mcts?eval=learned --bot builtin:mcts")
    return 0


@dataclass(frozen=True)
class _SelfPlay:
    """One self-play game to play and keep (a pool's job: plain values, picklable)."""

    game: str
    players: int
    seed: int
    iterations: int
    path: str


def _play_and_keep(job: _SelfPlay, game: engine.Game) -> value_training.Played:
    """Play ``job``'s game and keep it at its path, whole or not at all (an endless one:
    empty)."""
    from niwa.bots import value_training

    played = value_training.selfplay(game, job.players, job.seed, job.iterations)
    path = Path(job.path)
    tmp = path.with_suffix(".tmp.npz")
    with tmp.open("wb") as f:
        arrays: dict[str, Any] = played.arrays()
        np.savez(f, **arrays)
    tmp.replace(path)
    return played


def _play_in_worker(job: _SelfPlay) -> str:
    """:func:`_play_and_keep` in a pool's worker; the path goes back (the positions are
    read from the file with the others)."""
    _play_and_keep(job, engine.load(job.game))
    return job.path


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (a pool's workers, once reaped)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _command_args(args: argparse.Namespace) -> list[str]:
    return [args.game, "--games", str(args.games), "--iterations", str(args.iterations),
            "--search-share", str(args.search_share), "--seed", str(args.seed),
            "--hidden", str(args.hidden), "--epochs", str(args.epochs),
            *(a for name in sorted(set(args.without)) for a in ("--without", name))]


def _check_settings(path: Path, settings: dict[str, Any]) -> None:
    if path.is_file():
        kept = json.loads(path.read_text(encoding="utf-8"))
        if "kept" not in kept:
            raise UsageError(
                f"{path.parent} holds games of an earlier niwa, which kept the final places"
                " alone and not the search's values: train in another --dir"
            )
        for key, value in settings.items():
            if kept.get(key) != value:
                raise UsageError(
                    f"{path.parent} holds games played with {key} {json.dumps(kept.get(key))},"
                    f" not {json.dumps(value)}: give the same settings to continue, or"
                    " another --dir"
                )
    else:
        path.write_text(json.dumps(settings, sort_keys=True) + "\n", encoding="utf-8")


def _progress(done: int, total: int, fresh: int, kept: int, started: float) -> None:
    """A bar redrawn in place on a terminal; elsewhere (a log) a line every 5 %."""
    spent = time.monotonic() - started
    left = spent / fresh * (total - done) if fresh else 0.0
    text = f"{done}/{total} games ({kept} kept), {spent:.0f} s, about {left:.0f} s left"
    if sys.stderr.isatty():
        width = 30
        bar = "#" * (width * done // total)
        print(f"\rself-play [{bar:<{width}}] {text} ", end="", file=sys.stderr, flush=True)
    elif done == total or done * 20 // total != (done - 1) * 20 // total:
        print(f"self-play {text}", file=sys.stderr, flush=True)
