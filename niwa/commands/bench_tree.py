"""Timing a checkout's own games: ``niwa bench engine --baseline TREE``.

A baseline is measured in a fresh process that runs this file by path (so neither this
checkout's ``niwa`` nor its installed entry points are consulted): ``TREE`` goes first on
``sys.path``, the games are the ones ``TREE/pyproject.toml`` registers, imported from
``TREE``, and every module they come from is checked to lie inside ``TREE``. A tree whose
games cannot be loaded that way is refused with the cause; it is never measured with
this checkout's rules in its place. Standard library only, for the same reason
(but ``niwa.errors``).

Child protocol: ``python bench_tree.py TREE REQUEST_JSON`` prints one JSON document;
exit status :data:`REFUSED` with the reason on stderr when ``TREE`` cannot be loaded.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from niwa.errors import CommandError

#: The exit status of a child that refused its tree.
REFUSED: Final = 3
#: The entry-point group games register under.
GROUP: Final = "niwa.games"
#: The standalone harness modules, next to this file, that a child may run.
HARNESS: Final = {
    "playouts": "bench_engine_playouts.py",
    "snapshots": "bench_engine_snapshots.py",
}
#: What ``--clock`` may count seconds with (as bench_engine_playouts.CLOCKS).
CLOCKS: Final = {"wall": time.perf_counter, "cpu": time.process_time}
FIX: Final = (
    "give a checkout of niwa whose pyproject.toml registers its games under "
    f'[project.entry-points."{GROUP}"], e.g. `git worktree add /tmp/base COMMIT`'
)


class TreeError(CommandError):
    """A tree whose own games cannot be loaded; the message names the cause."""


def registered_games(tree: Path) -> dict[str, str]:
    """The games ``tree``'s pyproject.toml registers: name -> ``module:attribute``."""
    path = tree / "pyproject.toml"
    try:
        project = tomllib.loads(path.read_text("utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise TreeError(f"{path} cannot be read ({e})") from e
    games = project.get("entry-points", {}).get(GROUP)
    if not isinstance(games, dict) or not games:
        raise TreeError(f"{path} registers no games (no [project.entry-points.\"{GROUP}\"])")
    return {str(k): str(v) for k, v in games.items()}


def _inside(module: ModuleType, tree: Path) -> None:
    where = getattr(module, "__file__", None)
    if where is None or not Path(where).resolve().is_relative_to(tree):
        raise TreeError(f"module {module.__name__} was found at {where}, outside the tree")


def load_game(tree: Path, name: str) -> Any:
    """``tree``'s game ``name``, imported from ``tree`` (which must be first on
    ``sys.path``); TreeError if it is not registered there or comes from elsewhere."""
    games = registered_games(tree)
    if name not in games:
        raise TreeError(f"{tree}/pyproject.toml registers no game {name!r} "
                        f"(it registers {', '.join(sorted(games))})")
    module_name, _, attribute = games[name].partition(":")
    try:
        module = importlib.import_module(module_name.strip())
        obj = getattr(module, attribute.strip())
    except (ImportError, AttributeError) as e:
        raise TreeError(f"its entry point {name} = {games[name]!r} does not load from "
                        f"the tree ({type(e).__name__}: {e})") from e
    _inside(module, tree)
    return obj() if isinstance(obj, type) else obj


def _harness(kind: str) -> ModuleType:
    """One of :data:`HARNESS`, loaded by path under a private name (the tree's own
    ``niwa``, if any, must not stand in for this checkout's harness)."""
    return _load_by_path(HARNESS[kind], f"_niwa_bench_{kind}")


def _load_by_path(file: str, name: str) -> ModuleType:
    """The module in ``file`` next to this one, loaded under ``name``."""
    path = Path(__file__).with_name(file)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _child(tree: Path, request: dict[str, Any]) -> dict[str, Any]:
    """In the child: ``tree`` first on the path, its engine and game, then the run."""
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [str(tree), *(p for p in sys.path if p not in ("", here))]
    # This checkout's niwa was imported for niwa.errors: forget it, so that every
    # ``niwa`` module from here on is the tree's own.
    for loaded in [m for m in sys.modules if m == "niwa" or m.startswith("niwa.")]:
        del sys.modules[loaded]
    new_layout = (tree / "niwa" / "engine" / "__init__.py").is_file()
    try:
        engine = importlib.import_module("niwa.engine" if new_layout else "engine")
    except ImportError as e:
        raise TreeError(f"it has no importable engine package ({e})") from e
    if not new_layout:  # from before niwa was one package: the harness says niwa.engine
        _load_by_path("bench_alias.py", "_niwa_bench_alias").install({"engine": "engine"})
    _inside(engine, tree)
    name = request["game"]
    game = load_game(tree, name)
    # the harness names games through engine.load: here that is this tree's game
    engine.__dict__["load"] = lambda asked: game if asked == name else load_game(tree, asked)
    harness = _harness(request["kind"])
    players, seed, clock = request["players"], request["seed"], request["clock"]
    found = {"engine_file": engine.__file__,
             "game_file": sys.modules[type(game).__module__].__file__}
    if request["kind"] == "snapshots":
        rows = harness.measure(name, players, seed, request["calls"], CLOCKS[clock])
        return {"rows": rows, **found}
    if request["warmup"] > 0:
        harness.measure(game, players, request["warmup"], seed - 1, clock)
    rate = harness.measure(game, players, request["seconds"], seed, clock)
    return {"rows": [{"games_per_s": rate.games, "player_decisions_per_s": rate.decisions,
                      "chance_applies_per_s": rate.chance}], **found}


def run(tree: Path, request: dict[str, Any], what: str = "--baseline") -> dict[str, Any]:
    """Run ``request`` on ``tree``'s own games in a fresh process; its JSON document.
    A tree that cannot be loaded raises TreeError naming the cause and the fix."""
    tree = tree.resolve()
    if not any((tree / p / "__init__.py").is_file() for p in ("niwa/engine", "engine")):
        raise TreeError(f"{what} {tree} has no niwa/engine/ package; {FIX}")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "NIWA_BENCH_BASELINE")}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="niwa-bench-tree-") as empty:
        done = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), str(tree), json.dumps(request)],
            env=env, capture_output=True, text=True, check=False, cwd=empty,
        )
    if done.returncode == REFUSED:
        raise TreeError(f"{what} {tree} is refused: {done.stderr.strip()}; a baseline must "
                        f"run its own games, never this checkout's; {FIX}")
    if done.returncode != 0:
        raise TreeError(f"{what} {tree}: the measuring process failed ({done.returncode}): "
                        f"{done.stderr.strip().splitlines()[-1:]}")
    document: dict[str, Any] = json.loads(done.stdout)
    return document


if __name__ == "__main__":
    try:
        print(json.dumps(_child(Path(sys.argv[1]), json.loads(sys.argv[2]))))
    except TreeError as refusal:
        print(refusal, file=sys.stderr)
        sys.exit(REFUSED)
