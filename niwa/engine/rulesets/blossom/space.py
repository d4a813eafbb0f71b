"""Blossom's fixed action space (the ``action_space`` plugin hook, for the RL
adapters): every action and chance outcome a state can list at one player count with
default options, derived from the rules data. tests/adapters checks it against random
playouts."""

from __future__ import annotations

from niwa.engine.api import Enumeration
from niwa.engine.rulesets.blossom import rules
from niwa.engine.rulesets.blossom.actions import BlossomAction, BlossomChance


def enumerate_actions(players: int) -> Enumeration:
    """The ``action_space`` plugin hook: every action, then every chance outcome."""
    kinds = rules.KINDS
    most = max(rules.HAND_LIMIT, rules.YARD_LIMIT)
    sets = rules.sub_multisets(rules.FULL_DECK, 0, most)
    yard = [list(m) for m in sets if 1 <= len(m) <= rules.YARD_LIMIT]
    acts: list[BlossomAction] = [{"type": "feed_down", "cards": m} for m in yard]
    acts += [{"type": "feed_up", "card": k} for k in kinds]
    acts += [{"type": "flip", "cards": m} for m in yard]
    acts += [
        {"type": "arrange", "kind": k, "count": c}
        for k in kinds[1:]  # kinds[0] is the cherry, always arranged alone (blossom.md §6)
        for c in range(1, rules.YARD_LIMIT + 1)
    ]
    acts += [{"type": "arrange", "kind": kinds[0], "mode": m} for m in ("points", "draw")]
    acts += [{"type": "cherry_draw"}, {"type": "cherry_stop"}]
    acts += [{"type": "cherry_take", "kind": k} for k in kinds]
    acts += [{"type": "draw", "from": "deck"}]
    acts += [{"type": "draw", "from": "garden", "kind": k} for k in kinds]
    acts += [{"type": "mulligan", "cards": list(m)} for m in sets if len(m) <= rules.HAND_LIMIT]
    chance: list[BlossomChance] = [{"dealer": s} for s in range(players)]
    chance += [{"card": k} for k in kinds]
    return acts, chance
