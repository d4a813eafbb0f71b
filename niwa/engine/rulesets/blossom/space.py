"""Blossom's fixed action space (the ``action_space`` plugin hook, for the RL
adapters): every action and chance outcome a state can list at one player count with
default options, derived from the rules data; and the positions in it of a state's legal
actions (the ``action_indexer`` hook). tests/adapters checks both against random
playouts."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from niwa.engine.api import ActionIndexer, Enumeration, canonical_json
from niwa.engine.rulesets.blossom import rules
from niwa.engine.rulesets.blossom.actions import BlossomAction, BlossomChance
from niwa.engine.rulesets.blossom.state import ACTION_PIECES, BlossomState, Pieces


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


def indexer(players: int) -> ActionIndexer:
    """The ``action_indexer`` plugin hook: in the Play phase (most decisions), the
    indices are put together from pieces numbered once, as the actions themselves are
    (state.Pieces); elsewhere (mulligan, cherry) None, and the caller looks them up."""
    pieces = _numbered_pieces(players)

    def legal_indices(state: Any, seat: int) -> list[int] | None:
        s: BlossomState = state
        return s.play_choices(pieces) if s.plays_an_action(seat) else None

    return legal_indices


@cache
def _numbered_pieces(players: int) -> Pieces[int]:
    acts, _chance = enumerate_actions(players)
    position = {canonical_json(a): i for i, a in enumerate(acts)}

    def numbered(actions: Iterable[BlossomAction]) -> tuple[int, ...]:
        return tuple(position[canonical_json(a)] for a in actions)

    @cache
    def feeds(hand: tuple[int, ...], room: int) -> tuple[int, ...]:
        return numbered(ACTION_PIECES.feeds(hand, room))

    @cache
    def flips(down: tuple[int, ...]) -> tuple[int, ...]:
        return numbered(ACTION_PIECES.flips(down))

    @cache
    def arranges(up: tuple[int, ...]) -> tuple[int, ...]:
        return numbered(ACTION_PIECES.arranges(up))

    (draw_deck,) = numbered([ACTION_PIECES.draw_deck])
    return Pieces(feeds, flips, arranges, draw_deck, numbered(ACTION_PIECES.draw_garden))
