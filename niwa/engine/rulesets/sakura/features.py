"""Sakura's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector and the learned value): the track, the painters and tokens, the
seat's own hand card by card and the cards played this round, read from the seat's
observation only (other hands are counts there). Seats are listed from the viewer on
(own first); the court painter of a two-player game has its own block.

Version 2 adds what the line of painters means for the next scoring, which a small
network finds hard to work out from raw positions: each painter's gap to the Emperor,
whether it stands right behind him, the tokens its place would earn if the next sakura
scored now (sakura.md §7) and its lead in tokens (§8); the Emperor's distance to that
sakura; and the court painter, which version 1 left out though it moves and takes
rewards like anyone (§9)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from niwa.engine.api import JSON, FeatureEncoder
from niwa.engine.rulesets.sakura import rules
from niwa.engine.rulesets.sakura.actions import Phase
from niwa.engine.rulesets.sakura.garden import GATE, ranking
from niwa.engine.rulesets.sakura.scoring import rewards_for

if TYPE_CHECKING:
    from niwa.engine.rulesets.sakura.state import SakuraState

VERSION = "sakura-features/2"
PHASES = tuple(Phase)
MAX_SEATS = 6
HAND_SLOTS = 6
GARDEN = {a: i for i, a in enumerate(rules.GARDEN_ACTIONS)}
PAINTER = {a: i for i, a in enumerate(rules.PAINTER_ACTIONS)}
#: a card: its number, its garden action and its painter action one-hot
_CARD = 1 + len(GARDEN) + len(PAINTER)
_TRACK = 40.0
_NUMBERS = 60.0
_TOKENS = 10.0
#: the largest reward at a sakura (the first place at the last one, sakura.md §7)
_REWARD = 4.0
#: a painter: its position and tokens, then its line: gap to the Emperor, right behind
#: him, tokens its place earns if the next sakura scored now, lead over the best other seat
_PAINTER = 2 + 4
#: per seat: hand size, the painter, then the card it played this round
_SEAT = 1 + _PAINTER + _CARD
#: the court painter: there or not, the painter, then its card
_COURT = 1 + _PAINTER + _CARD
#: the sakura trees of the track, scored or not yet
SAKURA_SLOTS = 4
#: the next sakura: the Emperor's distance to it, and whether it is the last
_NEXT = 2
SIZE = (len(PHASES) + 5 + SAKURA_SLOTS + _NEXT + MAX_SEATS * _SEAT + _COURT
        + HAND_SLOTS * _CARD)  # fmt: skip

_PHASE_ROWS: dict[str, tuple[float, ...]] = {
    p: tuple(1.0 if q == p else 0.0 for q in PHASES) for p in PHASES
}
_ABSENT = {n: (0.0,) * ((MAX_SEATS - n) * _SEAT) for n in range(MAX_SEATS + 1)}
_UNSCORED = {n: (0.0,) * max(SAKURA_SLOTS - n, 0) for n in range(2 * SAKURA_SLOTS)}
_NO_COURT = (0.0,) * (1 + _PAINTER)
_NO_CARD = (0.0,) * _CARD


def _card(card: Any) -> list[float]:
    x = [0.0] * _CARD
    x[0] = card["number"] / _NUMBERS
    x[1 + GARDEN[card["garden"]]] = 1.0
    x[1 + len(GARDEN) + PAINTER[card["painter"]]] = 1.0
    return x


#: the garden's part of a row: the sakura trees scored and the next one; per painter its
#: block (position, tokens, line); the court painter's block, zeros without one
Parts = tuple[tuple[float, ...], tuple[tuple[float, ...], ...], tuple[float, ...]]


def _parts(
    players: int,
    emperor: int,
    painters: Sequence[int],
    tokens: Sequence[int],
    supply: int,
    scored: Sequence[bool],
    sakura: Sequence[int],
) -> Parts:
    """What the garden makes of the row. A painter's line: its gap to the Emperor,
    whether it stands right behind him (off the gate), the tokens it would take if the
    next sakura scored now (nearest first, paid from the supply in that order, gate
    painters unranked when two or more share it; sakura.md §7), and its tokens' lead over
    the best other seat (§8)."""
    n = len(painters)
    earn = [0.0] * n
    ahead = (0.0, 0.0)
    if False in scored:
        k = scored.index(False)
        last = k == len(scored) - 1
        ahead = (max(sakura[k] - emperor, 0) / _TRACK, 1.0 if last else 0.0)
        left = supply
        # the rewards may outnumber the ranked painters, or the ranked the rewards
        for painter, reward in zip(ranking(painters), rewards_for(players, last), strict=False):
            paid = reward if reward < left else left
            earn[painter] = paid / _REWARD
            left -= paid
    # a seat's lead is over the best other seat: the leader's, over the second
    top = second = -1
    leader = 0
    for seat in range(players):
        t = tokens[seat]
        if t > top:
            leader, top, second = seat, t, top
        elif t > second:
            second = t
    behind = emperor - 1
    blocks = tuple([
        (
            here / _TRACK,
            tokens[p] / _TOKENS,
            (emperor - here) / _TRACK,
            1.0 if here == behind and here != GATE else 0.0,
            earn[p],
            (tokens[p] - (second if p == leader else top)) / _TOKENS,
        )
        for p, here in enumerate(painters)
    ])  # fmt: skip
    head = (*map(float, scored[:SAKURA_SLOTS]), *_UNSCORED[len(scored)], *ahead)
    return head, blocks, ((1.0, *blocks[players]) if n > players else _NO_COURT)


def write(observation: Mapping[str, JSON], row: Any) -> None:
    obs: Any = observation
    players, seat = obs["players"], obs["seat"]
    board = obs["board"]
    x = list(_PHASE_ROWS[obs["phase"]])
    x += (obs["emperor"] / _TRACK, float(obs["supply"]), obs["deck_size"] / _NUMBERS,
          obs["round"] / 20.0, board["length"] / _TRACK)  # fmt: skip
    head, blocks, court_block = _parts(
        players, obs["emperor"], obs["painters"], obs["tokens"], obs["supply"],
        [bool(v) for v in obs["scored"]], board["sakura"],
    )  # fmt: skip
    x += head
    played = {p["painter"]: p["card"] for p in obs["played"]}
    for k in range(players):
        s = (seat + k) % players
        x.append(float(obs["hand_sizes"][s]))
        x += blocks[s]
        card = played.get(s)
        x += _NO_CARD if card is None else _card(card)
    x += _ABSENT[players]
    x += court_block
    card = None if obs["court"] is None else played.get(obs["court"])
    x += _NO_CARD if card is None else _card(card)
    hand = obs["hand"][:HAND_SLOTS]
    for card in hand:
        x += _card(card)
    x += [0.0] * ((HAND_SLOTS - len(hand)) * _CARD)
    row[:] = x


#: Each card's features by its number, per deck of cards (by identity; the deck is kept
#: to tell a new one at a reused id)
_DECKS: dict[int, tuple[Mapping[int, rules.Card], dict[int, list[float]]]] = {}


def _deck(cards: Mapping[int, rules.Card]) -> dict[int, list[float]]:
    entry = _DECKS.get(id(cards))
    if entry is None or entry[0] is not cards:
        if len(_DECKS) >= 64:
            _DECKS.clear()
        entry = _DECKS[id(cards)] = (cards, {n: _card(c.to_json()) for n, c in cards.items()})
    return entry[1]


def write_state(state: Any, seat: int, row: Any) -> None:
    """What :func:`write` makes of ``state.observe(seat)``, read from the state without
    building the observation (the conformance suite checks the two agree)."""
    s: SakuraState = state
    g, players, hands = s.garden, s.players, s.hands
    card_rows = _deck(s.cards)
    x = list(_PHASE_ROWS[s.phase])
    x += (g.emperor / _TRACK, float(g.supply), len(s.deck) / _NUMBERS, s.round / 20.0,
          g.board.length / _TRACK)  # fmt: skip
    # computed afresh each time: a memo of gardens measured slower in the vector
    # environment (its table crowds the CPU's caches), and this is about 2 µs
    head, blocks, court_block = _parts(
        players, g.emperor, g.painters, g.tokens, g.supply, g.scored, g.board.sakura
    )
    x += head
    played = {p: c for p, c, _status in s.played}
    for k in range(players):
        i = (seat + k) % players
        x.append(float(len(hands[i])))
        x += blocks[i]
        c = played.get(i)
        x += _NO_CARD if c is None else card_rows[c]
    x += _ABSENT[players]
    x += court_block
    c = None if s.court is None else played.get(s.court)
    x += _NO_CARD if c is None else card_rows[c]
    hand = hands[seat][:HAND_SLOTS]
    for c in hand:
        x += card_rows[c]
    x += [0.0] * ((HAND_SLOTS - len(hand)) * _CARD)
    row[: len(x)] = x


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent seats are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write, write_state)
