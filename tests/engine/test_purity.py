"""The engine is sans-IO: no trio, grpc, structlog, clocks or global random (DESIGN.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import engine

FORBIDDEN = {"trio", "grpc", "structlog", "time", "random", "asyncio", "socket", "threading"}
ENGINE_DIR = Path(engine.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            names.add("__import__")
    return names


def test_no_engine_module_imports_io_clock_or_global_random() -> None:
    offenders = {
        str(path.relative_to(ENGINE_DIR)): sorted(
            _imported_modules(path) & (FORBIDDEN | {"__import__"})
        )
        for path in sorted(ENGINE_DIR.rglob("*.py"))
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    planted = tmp_path / "bad.py"
    planted.write_text("import time\nfrom random import shuffle\nimport trio.lowlevel\n")
    assert _imported_modules(planted) & FORBIDDEN == {"time", "random", "trio"}


def test_loading_every_game_pulls_in_no_forbidden_module() -> None:
    # time, random, threading and socket are loaded by Python's own start-up modules
    watched = sorted(FORBIDDEN - {"time", "random", "threading", "socket"})
    code = (
        "import sys, engine\n"
        "for name in engine.games():\n"
        "    engine.load(name).new_game(engine.load(name).info.min_players)\n"
        f"print(sorted(m for m in {watched!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
