"""A seat's observation as wire text: ``canonical_json(views.observation(state, seat))``
spelled without building the observation.

The referee sends every gRPC bot its observation as canonical JSON; building the dict
and encoding it cost about 34 µs per question in Sakura 4p (load 8), most of it the
cards: every card in hands, discard and play became a dict, encoded again. Here each
card's and board's JSON is made once for the process, integers are written as they
are, and the keys come in sorted order as canonical JSON has them. The conformance
check ``observe_json_is_canonical`` holds it equal to the canonical JSON of
:func:`views.observation` at every step of whole games of every player count and option.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

from niwa.engine.api import canonical_json
from niwa.engine.rulesets.sakura.codec import FORMAT
from niwa.engine.rulesets.sakura.rules import VERSION, Board, Card

if TYPE_CHECKING:
    from niwa.engine.rulesets.sakura.state import SakuraState

#: A string's canonical spelling (canonical_json keeps non-ASCII as it is).
_text = json.encoder.encode_basestring
#: Per card list (a ``rules.decks()`` value, alive for the process): its cards' JSON
#: by number and its piles already spelled (:func:`_pile`), beside the list itself so
#: an id is never taken for another's.
_Deck = tuple[Mapping[int, Card], dict[int, str], dict[tuple[int, ...], str]]
_DECKS: dict[int, _Deck] = {}
#: Piles kept per card list before its cache is emptied, so it stays small.
_PILES_LIMIT = 1024
#: The last options and scorings spelled, by identity: both are never changed in
#: place (options after validation; scorings are replaced when one is added).
_last_options: tuple[object, str] = (None, "")
_last_scorings: tuple[object, str] = (None, "")
_last_board: tuple[object, str] = (None, "")


def deck_json(cards: Mapping[int, Card]) -> dict[int, str]:
    """Every card's canonical JSON, by number."""
    return _deck(cards)[1]


def _deck(cards: Mapping[int, Card]) -> _Deck:
    found = _DECKS.get(id(cards))
    if found is None or found[0] is not cards:
        found = cards, {n: canonical_json(c.to_json()) for n, c in cards.items()}, {}
        _DECKS[id(cards)] = found
    return found


def _pile(deck: _Deck, pile: list[int]) -> str:
    """A pile's cards in number order, joined, by value: the discard pile changes a
    few times a round and every decision in between spells it again (sorting and
    joining up to 60 cards cost more than the rest of the shared text)."""
    piles = deck[2]
    key = tuple(pile)
    text = piles.get(key)
    if text is None:
        if len(piles) >= _PILES_LIMIT:
            piles.clear()
        text = piles[key] = ",".join(map(deck[1].__getitem__, sorted(key)))
    return text


@cache
def board_json(board: Board) -> str:
    return canonical_json(board.to_json())


def _board(board: Board) -> str:
    """:func:`board_json` by identity first (a board is hashed field by field)."""
    global _last_board
    if _last_board[0] is not board:
        _last_board = (board, board_json(board))
    return _last_board[1]


#: Short int lists already spelled, by value: hand sizes, seats to move, tokens and
#: painters repeat from one decision to the next. Emptied when full, so it stays small.
_INTS: dict[tuple[int, ...], str] = {}
_INTS_LIMIT = 4096


def _ints(values: Sequence[int]) -> str:
    """A list of ints as canonical JSON: Python's own spelling without the spaces."""
    key = tuple(values)
    text = _INTS.get(key)
    if text is None:
        if len(_INTS) >= _INTS_LIMIT:
            _INTS.clear()
        text = _INTS[key] = str(list(key)).replace(" ", "")
    return text


def _maybe(value: int | None) -> str:
    return "null" if value is None else str(value)


def _options(options: object) -> str:
    global _last_options
    if _last_options[0] is not options:
        _last_options = (options, canonical_json(options))
    return _last_options[1]


