"""Statuses and failure kinds are spelled once, in their enums: no other module of
niwa writes them as string literals (a literal that drifts from the enum would compare
unequal without any error)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from niwa.ladder.statuses import BotStatus, MatchKind, MatchState
from niwa.referee.failures import Failure, MoveStatus, SeatStatus

NIWA = Path(__file__).resolve().parents[1] / "niwa"
#: Where each set is defined (and so may be spelled).
HOMES = {NIWA / "ladder" / "statuses.py", NIWA / "referee" / "failures.py"}
#: The packages that speak of bots' and matches' statuses. Elsewhere the same words
#: mean other things (a Bonsai seat's "active" flag, a Sakura card "pending").
LADDER_PACKAGES = ("ladder", "web", "commands")

LADDER_WORDS = {str(v) for e in (BotStatus, MatchState, MatchKind) for v in e}
FAILURE_WORDS = {str(v) for v in (*Failure, *MoveStatus)}
#: How a seat ended: "ok" and "out" mean other things too (a health check's "ok"), so
#: they are looked for where a status is compared, passed or quoted in SQL.
SEAT_WORDS = {str(v) for v in SeatStatus}
QUOTED_IN_SQL = re.compile(r"'(" + "|".join(sorted(LADDER_WORDS | FAILURE_WORDS)) + r")'")
SEAT_IN_SQL = re.compile(r"status\s*(?:<>|!=|=)\s*'(" + "|".join(sorted(SEAT_WORDS)) + r")'")
QUOTED_IN_TEMPLATE = re.compile(
    r"""["'](""" + "|".join(sorted(LADDER_WORDS | FAILURE_WORDS)) + r""")["']"""
)


def _modules() -> Iterator[Path]:
    for path in sorted(NIWA.rglob("*.py")):
        if path not in HOMES and "proto" not in path.relative_to(NIWA).parts:
            yield path


def _watched(path: Path) -> set[str]:
    """The words ``path`` may not spell: failure kinds anywhere, the ladder's statuses
    in the ladder's packages."""
    top = path.relative_to(NIWA).parts[0]
    return FAILURE_WORDS | (LADDER_WORDS if top in LADDER_PACKAGES else set())


def _status_literals(tree: ast.AST) -> Iterator[ast.Constant]:
    """String constants compared with a ``status`` (``x.status == "out"``,
    ``row["status"] != "ok"``) or given as one (``status="out"``)."""
    def is_status(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr == "status"
        return isinstance(node, ast.Subscript) and getattr(node.slice, "value", None) == "status"

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(is_status(side) for side in sides):
                yield from (s for s in sides if isinstance(s, ast.Constant))
        elif (isinstance(node, ast.keyword) and node.arg == "status"
              and isinstance(node.value, ast.Constant)):
            yield node.value


def _literals(tree: ast.AST) -> Iterator[ast.Constant]:
    """String constants that are values, not docstrings, dict keys or subscripts (a
    JSON field named "active" is a field name, not a status)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skipped.add(id(body[0].value))
        if isinstance(node, ast.Dict):
            skipped.update(id(k) for k in node.keys if k is not None)
        if isinstance(node, ast.Subscript):
            skipped.add(id(node.slice))
    for node in ast.walk(tree):
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and id(node) not in skipped:
            yield node


def _where(path: Path, node: ast.Constant) -> str:
    return f"{path.relative_to(NIWA.parent)}:{node.lineno}: {node.value!r}"


def test_no_module_spells_a_status_or_failure_kind_outside_its_enum() -> None:
    strays = [
        _where(path, node)
        for path in _modules()
        for node in _literals(ast.parse(path.read_text(encoding="utf-8")))
        if node.value in _watched(path)
    ]
    assert strays == [], "use the enum (niwa.ladder.statuses, niwa.referee.failures)"


def test_no_module_compares_a_seat_status_with_a_literal() -> None:
    strays = [
        _where(path, node)
        for path in _modules()
        for node in _status_literals(ast.parse(path.read_text(encoding="utf-8")))
        if node.value in SEAT_WORDS
    ]
    assert strays == [], "use niwa.referee.failures.SeatStatus"


def test_no_sql_text_quotes_a_status_outside_its_enum() -> None:
    strays = [
        _where(path, node)
        for path in _modules()
        for node in _literals(ast.parse(path.read_text(encoding="utf-8")))
        if any(m[1] in _watched(path) for m in QUOTED_IN_SQL.finditer(node.value))
        or SEAT_IN_SQL.search(node.value)
    ]
    assert strays == [], "interpolate the enum's member into the SQL text"


def test_no_template_spells_a_status() -> None:
    strays = [
        f"{path.name}:{n}: {m[0]}"
        for path in sorted((NIWA / "web" / "templates").glob("*.html"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for m in QUOTED_IN_TEMPLATE.finditer(line)
    ]
    assert strays == [], "name it as BotStatus.X or MatchState.X (template globals)"


def test_the_walk_finds_a_stray_spelling() -> None:
    tree = ast.parse('"""Doc: queued."""\nif state == "queued":\n    pass\nx = {"active": 1}\n')
    assert [node.value for node in _literals(tree) if node.value in LADDER_WORDS] == ["queued"]


def test_the_values_are_the_ones_stored_and_sent() -> None:
    assert [str(s) for s in BotStatus] == [
        "pending", "active", "rejected", "retired", "superseded", "reserve", "suspended",
    ]  # fmt: skip
    assert [str(s) for s in MatchState] == ["queued", "running", "done", "failed"]
    assert [str(k) for k in MatchKind] == ["rated", "validation", "challenge", "forked"]
    assert [str(f) for f in Failure] == ["TIMEOUT", "ILLEGAL", "CRASHED", "DISCONNECTED"]
    assert [str(s) for s in SeatStatus] == ["ok", "out"]
    assert [str(s) for s in MoveStatus] == ["OK", "OUT"]


def test_the_seat_walk_finds_a_compared_and_a_passed_status() -> None:
    tree = ast.parse('if seat.status == "out": pass\nSeatOutcome(0, status="ok")\nx = "ok"\n')
    assert [node.value for node in _status_literals(tree)] == ["out", "ok"]
