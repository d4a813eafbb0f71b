"""Sakura's fixed action space (the ``action_space`` plugin hook, for the RL
adapters): every action and chance outcome a state can list at one player count with
default options, derived from the rules data. tests/adapters checks it against random
playouts."""

from __future__ import annotations

from typing import Literal

from niwa.engine.api import Enumeration
from niwa.engine.rulesets.sakura import rules
from niwa.engine.rulesets.sakura.actions import SakuraAction, SakuraChance


def enumerate_actions(players: int) -> Enumeration:
    """The ``action_space`` plugin hook: every action, then every chance outcome."""
    cards = sorted({n for deck in rules.decks().values() for n in deck})
    acts: list[SakuraAction] = [{"type": "play", "card": n} for n in cards]
    # the supplier plays two different cards at once: one to the court (sakura.md)
    acts += [{"type": "play", "card": a, "court_card": b} for a in cards for b in cards if a != b]
    movers: tuple[Literal["emperor", "painter"], ...] = ("emperor", "painter")
    directions: tuple[Literal["forward", "back"], ...] = ("forward", "back")
    acts += [{"type": t, "direction": d} for t in movers for d in directions]
    chance: list[SakuraChance] = [{"type": t, "card": n} for t in ("draw", "reveal") for n in cards]
    return acts, chance
