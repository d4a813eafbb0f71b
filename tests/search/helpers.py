"""Ask a built-in bot one question about a scripted state, as the referee would."""

from __future__ import annotations

from typing import Any

from bots.sdk import GameStart, Turn, as_reply
from engine import State


def ask(bot: Any, game: str, state: State, seat: int, players: int = 2, seed: int = 7) -> Any:
    """The action ``bot`` plays for ``seat`` in ``state`` (after a fresh ``start``)."""
    bot.start(GameStart(game, f"{game}@1", seat, players, {}, 1000, 10_000, seed))
    legal = state.legal_actions(seat)
    reply = as_reply(bot.act(Turn(0, seat, state.observe(seat), legal, 11_000, seed)))
    assert reply.index is not None
    return legal[reply.index]
