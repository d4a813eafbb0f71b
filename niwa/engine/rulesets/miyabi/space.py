"""Miyabi's fixed action space (the ``action_space`` plugin hook, for the RL
adapters): every action and chance outcome a state can list at one player count with
default options, derived from the rules data. tests/adapters checks it against random
playouts."""

from __future__ import annotations

from niwa.engine.api import Enumeration
from niwa.engine.rulesets.miyabi import rules
from niwa.engine.rulesets.miyabi.actions import MiyabiAction, MiyabiChance


def enumerate_actions(players: int) -> Enumeration:
    """The ``action_space`` plugin hook: every action, then every chance outcome."""
    kinds = rules.KIND_NAMES
    acts: list[MiyabiAction] = [{"type": "take", "shape": s, "object": o} for s, o in kinds]
    acts.append({"type": "pass"})
    acts += [
        {"type": "place", "row": r, "col": c, "rotation": t}
        for r in range(1, rules.SIZE + 1)
        for c in range(1, rules.SIZE + 1)
        for t in range(4)
    ]
    chance: list[MiyabiChance] = [{"type": "deal", "shape": s, "object": o} for s, o in kinds]
    return acts, chance
