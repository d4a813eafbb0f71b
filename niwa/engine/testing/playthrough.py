"""Golden playthroughs: one fixed-seed random match's full log, to check in and replay.

A log is a list of JSON lines. The first is a header (game, rules version, players,
options, seed); then one line per step: ``to_move``; every view that changed (the
spectator's under ``"-"``, each seat's under its number); under ``legal`` the legal
actions of every seat to move, or, when chance moves, the chance outcomes under
``chance`` and their probabilities under ``p`` (``[probability, how many outcomes in a
row have it]``); and under ``joint`` the move taken
(``"-1"`` is chance). The last line is the finished state's changed views and its
``result``. To stay small, views, legal actions and chance outcomes are written as
patches (:func:`diff`) of the last value logged for the same viewer, seat or chance
(an empty dict or list before the first); :func:`patch` rebuilds them. No ``to_json``
snapshot goes in: a snapshot format change is not a rules change.

:func:`replay` plays a stored log's moves again and reports the first line that comes
out different. Pure functions only: reading and writing the files is the caller's job.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from niwa.engine import CHANCE, Game, IllegalAction, State, canonical_json
from niwa.engine.testing.checks import Options, random_joint

Line = dict[str, Any]
Patch = list[list[Any]]


def diff(old: Any, new: Any, path: tuple[Any, ...] = ()) -> Patch:
    """``[["set", path, value] | ["del", path] | ["splice", path, at, removed, items]]``
    turning ``old`` into ``new``: dicts key by key, same-length lists item by item, other
    lists by the run that changed between their common start and end (``removed`` items
    from index ``at`` give way to ``items``), anything else replaced whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: Patch = [["del", [*path, k]] for k in old if k not in new]
        for k, v in new.items():
            ops += diff(old[k], v, (*path, k)) if k in old else [["set", [*path, k], v]]
        return ops
    if isinstance(old, list) and isinstance(new, list):
        if len(old) == len(new):
            pairs = enumerate(zip(old, new, strict=True))
            return [op for i, (a, b) in pairs for op in diff(a, b, (*path, i))]
        # lists that grow or shrink (a pile, a garden): the changed middle only
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end = 0
        while end < min(len(old), len(new)) - start and old[-1 - end] == new[-1 - end]:
            end += 1
        return [["splice", list(path), start, len(old) - start - end, new[start : len(new) - end]]]
    return [] if old == new and type(old) is type(new) else [["set", list(path), new]]


def patch(value: Any, ops: Patch) -> Any:
    """Apply :func:`diff`'s output to a copy of ``value``."""
    value = json.loads(json.dumps(value))
    for op in ops:
        path = op[1]
        if not path and op[0] == "set":
            value = json.loads(json.dumps(op[2]))
            continue
        if op[0] == "splice":
            target = value
            for key in path:
                target = target[key]
            at, removed, items = op[2], op[3], json.loads(json.dumps(op[4]))
            target[at : at + removed] = items
            continue
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        if op[0] == "del":
            del parent[path[-1]]
        else:
            parent[path[-1]] = json.loads(json.dumps(op[2]))
    return value


def _viewers(players: int) -> list[tuple[str, int | None]]:
    return [("-", None), *((str(s), s) for s in range(players))]


def _changes(seen: dict[str, Any], key: str, now: Any) -> Patch:
    """``now`` as a patch of the value last logged under ``key`` (a fresh list at first)."""
    ops = diff(seen.get(key, []), now)
    seen[key] = now
    return ops


def _runs(values: list[float]) -> list[list[Any]]:
    """``[[value, count], ...]``: equal probabilities (a shuffle, a die) in one pair."""
    runs: list[list[Any]] = []
    for v in values:
        if runs and runs[-1][0] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    return runs


