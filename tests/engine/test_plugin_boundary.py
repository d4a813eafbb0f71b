"""A game is one plugin: no module of niwa outside a game's own package
names that game, in code, strings or imports (docstrings and comments may, as prose)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from niwa import engine

ROOT = Path(engine.__file__).parent.parent  # the niwa package
RULESETS = ROOT / "engine" / "rulesets"

#: Places that may name a built-in game, and why.
ALLOWED = {
    # a benchmark or CLI default needs some game to run when none is given
    "commands/bench_ladder.py": "--game's default",
    "commands/bench_web.py": "--game's default",
    "commands/bench_referee.py": "--game's default and its fixed per-game workload",
    "commands/match.py": "the help text's example",
    "commands/play.py": "the help text's example",
    # synthetic replay lines of a storage benchmark, never played
    "commands/ladder_timing.py": "a made-up replay header",
}


def _names(text: str) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(map(re.escape, text)) + r")\b", re.IGNORECASE)


GAME = _names(engine.games())


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (prose, allowed)."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _python_mentions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            words.append(node.value)
        elif isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
        elif isinstance(node, ast.ImportFrom):
            words.append(node.module or "")
        elif isinstance(node, ast.alias):
            words.append(node.name)
        found += [f"{path}:{getattr(node, 'lineno', 0)}: {w!r}" for w in words if GAME.search(w)]
    return found


def _script_mentions(path: Path) -> list[str]:
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("//", 1)[0]
        if GAME.search(code):
            found.append(f"{path}:{number}: {line.strip()}")
    return found


def test_no_module_outside_a_games_package_names_a_game() -> None:
    found = []
    for path in sorted(ROOT.rglob("*")):
        if path.is_relative_to(RULESETS) or str(path.relative_to(ROOT)) in ALLOWED:
            continue
        if path.suffix == ".py":
            found += _python_mentions(path)
        elif path.suffix in {".js", ".html", ".css"}:
            found += _script_mentions(path)
    assert found == [], "game knowledge outside the game's package:\n" + "\n".join(found)


def test_the_scan_finds_a_game_named_in_code_but_not_in_prose(tmp_path: Path) -> None:
    name = engine.games()[0]
    source = tmp_path / "sample.py"
    source.write_text(
        f'"""Prose may say {name}."""\n'
        f"from niwa.engine.rulesets.{name} import rules  # a comment: {name}\n"
        f'DEFAULT = "{name}"\n'
    )
    assert len(_python_mentions(source)) == 2
