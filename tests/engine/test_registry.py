"""The registry's two contract names stay functions, whatever game packages are loaded."""

from __future__ import annotations

import importlib
import subprocess
import sys
import types

from niwa import engine


def test_importing_every_game_package_leaves_engine_games_a_function() -> None:
    for name in engine.games():
        importlib.import_module(f"niwa.engine.rulesets.{name}")
    assert isinstance(engine.games, types.FunctionType)
    assert engine.games() == ["blossom", "bonsai", "miyabi", "sakura"]


def test_a_game_imported_before_the_engine_does_not_shadow_the_registry() -> None:
    # A fresh interpreter, so the game package is the first thing imported.
    code = (
        "import niwa.engine.rulesets.sakura, engine, types; "
        "assert isinstance(engine.games, types.FunctionType); print(engine.games())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['blossom', 'bonsai', 'miyabi', 'sakura']"


def test_load_returns_the_registered_game_object() -> None:
    blossom = importlib.import_module("niwa.engine.rulesets.blossom")
    assert engine.load("blossom") is blossom.GAME
