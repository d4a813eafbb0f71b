"""The engine is sans-IO: no trio, grpc, structlog, clocks or global random (docs/architecture.md).

niwa/engine/testing/ (the conformance checks other games import) is held to the same rule
with two exceptions it needs and nothing else: it seeds its own ``random.Random``
instances to drive playouts (the global random state stays untouched: only the class
``Random`` may be used), and it imports pytest inside a function, so that importing
niwa.engine.testing never needs pytest."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from niwa import engine

FORBIDDEN = {"trio", "grpc", "structlog", "time", "random", "asyncio", "socket", "threading"}
ENGINE_DIR = Path(engine.__file__).parent
TESTING_DIR = ENGINE_DIR / "testing"


def _imported_modules(path: Path, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    nodes = ast.iter_child_nodes(tree) if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            names.add("__import__")
    return names


def test_no_engine_module_imports_io_clock_or_global_random() -> None:
    offenders = {}
    for path in sorted(ENGINE_DIR.rglob("*.py")):
        allowed = {"random"} if path.is_relative_to(TESTING_DIR) else set()
        bad = _imported_modules(path) & (FORBIDDEN | {"__import__"}) - allowed
        if bad:
            offenders[str(path.relative_to(ENGINE_DIR))] = sorted(bad)
    assert offenders == {}


def _global_random_uses(path: Path) -> set[str]:
    """Uses of the random module other than its class Random (the global generator)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr != "Random"
        ):
            found.add(f"random.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "random":
            found.update(f"random.{a.name}" for a in node.names if a.name != "Random")
    return found


def test_engine_testing_uses_only_seeded_random_instances() -> None:
    uses = {
        str(path.relative_to(ENGINE_DIR)): sorted(_global_random_uses(path))
        for path in sorted(TESTING_DIR.rglob("*.py"))
    }
    assert {k: v for k, v in uses.items() if v} == {}


def test_the_checker_sees_a_global_random_call(tmp_path: Path) -> None:
    planted = tmp_path / "bad.py"
    planted.write_text("import random\nrandom.Random(1)\nrandom.shuffle([])\n")
    assert _global_random_uses(planted) == {"random.shuffle"}


def test_no_engine_module_imports_pytest_at_import_time() -> None:
    offenders = [
        str(path.relative_to(ENGINE_DIR))
        for path in sorted(ENGINE_DIR.rglob("*.py"))
        if "pytest" in _imported_modules(path, top_level_only=True)
    ]
    assert offenders == []


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    planted = tmp_path / "bad.py"
    planted.write_text("import time\nfrom random import shuffle\nimport trio.lowlevel\n")
    assert _imported_modules(planted) & FORBIDDEN == {"time", "random", "trio"}


def test_loading_every_game_and_engine_testing_pulls_in_no_forbidden_module() -> None:
    # time, random, threading and socket are loaded by Python's own start-up modules
    watched = sorted(FORBIDDEN - {"time", "random", "threading", "socket"} | {"pytest"})
    code = (
        "import sys\nfrom niwa import engine\n"
        "import niwa.engine.testing\n"
        "for name in engine.games():\n"
        "    engine.load(name).new_game(engine.load(name).info.min_players)\n"
        f"print(sorted(m for m in {watched!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
