"""Bonsai's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector): each seat's supply, cards by family, tree tiles by type and score
parts, the board's cards and the deck's size, read from the seat's observation only.
Seats are listed from the viewer on (own first)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON, FeatureEncoder, phase_and_mover
from niwa.engine.rulesets.bonsai import rules
from niwa.engine.rulesets.bonsai.actions import Phase
from niwa.engine.rulesets.bonsai.scoring import breakdown

if TYPE_CHECKING:
    from niwa.engine.rulesets.bonsai.seat import Seat
    from niwa.engine.rulesets.bonsai.state import BonsaiState

VERSION = "bonsai-features/1"
PHASES = tuple(Phase)
MAX_SEATS = 4
BOARD_SLOTS = 4
TILES = ("wood", "leaf", "flower", "fruit")
FAMILIES = ("tool", "growth", "master", "helper", "parchment")
SCORE_PARTS = ("leaf", "flower", "fruit", "parchments", "goals", "total")
#: per seat: supply, cards by family, tiles by type, tile count, claimed goals, capacity,
#: score parts
_SEAT = 2 * len(TILES) + len(FAMILIES) + 3 + len(SCORE_PARTS)
SIZE = len(PHASES) + MAX_SEATS + 4 + BOARD_SLOTS * len(FAMILIES) + MAX_SEATS * _SEAT


#: a card's family slot in FAMILIES (-1: none), by card name, filled as cards are met
_FAMILY_SLOT: dict[str | None, int] = {None: -1}


def _slot(card: str | None) -> int:
    """``card``'s family slot in FAMILIES, -1 for none (an empty board slot is None)."""
    slot = _FAMILY_SLOT.get(card)
    if slot is None:
        family = "" if card is None else card.partition(":")[0]
        slot = FAMILIES.index(family) if family in FAMILIES else -1
        if len(_FAMILY_SLOT) < 1024:  # the game's card names; bounded against any others
            _FAMILY_SLOT[card] = slot
    return slot


def _families(cards: Any) -> list[float]:
    counts = [0.0] * len(FAMILIES)
    for card in cards:
        slot = _slot(card)
        if slot >= 0:
            counts[slot] += 1.0
    return counts


#: one card's family counts, by slot (the last, -1: no family)
_BLOCKS = [
    [1.0 if i == slot else 0.0 for i in range(len(FAMILIES))]
    for slot in (*range(len(FAMILIES)), -1)
]


def write(observation: Mapping[str, JSON], row: Any) -> None:
    obs: Any = observation
    players, seat = obs["players"], obs["seat"]
    x = phase_and_mover(observation, PHASES, MAX_SEATS)
    x += [
        obs["deck_size"] / 50.0, float(obs["turns_left"]), float(obs["end_triggered"]),
        len(obs["goals_open"]) / 15.0,
    ]  # fmt: skip
    for card in obs["board"][:BOARD_SLOTS]:
        x += _families([card])
    x += [0.0] * ((BOARD_SLOTS - len(obs["board"][:BOARD_SLOTS])) * len(FAMILIES))
    for k in range(players):
        s = (seat + k) % players
        one, score = obs["seats"][s], obs["scores"][s]
        x += [float(one["supply"][t]) for t in TILES]
        x += _families(one["cards"])
        tiles = dict.fromkeys(TILES, 0.0)
        placed = 0
        for tree in one["trees"]:
            for _q, _r, tile in tree:
                tiles[tile] = tiles.get(tile, 0.0) + 1.0
                placed += 1
        x += [tiles[t] for t in TILES]
        x += [placed / 20.0, float(len(one["claimed"])), float(obs["capacity"][s])]
        x += [score[p] / 20.0 for p in SCORE_PARTS]
    x += [0.0] * ((MAX_SEATS - players) * _SEAT)
    row[:] = x


#: the state's tile codes (rules.TILES) in the order the features list tile types
_TILE_CODES = tuple(rules.TILES.index(t) for t in TILES)
_PHASE_SLOT = {p: i for i, p in enumerate(PHASES)}


def _seat_block(one: Seat) -> list[float]:
    """A seat's features after its supply: card families, tiles by type, tile count,
    goals, capacity and score parts. They change only with its bonsai, cards and goals,
    so they are kept on the seat (the score is most of the encoding's cost)."""
    placed = sum(map(len, one.trees))
    key = (one.tree_changes, placed, len(one.cards), len(one.claimed))
    kept = one.kept_features
    if kept is not None and kept[0] == key:
        return kept[1]
    tiles = [0.0] * len(rules.TILES)
    for tree in one.trees:
        for tile in tree.values():
            tiles[tile] += 1.0
    score = breakdown(one.trees, one.cards, one.claimed)
    block = _families(one.cards)
    block += [tiles[t] for t in _TILE_CODES]
    block += [placed / 20.0, float(len(one.claimed)), float(one.capacity())]
    block += [score[p] / 20.0 for p in SCORE_PARTS]
    one.kept_features = key, block
    return block


def write_state(state: Any, seat: int, row: Any) -> None:
    """What :func:`write` makes of ``state.observe(seat)``, read from the state without
    building the observation (the conformance suite checks the two agree)."""
    s: BonsaiState = state
    players = s.players
    x = [0.0] * (len(PHASES) + MAX_SEATS)
    x[_PHASE_SLOT[s.phase]] = 1.0
    if s.current is not None:
        x[len(PHASES) + (s.current - seat) % players] = 1.0
    x += [
        s.deck_size() / 50.0, float(s.turns_left), float(s.end_triggered),
        len(s.goals_open) / 15.0,
    ]  # fmt: skip
    board = s.board[:BOARD_SLOTS]
    for card in board:
        x += _BLOCKS[_slot(card)]
    x += [0.0] * ((BOARD_SLOTS - len(board)) * len(FAMILIES))
    for k in range(players):
        one = s.seats[(seat + k) % players]
        x += [float(one.supply[t]) for t in _TILE_CODES]
        x += _seat_block(one)
    row[: len(x)] = x


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent seats are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write, write_state)
