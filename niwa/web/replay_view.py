"""A replay as the viewer's payload: every step's views, moves and legal lists, as JSON.

The replay holds only moves; the views are re-simulated here with the engine (the
referee's own :func:`niwa.referee.replay.states`, so a forged file raises ReplayError). What
each seat saw is its ``observe(seat)``; the spectator's is ``observe(None)``.

Shipping every view of every step whole would be megabytes for a long match (a Bonsai
or Miyabi observation is the full snapshot, a few KB, times seats + 1, times steps),
so a frame carries only what changed: a list of operations (:func:`diff`) that the
viewer applies to the frame before. Frame 0's seat views are operations on the
spectator's view, and a seat whose operations equal the spectator's ships ``null``.

Operations, with ``path`` a list of object keys and array indexes from the view's root:

* ``[path, value]``: set the value at ``path`` (an array index equal to the array's
  length appends);
* ``[path]``: delete the object key at ``path``;
* ``[path, "len", n]``: cut the array at ``path`` to ``n`` items.

Besides the views: each frame's ``score`` (the game's ``score_now`` hook on the
spectator's view), each decision's ``legal_text`` (the legal list in words), the
payload's ``breakdown`` (the end-of-game table, once the game is over) and
``glossary`` (words for the ids in the views).
"""

from __future__ import annotations

import json
from typing import Any

from niwa.engine import CHANCE, JSON, Game, State, canonical_json, describe_move, scoreboard
from niwa.referee import replay as replays
from niwa.referee.replay import Move, MoveThinking, Replay, ReplayError

FORMAT = "niwa-viewer/1"
#: The viewer refuses longer replays: the page would hold every frame (the reader
#: allows 100,000 steps, far more than a browser tab should).
MAX_STEPS = 20_000
#: A decision's legal list is cut to this many actions (the chosen one always kept).
LEGAL_SHOWN = 200

Path = list[str | int]
Op = list[Any]


def diff(old: JSON, new: JSON, path: Path | None = None, ops: list[Op] | None = None) -> list[Op]:
    """The operations (module docstring) that turn ``old`` into ``new``."""
    path = [] if path is None else path
    ops = [] if ops is None else ops
    if type(old) is dict and type(new) is dict:
        for key, value in new.items():
            if key not in old:
                ops.append([[*path, key], value])
            elif old[key] != value:
                diff(old[key], value, [*path, key], ops)
        ops.extend([[*path, key]] for key in old if key not in new)
    elif type(old) is list and type(new) is list:
        if len(new) < len(old):
            ops.append([path, "len", len(new)])
        for i, value in enumerate(new):
            if i >= len(old):
                ops.append([[*path, i], value])
            elif old[i] != value:
                diff(old[i], value, [*path, i], ops)
    elif old != new or type(old) is not type(new):
        ops.append([path, new])
    return ops


def apply(view: JSON, ops: list[Op]) -> JSON:
    """``view`` changed by ``ops`` (a new value; ``view`` is left as it was). What the
    viewer does in JavaScript, here for the tests and for checking a payload."""
    root: list[JSON] = [json.loads(json.dumps(view))]
    for op in ops:
        path = op[0]
        parent: Any = root
        key: str | int = 0
        for part in path:
            parent, key = parent[key], part
        if len(op) == 1:
            del parent[key]
        elif len(op) == 3:
            del parent[key][op[2]:]
        elif isinstance(parent, list) and key == len(parent):
            parent.append(op[1])
        else:
            parent[key] = op[1]
    return root[0]


def _views(state: State, players: int) -> list[dict[str, JSON]]:
    """The spectator's view, then each seat's."""
    return [state.observe(None), *(state.observe(seat) for seat in range(players))]


def _move(move: Move, before: State) -> dict[str, JSON]:
    """A move as the viewer lists it: described, timed, and for a decision the legal
    actions it was chosen among (canonical JSON, at most LEGAL_SHOWN)."""
    text = describe_move(before, move.seat, move.action)
    out: dict[str, JSON] = {"seat": move.seat, "text": text}
    if move.seat == CHANCE:
        return out
    chosen = canonical_json(move.action)
    actions = before.legal_actions(move.seat)
    legal = [canonical_json(a) for a in actions]
    index = found = legal.index(chosen) if chosen in legal else -1
    shown = legal[:LEGAL_SHOWN]
    words = [describe_move(before, move.seat, a) for a in actions[:LEGAL_SHOWN]]
    if index >= LEGAL_SHOWN:
        shown[-1] = chosen
        words[-1] = text
        index = LEGAL_SHOWN - 1
    out |= {
        "action": chosen,
        "status": move.status,
        "legal": shown,
        "legal_text": words,
        "legal_count": len(legal),
        "chosen": index,
        "wall_ms": move.wall_ms,
        "cpu_ms": move.cpu_ms,
        "clock_ms": move.clock_ms,
    }
    for key in ("note", "detail", "debug"):
        text = getattr(move, key)
        if text:
            out[key] = text
    if move.thinking is not None:  # private like debug: only where the replay kept it
        out["thinking"] = _thinking(move.thinking, found, len(legal))
    return out


