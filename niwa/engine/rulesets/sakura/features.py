"""Sakura's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector): the track, the painters and tokens, the seat's own hand card by
card and the cards played this round, read from the seat's observation only (other
hands are counts there). Seats are listed from the viewer on (own first)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON, FeatureEncoder
from niwa.engine.rulesets.sakura import rules
from niwa.engine.rulesets.sakura.actions import Phase

if TYPE_CHECKING:
    from niwa.engine.rulesets.sakura.state import SakuraState

VERSION = "sakura-features/1"
PHASES = tuple(Phase)
MAX_SEATS = 6
HAND_SLOTS = 6
GARDEN = {a: i for i, a in enumerate(rules.GARDEN_ACTIONS)}
PAINTER = {a: i for i, a in enumerate(rules.PAINTER_ACTIONS)}
#: a card: its number, its garden action and its painter action one-hot
_CARD = 1 + len(GARDEN) + len(PAINTER)
_TRACK = 40.0
_NUMBERS = 60.0
#: per seat: painter position, tokens, hand size, court; then its played card
_SEAT = 4 + _CARD
#: the sakura trees of the track, scored or not yet
SAKURA_SLOTS = 4
SIZE = len(PHASES) + 5 + SAKURA_SLOTS + MAX_SEATS * _SEAT + HAND_SLOTS * _CARD


def _card(card: Any) -> list[float]:
    x = [0.0] * _CARD
    x[0] = card["number"] / _NUMBERS
    x[1 + GARDEN[card["garden"]]] = 1.0
    x[1 + len(GARDEN) + PAINTER[card["painter"]]] = 1.0
    return x


def write(observation: Mapping[str, JSON], row: Any) -> None:
    obs: Any = observation
    players, seat = obs["players"], obs["seat"]
    x = [1.0 if obs["phase"] == p else 0.0 for p in PHASES]
    board = obs["board"]
    x += [
        obs["emperor"] / _TRACK, float(obs["supply"]), obs["deck_size"] / _NUMBERS,
        obs["round"] / 20.0, board["length"] / _TRACK,
    ]  # fmt: skip
    scored = [float(v) for v in obs["scored"][:SAKURA_SLOTS]]
    x += scored + [0.0] * (SAKURA_SLOTS - len(scored))
    played = {p["painter"]: p["card"] for p in obs["played"]}
    for k in range(players):
        s = (seat + k) % players
        x += [
            obs["painters"][s] / _TRACK, obs["tokens"][s] / 10.0, float(obs["hand_sizes"][s]),
            1.0 if obs["court"] == s else 0.0,
        ]  # fmt: skip
        card = played.get(s)
        x += [0.0] * _CARD if card is None else _card(card)
    x += [0.0] * ((MAX_SEATS - players) * _SEAT)
    hand = obs["hand"][:HAND_SLOTS]
    for card in hand:
        x += _card(card)
    x += [0.0] * ((HAND_SLOTS - len(hand)) * _CARD)
    row[:] = x


#: a card's features by card (the decks' cards, a few hundred at most)
_CARD_ROWS: dict[rules.Card, list[float]] = {}


def _card_row(card: rules.Card) -> list[float]:
    row = _CARD_ROWS.get(card)
    if row is None:
        row = _card(card.to_json())
        if len(_CARD_ROWS) < 4096:
            _CARD_ROWS[card] = row
    return row


def write_state(state: Any, seat: int, row: Any) -> None:
    """What :func:`write` makes of ``state.observe(seat)``, read from the state without
    building the observation (the conformance suite checks the two agree)."""
    s: SakuraState = state
    g, cards, players = s.garden, s.cards, s.players
    x = [1.0 if s.phase == p else 0.0 for p in PHASES]
    x += [
        g.emperor / _TRACK, float(g.supply), len(s.deck) / _NUMBERS,
        s.round / 20.0, g.board.length / _TRACK,
    ]  # fmt: skip
    scored = [float(v) for v in g.scored[:SAKURA_SLOTS]]
    x += scored + [0.0] * (SAKURA_SLOTS - len(scored))
    played = {p: c for p, c, _status in s.played}
    for k in range(players):
        i = (seat + k) % players
        x += [
            g.painters[i] / _TRACK, g.tokens[i] / 10.0, float(len(s.hands[i])),
            1.0 if s.court == i else 0.0,
        ]  # fmt: skip
        c = played.get(i)
        x += [0.0] * _CARD if c is None else _card_row(cards[c])
    x += [0.0] * ((MAX_SEATS - players) * _SEAT)
    for c in s.hands[seat][:HAND_SLOTS]:
        x += _card_row(cards[c])
    row[: len(x)] = x


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent seats are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write, write_state)
