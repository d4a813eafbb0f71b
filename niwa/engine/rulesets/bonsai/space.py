"""Bonsai's fixed action space (the ``action_space`` plugin hook, for the RL
adapters): every action and chance outcome a state can list at one player count with
default options, derived from the rules data. tests/adapters checks it against random
playouts."""

from __future__ import annotations

from itertools import combinations

from niwa.engine.api import Enumeration
from niwa.engine.rulesets.bonsai import rules
from niwa.engine.rulesets.bonsai.actions import BonsaiAction, BonsaiChance


def reach(players: int) -> int:
    """How far from the bud (in hex steps) a tile can ever lie: a tree is connected, so a
    tile d steps away needs d tiles placed, and a player never holds more tiles than the
    start gives plus, for every card of the deck, the most a slot gives with it plus the
    card's own (a Master's) tiles (bonsai.md §2-§3)."""
    start = max(len(t) for t in (*rules.STARTING_TILES, rules.SOLO_STARTING_TILES))
    per_slot = max(len(s.take) + (1 if s.choice else 0) for s in rules.SLOTS)
    deck = rules.deck_for(players)
    return start + sum(n * (per_slot + len(rules.CARD_KINDS[k].tiles)) for k, n in deck.items())


def cells(players: int) -> list[tuple[int, int]]:
    """Every doubled-width cell ``(u, v)`` (u + v even) within :func:`reach` of the
    bud, row by row from the bottom; cells of the pot in both its orientations (§6.7)
    are left out."""
    far = reach(players)
    pot = {rules.coords(k) for k in rules.POT & rules.POT_FLIPPED}
    bud = rules.coords(rules.BUD)
    found = []
    for v in range(-far, far + 1):
        for u in range(-2 * far, 2 * far + 1):
            if (u + v) % 2 or max(abs(v), (abs(u) + abs(v)) // 2) > far:
                continue
            cell = (u + bud[0], v + bud[1])
            if cell not in pot:
                found.append(cell)
    return found


def enumerate_actions(players: int) -> Enumeration:
    """The ``action_space`` plugin hook: every action, then every chance outcome."""
    tiles = rules.TILES
    where = cells(players)
    acts: list[BonsaiAction] = []
    for i, slot in enumerate(rules.SLOTS):
        if slot.choice:
            acts += [{"type": "meditate", "slot": i + 1, "tile": tiles[t]} for t in slot.choice]
        else:
            acts.append({"type": "meditate", "slot": i + 1})
    acts += [{"type": "cultivate"}, {"type": "end_placing"}, {"type": "flip_pot"}]
    acts += [{"type": "choose_tile", "tile": t} for t in tiles]
    acts += [{"type": "discard", "tile": t} for t in tiles]
    acts += [{"type": "claim", "goal": g} for g in rules.GOAL_ORDER]
    acts += [{"type": "renounce", "goal": g} for g in rules.GOAL_ORDER]
    acts += [{"type": "place", "tile": t, "cell": [u, v]} for u, v in where for t in tiles]
    acts += [{"type": "remove", "cell": [u, v]} for u, v in where]
    combos = combinations(rules.COLOURS, rules.GOAL_COLOURS_IN_PLAY)
    chance: list[BonsaiChance] = [{"type": "goals", "colours": list(c)} for c in combos]
    chance += [{"type": "reveal", "card": k} for k in rules.KIND_ORDER]
    return acts, chance
