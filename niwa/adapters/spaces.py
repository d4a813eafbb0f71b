"""Fixed, complete action spaces: every action (and chance outcome) a game can ever list,
each with an index, derived from the rules data.

Legal actions are JSON values that vary per state; RL frameworks want a fixed
``Discrete(n)``. A game gives its enumeration through its ``action_space`` plugin hook
(niwa.engine.api.Game): every action its states can list at a given player count with
default options (tests/adapters check it against random playouts). A game without one
gets the actions :data:`FALLBACK_PLAYOUTS` seeded random playouts reach, with a warning
that the space may miss rare actions (docs/rl.md). Actions are matched by canonical
JSON, as the engine matches them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import structlog

from niwa.engine.api import CHANCE, Action, Enumeration, Game, canonical_json
from niwa.engine.registry import load

log = structlog.get_logger(__name__)

#: Random playouts a game without an ``action_space`` hook is enumerated by.
FALLBACK_PLAYOUTS = 200

#: How many action objects a codec remembers by identity before it starts afresh.
SEEN_LIMIT = 50_000


@dataclass(frozen=True)
class Codec:
    """One list of JSON values and its index: value <-> position."""

    values: tuple[Action, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    # Games hand out the same action objects again and again (built once, never
    # mutated), so the index of an object already seen is looked up by identity
    # (``_ids``); the object is kept (``_kept``), so its id cannot be reused while cached.
    _ids: dict[int, int] = field(init=False, repr=False, compare=False)
    _kept: list[Action] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = {canonical_json(v): i for i, v in enumerate(self.values)}
        if len(index) != len(self.values):
            raise ValueError("an action space lists one action twice")
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_ids", {})
        object.__setattr__(self, "_kept", [])

    def __len__(self) -> int:
        return len(self.values)

    def index(self, value: Action) -> int:
        """The position of ``value``; KeyError names it if the space does not hold it."""
        i = self._ids.get(id(value))
        if i is not None:
            return i
        try:
            i = self._index[canonical_json(value)]
        except KeyError:
            raise KeyError(f"{canonical_json(value)} is not in this action space") from None
        if len(self._kept) >= SEEN_LIMIT:  # fresh objects every time (a game's choice)
            self._ids.clear()
            self._kept.clear()
        self._ids[id(value)] = i
        self._kept.append(value)
        return i

    def indices(self, values: list[Action]) -> tuple[int, ...]:
        """:meth:`index` of every value in ``values``, numbered in C when every object
        has been met before (the usual case)."""
        try:
            return tuple(map(self._ids.__getitem__, map(id, values)))
        except KeyError:  # an object not met yet
            return tuple(map(self.index, values))

    def value(self, i: int) -> Action:
        return self.values[i]


@dataclass(frozen=True)
class ActionSpace:
    """A game's decisions (``actions``) and chance outcomes (``chance``) at one player
    count."""

    actions: Codec
    chance: Codec


@cache
def _space(game: str, players: int) -> ActionSpace:
    return space_of(load(game), players)


def space_of(game: Game, players: int) -> ActionSpace:
    """``game``'s space at ``players`` seats: its hook's, else the sampled fallback's."""
    acts, chance = game.action_space(players) or _sampled(game, players)
    return ActionSpace(Codec(tuple(acts)), Codec(tuple(chance)))


def _sampled(game: Game, players: int) -> Enumeration:
    """The fallback: every action and chance outcome seen in seeded random playouts, in
    canonical-JSON order (so the indices are the same on every run)."""
    log.warning(
        "action_space.sampled", game=game.info.name, players=players,
        playouts=FALLBACK_PLAYOUTS,
        why="the game has no action_space hook: rare actions may be missing from the space",
    )
    rng = random.Random(0)
    acts: dict[str, Action] = {}
    chance: dict[str, Action] = {}
    for _ in range(FALLBACK_PLAYOUTS):
        state = game.new_game(players)
        while not state.is_over():
            movers = state.to_move()
            if movers == (CHANCE,):
                for outcome, _p in state.chance_outcomes():
                    chance.setdefault(canonical_json(outcome), outcome)
                state.apply({CHANCE: state.sample_chance(rng)})
                continue
            joint = {}
            for seat in movers:
                legal = state.legal_actions(seat)
                for a in legal:
                    acts.setdefault(canonical_json(a), a)
                joint[seat] = legal[rng.randrange(len(legal))]
            state.apply(joint)
    return [acts[k] for k in sorted(acts)], [chance[k] for k in sorted(chance)]


def action_space(game: str, players: int, options: Mapping[str, Any] | None = None) -> ActionSpace:
    """The action space of the registered game ``game`` at ``players`` seats; only
    default options are covered (an option can add actions no enumeration lists)."""
    if options:
        raise ValueError("the adapters cover default options only; pass no options")
    load(game).info.validate(players, None)
    return _space(game, players)


def enumerated(game: str) -> bool:
    """Whether ``game`` lists its own action space (the hook) rather than the sampled
    fallback's."""
    g = load(game)
    return g.action_space(g.info.min_players) is not None
