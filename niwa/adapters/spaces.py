"""Fixed, complete action spaces: every action (and chance outcome) a game can ever list,
each with an index, derived from the rules data.

Legal actions are JSON values that vary per state; RL frameworks want a fixed
``Discrete(n)``. Each game has an enumeration here that covers every action its states
can list at a given player count with default options (tests/adapters check it against
random playouts); actions are matched by canonical JSON, as the engine matches them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from itertools import combinations
from typing import Any

from niwa.engine.api import Action, canonical_json
from niwa.engine.rulesets.blossom import rules as blossom
from niwa.engine.rulesets.bonsai import rules as bonsai
from niwa.engine.rulesets.miyabi import rules as miyabi
from niwa.engine.rulesets.sakura import rules as sakura

#: How many action objects a codec remembers by identity before it starts afresh.
SEEN_LIMIT = 50_000


@dataclass(frozen=True)
class Codec:
    """One list of JSON values and its index: value <-> position."""

    values: tuple[Action, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)
    # Games hand out the same action objects again and again (built once, never
    # mutated), so the index of an object already seen is looked up by identity; the
    # object is kept with it, so its id cannot be reused while cached.
    _seen: dict[int, tuple[Action, int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = {canonical_json(v): i for i, v in enumerate(self.values)}
        if len(index) != len(self.values):
            raise ValueError("an action space lists one action twice")
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_seen", {})

    def __len__(self) -> int:
        return len(self.values)

    def index(self, value: Action) -> int:
        """The position of ``value``; KeyError names it if the space does not hold it."""
        seen = self._seen.get(id(value))
        if seen is not None and seen[0] is value:
            return seen[1]
        try:
            i = self._index[canonical_json(value)]
        except KeyError:
            raise KeyError(f"{canonical_json(value)} is not in this action space") from None
        if len(self._seen) >= SEEN_LIMIT:  # fresh objects every time (a game's choice)
            self._seen.clear()
        self._seen[id(value)] = (value, i)
        return i

    def value(self, i: int) -> Action:
        return self.values[i]


@dataclass(frozen=True)
class ActionSpace:
    """A game's decisions (``actions``) and chance outcomes (``chance``) at one player
    count."""

    actions: Codec
    chance: Codec


Enumerate = Callable[[int], tuple[Iterable[Action], Iterable[Action]]]


def _blossom(players: int) -> tuple[list[Action], list[Action]]:
    kinds = blossom.KINDS
    most = max(blossom.HAND_LIMIT, blossom.YARD_LIMIT)
    sets = blossom.sub_multisets(blossom.FULL_DECK, 0, most)
    yard = [list(m) for m in sets if 1 <= len(m) <= blossom.YARD_LIMIT]
    acts: list[Action] = [{"type": "feed_down", "cards": m} for m in yard]
    acts += [{"type": "feed_up", "card": k} for k in kinds]
    acts += [{"type": "flip", "cards": m} for m in yard]
    acts += [
        {"type": "arrange", "kind": k, "count": c}
        for k in kinds[1:]  # kinds[0] is the cherry, always arranged alone (blossom.md §6)
        for c in range(1, blossom.YARD_LIMIT + 1)
    ]
    acts += [{"type": "arrange", "kind": kinds[0], "mode": m} for m in ("points", "draw")]
    acts += [{"type": "cherry_draw"}, {"type": "cherry_stop"}]
    acts += [{"type": "cherry_take", "kind": k} for k in kinds]
    acts += [{"type": "draw", "from": "deck"}]
    acts += [{"type": "draw", "from": "garden", "kind": k} for k in kinds]
    acts += [
        {"type": "mulligan", "cards": list(m)} for m in sets if len(m) <= blossom.HAND_LIMIT
    ]
    chance: list[Action] = [{"dealer": s} for s in range(players)]
    chance += [{"card": k} for k in kinds]
    return acts, chance


def _sakura(players: int) -> tuple[list[Action], list[Action]]:
    cards = sorted({n for deck in sakura.decks().values() for n in deck})
    acts: list[Action] = [{"type": "play", "card": n} for n in cards]
    # the supplier plays two different cards at once: one to the court (sakura.md)
    acts += [{"type": "play", "card": a, "court_card": b} for a in cards for b in cards if a != b]
    directions = ("forward", "back")
    acts += [{"type": t, "direction": d} for t in ("emperor", "painter") for d in directions]
    chance: list[Action] = [{"type": t, "card": n} for t in ("draw", "reveal") for n in cards]
    return acts, chance


def _miyabi(players: int) -> tuple[list[Action], list[Action]]:
    kinds = miyabi.KIND_NAMES
    acts: list[Action] = [{"type": "take", "shape": s, "object": o} for s, o in kinds]
    acts.append({"type": "pass"})
    acts += [
        {"type": "place", "row": r, "col": c, "rotation": t}
        for r in range(1, miyabi.SIZE + 1)
        for c in range(1, miyabi.SIZE + 1)
        for t in range(4)
    ]
    chance: list[Action] = [{"type": "deal", "shape": s, "object": o} for s, o in kinds]
    return acts, chance


def bonsai_reach(players: int) -> int:
    """How far from the bud (in hex steps) a tile can ever lie: a tree is connected, so a
    tile d steps away needs d tiles placed, and a player never holds more tiles than the
    start gives plus, for every card of the deck, the most a slot gives with it plus the
    card's own (a Master's) tiles (bonsai.md §2-§3)."""
    start = max(len(t) for t in (*bonsai.STARTING_TILES, bonsai.SOLO_STARTING_TILES))
    per_slot = max(len(s.take) + (1 if s.choice else 0) for s in bonsai.SLOTS)
    deck = bonsai.deck_for(players)
    return start + sum(n * (per_slot + len(bonsai.CARD_KINDS[k].tiles)) for k, n in deck.items())


def bonsai_cells(players: int) -> list[tuple[int, int]]:
    """Every doubled-width cell ``(u, v)`` (u + v even) within :func:`bonsai_reach` of the
    bud, row by row from the bottom; cells of the pot in both its orientations (§6.7)
    are left out."""
    reach = bonsai_reach(players)
    pot = {bonsai.coords(k) for k in bonsai.POT & bonsai.POT_FLIPPED}
    bud = bonsai.coords(bonsai.BUD)
    cells = []
    for v in range(-reach, reach + 1):
        for u in range(-2 * reach, 2 * reach + 1):
            if (u + v) % 2 or max(abs(v), (abs(u) + abs(v)) // 2) > reach:
                continue
            cell = (u + bud[0], v + bud[1])
            if cell not in pot:
                cells.append(cell)
    return cells


def _bonsai(players: int) -> tuple[list[Action], list[Action]]:
    tiles = bonsai.TILES
    cells = bonsai_cells(players)
    acts: list[Action] = []
    for i, slot in enumerate(bonsai.SLOTS):
        if slot.choice:
            acts += [{"type": "meditate", "slot": i + 1, "tile": tiles[t]} for t in slot.choice]
        else:
            acts.append({"type": "meditate", "slot": i + 1})
    acts += [{"type": "cultivate"}, {"type": "end_placing"}, {"type": "flip_pot"}]
    acts += [{"type": "choose_tile", "tile": t} for t in tiles]
    acts += [{"type": "discard", "tile": t} for t in tiles]
    acts += [{"type": t, "goal": g} for t in ("claim", "renounce") for g in bonsai.GOAL_ORDER]
    acts += [{"type": "place", "tile": t, "cell": [u, v]} for u, v in cells for t in tiles]
    acts += [{"type": "remove", "cell": [u, v]} for u, v in cells]
    combos = combinations(bonsai.COLOURS, bonsai.GOAL_COLOURS_IN_PLAY)
    chance: list[Action] = [{"type": "goals", "colours": list(c)} for c in combos]
    chance += [{"type": "reveal", "card": k} for k in bonsai.KIND_ORDER]
    return acts, chance


#: The games with an action space, by registered name.
ENUMERATIONS: dict[str, Enumerate] = {
    "blossom": _blossom,
    "sakura": _sakura,
    "miyabi": _miyabi,
    "bonsai": _bonsai,
}


@cache
def _space(game: str, players: int) -> ActionSpace:
    acts, chance = ENUMERATIONS[game](players)
    return ActionSpace(Codec(tuple(acts)), Codec(tuple(chance)))


def action_space(game: str, players: int, options: Mapping[str, Any] | None = None) -> ActionSpace:
    """The action space of ``game`` at ``players`` seats; only default options are
    covered (an option can add actions no enumeration here lists)."""
    if game not in ENUMERATIONS:
        known = ", ".join(sorted(ENUMERATIONS))
        raise ValueError(
            f"no action space for {game!r} (adapters cover {known}): add an enumeration "
            "to niwa.adapters.spaces.ENUMERATIONS"
        )
    if options:
        raise ValueError("the adapters cover default options only; pass no options")
    return _space(game, players)
