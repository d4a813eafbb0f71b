"""Build scripted Sakura positions and play rounds on them.

``table(players, emperor=11, painters=[8, 7, 5], hands=[[5], [20], [22]])`` is the start
of a round (every seat choosing) with that garden; hands are topped up to five with the
lowest free cards and every other card is in the deck, unless ``deck`` is given (then the
rest is in the discard pile). ``cards`` replaces card definitions, for the rulebook's
pictured cards whose order numbers are not known.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine import CHANCE
from niwa.engine.rulesets.sakura import GAME
from niwa.engine.rulesets.sakura.codec import decode
from niwa.engine.rulesets.sakura.rules import Card, decks
from niwa.engine.rulesets.sakura.state import SakuraState

DEFAULT_DECK = decks()["default"]


def card_with(garden: str, painter: str) -> int:
    """The lowest order number in the default deck with these two actions."""
    return min(n for n, c in DEFAULT_DECK.items() if (c.garden, c.painter) == (garden, painter))


def table(
    players: int = 3,
    *,
    emperor: int | None = None,
    painters: list[int] | None = None,
    tokens: list[int] | None = None,
    scored: list[bool] | None = None,
    hands: list[list[int]] | None = None,
    deck: list[int] | None = None,
    options: Mapping[str, Any] | None = None,
    cards: Mapping[int, tuple[str, str]] | None = None,
) -> SakuraState:
    snap = GAME.new_game(players, options).to_json()["state"]
    count = len(snap["painters"])
    given = [list(h) for h in (hands or [[] for _ in range(players)])]
    taken = {c for h in given for c in h} | set(deck or [])
    free = [n for n in sorted(DEFAULT_DECK) if n not in taken]
    for h in given:
        while len(h) < 5:
            h.append(free.pop(0))
    snap.update(
        phase="choose",
        round=1,
        hands=[sorted(h) for h in given],
        deck=sorted(free) if deck is None else sorted(deck),
        discard=[] if deck is None else sorted(free),
        draws=[],
    )
    if emperor is not None:
        snap["emperor"] = emperor
    if painters is not None:
        assert len(painters) == count, f"{players} players have {count} painters"
        snap["painters"] = list(painters)
    if tokens is not None:
        snap["tokens"] = list(tokens)
    if scored is not None:
        snap["scored"] = list(scored)
    if players == 2 and snap["options"]["trickyVariant"]:
        a, b = snap["painters"][0], snap["painters"][1]
        snap["supplier"] = None if a == b == 0 else (0 if a < b else 1)
    state = decode(snap, SakuraState)
    if cards:
        state.cards = {**state.cards, **{n: Card(n, g, p) for n, (g, p) in cards.items()}}
    return state


def play(
    state: SakuraState,
    plays: Mapping[int, int | tuple[int, int]],
    choices: list[str] | None = None,
) -> SakuraState:
    """Every seat plays its card (a (card, court_card) pair for the tricky supplier); the
    owners' forward/back choices are taken from ``choices`` in resolution order. Stops at
    the first chance node (court card or draws), at the end, or at a question that
    ``choices`` does not answer."""
    joint: dict[int, Any] = {}
    for seat, chosen in plays.items():
        if isinstance(chosen, tuple):
            joint[seat] = {"type": "play", "card": chosen[0], "court_card": chosen[1]}
        else:
            joint[seat] = {"type": "play", "card": chosen}
    state.apply(joint)
    return decide(state, choices or [])


def decide(state: SakuraState, choices: list[str]) -> SakuraState:
    """Answer pending forward/back questions with ``choices``, in order; with no choice
    left, leave the question pending."""
    pending = list(choices)
    while state.phase == "resolve" and pending:
        (seat,) = state.to_move()
        kind = state.legal_actions(seat)[0]["type"]
        state.apply({seat: {"type": kind, "direction": pending.pop(0)}})
    assert not pending, f"choices left unused: {pending}"
    return state


def reveal(state: SakuraState, card: int, choices: list[str] | None = None) -> SakuraState:
    """Chance turns up ``card`` for the court painter, then the round resolves."""
    state.apply({CHANCE: {"type": "reveal", "card": card}})
    return decide(state, choices or [])


def draw_all(state: SakuraState) -> SakuraState:
    """Chance deals the lowest deck card to each pending draw."""
    while state.to_move() == (CHANCE,) and state.phase in ("draw", "deal"):
        state.apply({CHANCE: {"type": "draw", "card": min(state.deck)}})
    return state