def _step_line(
    step: int, state: State, seen: dict[str, Any], joint: Mapping[int, Any] | None
) -> Line:
    players = sum(1 for key in seen if key.isdigit())
    views: dict[str, Patch] = {}
    for key, seat in _viewers(players):
        view = state.observe(seat)
        ops = diff(seen[key], view)
        if ops:
            views[key] = ops
        seen[key] = view
    line: Line = {"step": step, "to_move": list(state.to_move()), "views": views}
    if state.to_move() == (CHANCE,):
        outcomes = state.chance_outcomes()
        line["chance"] = _changes(seen, "chance", [a for a, _ in outcomes])
        line["p"] = _runs([p for _, p in outcomes])
    else:
        line["legal"] = {
            str(s): _changes(seen, f"legal {s}", state.legal_actions(s)) for s in state.to_move()
        }
    if joint is not None:
        line["joint"] = {str(s): a for s, a in joint.items()}
    else:
        line["result"] = state.result().to_json()
    return line


def _header(game: Game, players: int, seed: int | None, options: Options) -> Line:
    return {
        "game": game.info.name,
        "version": game.info.version,
        "players": players,
        "options": dict(options or {}),
        "seed": seed,
    }


def record(game: Game, players: int, seed: int, options: Options = None) -> list[Line]:
    """The log of one random match (moves from ``random.Random(seed)``)."""
    rng = random.Random(seed)
    state = game.new_game(players, options or {})
    seen: dict[str, Any] = {key: {} for key, _ in _viewers(players)}
    lines = [_header(game, players, seed, options)]
    while not state.is_over():
        joint = random_joint(state, rng)
        lines.append(_step_line(len(lines) - 1, state, seen, joint))
        state.apply(joint)
        assert len(lines) < 20_000, f"{game.info.name} {players}p seed {seed}: no end"
    lines.append(_step_line(len(lines) - 1, state, seen, None))
    return lines


def shortest(game: Game, players: int, seeds: Sequence[int] = range(10)) -> list[Line]:
    """The shortest of the logs for ``seeds`` (first seed on a tie): small golden files."""
    return min((record(game, players, s) for s in seeds), key=len)


def to_text(lines: Sequence[Line]) -> str:
    """JSON lines, one step per line, keys sorted: a rules change diffs line by line."""
    return "".join(canonical_json(line) + "\n" for line in lines)


def from_text(text: str) -> list[Line]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def replay(game: Game, lines: Sequence[Line], regenerate: str) -> str | None:
    """Play the moves of a stored log again; None if every line comes out the same, else
    what differs first and what to do (``regenerate`` is the command that rewrites it)."""
    fix = (
        f"if the rules changed on purpose, bump {game.info.name}'s rules version"
        f" (info.version, now {game.info.version!r}) and regenerate with: {regenerate}"
    )
    head = dict(lines[0])
    players, options = int(head["players"]), head["options"]
    want_head = _header(game, players, head.get("seed"), options)
    if head != want_head:
        return f"header {head} != {want_head}; {fix}"
    state = game.new_game(players, options)
    seen: dict[str, Any] = {key: {} for key, _ in _viewers(players)}
    for want in lines[1:]:
        step = want["step"]
        joint = {int(s): a for s, a in want.get("joint", {}).items()} if "joint" in want else None
        got = _step_line(step, state, seen, joint)
        if got != want:
            keys = sorted(k for k in {*got, *want} if got.get(k) != want.get(k))
            detail = "; ".join(
                f"{k}: stored {_short(want.get(k))}, now {_short(got.get(k))}" for k in keys
            )
            return f"step {step} differs ({detail}); {fix}"
        if joint is None:
            break
        try:
            state.apply(joint)
        except IllegalAction as e:
            return f"step {step}: the stored move {joint} is now refused ({e}); {fix}"
    if not state.is_over() or lines[-1].get("joint") is not None:
        return f"the stored log ends at step {lines[-1]['step']} but the game does not; {fix}"
    return None


def _short(value: Any, limit: int = 200) -> str:
    text = canonical_json(value)
    return text if len(text) <= limit else text[:limit] + "..."