def _thinking(thinking: MoveThinking, chosen: int, count: int) -> dict[str, JSON]:
    """A move's thinking as the viewer draws it: the shares of the legal actions
    shown (cut as the list is, the chosen one's last when it was moved there), the
    values, and the principal variation as canonical JSON."""
    shares = thinking.shares[:LEGAL_SHOWN] if len(thinking.shares) == count else []
    if shares and chosen >= LEGAL_SHOWN:
        shares[-1] = thinking.shares[chosen]
    return {
        "shares": shares,
        "values": list(thinking.values),
        "pv": [canonical_json(a) for a in thinking.pv],
    }


def _result(replay: Replay) -> dict[str, JSON] | None:
    """The result line without the bots' stderr (failure class and step only: a
    replay's viewer is public)."""
    r = replay.result
    if r is None:
        return None
    return {
        "scores": list(r.scores),
        "places": list(r.places),
        "seats": [
            {"seat": s.seat, "status": s.status, "reason": s.reason, "at": s.at,
             "failures": s.failures}
            for s in r.seats
        ],
    }


def _frame(
    state: State, ops: list[list[Op] | None] | None, texts: bool, score: JSON = None
) -> dict[str, JSON]:
    """A frame; with ``texts`` (a game without a renderer) also :meth:`State.render`'s
    picture for the spectator and each seat, which the generic renderer shows."""
    frame: dict[str, JSON] = {
        "to_move": list(state.to_move()),
        "over": state.is_over(),
        "ops": ops,
        "moves": [],
    }
    if score is not None:
        frame["score"] = score
    if texts:
        players = len(ops) - 1 if ops else 0
        frame["text"] = [state.render(None), *(state.render(s) for s in range(players))]
    return frame


def _breakdown(game: Game, final: State) -> JSON:
    """The end-of-game table of the game's hook (the final state is public), else the
    result's scores and places alone."""
    hook = game.score_breakdown()
    if hook is not None:
        return hook(final)
    return scoreboard.table([("score", list(final.result().scores))], final.result(),
                            "Tied seats share the place.")  # fmt: skip


#: Where the web front serves a game's renderer module (niwa.web.app).
RENDERER_URL = "/static/games/{game}.js"


def renderer_url(game: Game) -> str | None:
    """The URL of ``game``'s renderer module, or None: the viewer's generic one."""
    return RENDERER_URL.format(game=game.info.name) if game.renderer_asset() else None


def _seat_ops(spectator: list[Op], seats: list[list[Op]]) -> list[list[Op] | None]:
    """Each view's operations; a seat's that equal the spectator's as None."""
    return [spectator, *(None if ops == spectator else ops for ops in seats)]


def replay_payload(replay: Replay) -> dict[str, JSON]:
    """The viewer's payload for ``replay`` (module docstring); ReplayError if the
    replay is too long for the viewer or does not re-simulate."""
    h = replay.header
    if len(replay.steps) > MAX_STEPS:
        raise ReplayError(
            f"the replay has {len(replay.steps)} steps; the viewer shows at most {MAX_STEPS}"
        )
    game = replay.game()
    state = replays.new_game(replay, game)
    views = _views(state, h.players)
    first = views[0]
    start: list[list[Op] | None] = [[[[], first]], *(diff(first, v) for v in views[1:])]
    renderer = renderer_url(game)
    score_now = game.score_now()

    def score(spectator: JSON) -> JSON:
        return None if score_now is None else score_now(spectator)

    frames = [_frame(state, start, renderer is None, score(first))]
    breakdown: JSON = None
    for step, before, after in replays.states(replay, game):
        frames[-1]["moves"] = [_move(m, before) for m in step.moves]
        now = _views(after, h.players)
        ops = [diff(old, new) for old, new in zip(views, now, strict=True)]
        frames.append(_frame(after, _seat_ops(ops[0], ops[1:]), renderer is None, score(now[0])))
        views = now
        if after.is_over():
            breakdown = _breakdown(game, after)
    return {
        "format": FORMAT,
        "game": h.game,
        "renderer": renderer,
        "version": h.version,
        "players": h.players,
        "seed": str(h.seed),  # a string: JSON numbers in the browser keep 53 bits
        "match_id": h.match_id,
        "started": h.started,
        "time_control": dict(h.time_control),
        "clock": h.clock,
        "seats": [
            {"seat": s.seat, "bot": s.bot, "name": s.name, "version": s.version}
            for s in h.seats
        ],
        "result": _result(replay),
        "breakdown": breakdown,
        "glossary": dict(game.glossary() or {}),
        "frames": frames,
    }


def views_at(payload: dict[str, Any], index: int) -> list[JSON]:
    """Every view (spectator first) at frame ``index``, rebuilt from the operations:
    the viewer's job, for tests and tools."""
    frames = payload["frames"]
    start = frames[0]["ops"]
    spectator = apply(None, start[0])
    views = [spectator, *(apply(spectator, ops) for ops in start[1:])]
    for frame in frames[1 : index + 1]:
        ops = frame["ops"]
        views = [apply(v, ops[i] if ops[i] is not None else ops[0]) for i, v in enumerate(views)]
    return views


__all__ = ["FORMAT", "MAX_STEPS", "ReplayError", "apply", "diff", "replay_payload", "views_at"]