def _scorings(scorings: object) -> str:
    global _last_scorings
    if _last_scorings[0] is not scorings:
        _last_scorings = (scorings, canonical_json(scorings))
    return _last_scorings[1]


def observation_json(state: SakuraState, seat: int | None) -> str:
    deck = _deck(state.cards)
    view = state._view
    if view is None:
        view = state._view = _shared(state, deck)
    before, between, after = view
    if seat is None:
        return f'{before}"hand":null,{between}"seat":null,{after}'
    hand = ",".join(map(deck[1].__getitem__, state.hands[seat]))
    return f'{before}"hand":[{hand}],{between}"seat":{seat},{after}'


def _shared(state: SakuraState, deck: _Deck) -> tuple[str, str, str]:
    """The observation's text before the hand, between it and the seat, and after:
    the same for every seat asked in one position (most decisions ask all of them)."""
    g = state.garden
    cards = deck[1]
    # A painter of None spelled inline: a call of _maybe per card cost as much as the rest.
    played = ",".join([
        f'{{"card":{cards[c]},"painter":{"null" if p is None else p},'
        f'"status":{_text(status)}}}'
        for p, c, status in state.played
    ])
    scored = ",".join(["true" if s else "false" for s in g.scored])
    # Keys in sorted order, as canonical_json writes them.
    return (
        f'{{"board":{_board(g.board)},"court":{_maybe(state.court)},'
        f'"cursor":{state.cursor},"deck_size":{len(state.deck)},'
        f'"discard":[{_pile(deck, state.discard)}],'
        f'"draws":{_ints(state.draws)},"emperor":{g.emperor},"game":{_text(VERSION)},'
        f'"halt":{_maybe(state.halt)},',
        f'"hand_sizes":{_ints([len(h) for h in state.hands])},'
        f'"options":{_options(state.options)},"painters":{_ints(g.painters)},'
        f'"phase":{_text(state.phase)},"played":[{played}],"players":{state.players},'
        f'"round":{state.round},"scored":[{scored}],"scorings":{_scorings(state.scorings)},',
        f'"step":{_text(state.step)},'
        f'"supplier":{_maybe(state.supplier)},"supply":{g.supply},'
        f'"to_move":{_ints(state.to_move())},"tokens":{_ints(g.tokens)}}}',
    )


@cache
def _snapshot_head() -> str:
    """The snapshot envelope's text up to its state (``state`` sorts last of its keys)."""
    return canonical_json(FORMAT.wrap({})).removesuffix("{}}")


def snapshot_json(state: SakuraState) -> str:
    """``canonical_json(state.to_json())`` spelled from the state: the referee hashes
    it at checkpoints and at every match's end (about 20 µs through the encoder). Keys in
    sorted order; the conformance check ``round_trip_every_step`` holds it equal at every
    step."""
    g = state.garden
    # The piles are spelled as Python spells a list, without the cache: they rarely repeat.
    hands = str([sorted(h) for h in state.hands]).replace(" ", "")
    played = ",".join([f"[{_maybe(p)},{c},{_text(status)}]" for p, c, status in state.played])
    scored = ",".join(["true" if s else "false" for s in g.scored])
    return (
        f'{_snapshot_head()}{{"cursor":{state.cursor},'
        f'"deck":{str(sorted(state.deck)).replace(" ", "")},'
        f'"discard":{str(sorted(state.discard)).replace(" ", "")},"draws":{_ints(state.draws)},'
        f'"emperor":{_maybe(g.emperor)},"halt":{_maybe(state.halt)},"hands":{hands},'
        f'"options":{_options(state.options)},"painters":{_ints(g.painters)},'
        f'"phase":{_text(state.phase)},"played":[{played}],"players":{state.players},'
        f'"round":{state.round},"scored":[{scored}],"scorings":{_scorings(state.scorings)},'
        f'"step":{_text(state.step)},"supplier":{_maybe(state.supplier)},'
        f'"supply":{g.supply},"tokens":{_ints(g.tokens)}}}}}'
    )
