"""Blossom's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector): counts per flower kind, read from the seat's observation only, so
it holds nothing hidden from the seat. Seats are listed from the viewer on (own first),
so one policy serves every seat."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from niwa.engine.api import JSON, FeatureEncoder, phase_and_mover
from niwa.engine.rulesets.blossom import rules
from niwa.engine.rulesets.blossom.actions import Phase

if TYPE_CHECKING:
    from niwa.engine.rulesets.blossom.state import BlossomState

VERSION = "blossom-features/1"
PHASES = tuple(Phase)
MAX_SEATS = 4
KINDS = rules.KINDS
_DECK = float(sum(rules.FULL_DECK))
#: per seat: score, hand size, face-up yard by kind, face-down yard, returned, known by kind
_SEAT = 4 + 2 * len(KINDS)
SIZE = len(PHASES) + MAX_SEATS + 6 + len(KINDS) + MAX_SEATS * _SEAT + 3 * len(KINDS)


def _kinds(counts: Any) -> list[float]:
    return [float(counts[k]) for k in KINDS]


def write(observation: Mapping[str, JSON], row: Any) -> None:
    obs: Any = observation
    players, seat = obs["players"], obs["seat"]
    order = [(seat + k) % players for k in range(players)]
    x = phase_and_mover(observation, PHASES, MAX_SEATS)
    x += [
        obs["turn"] / 50.0, float(obs["actions_done"]), float(obs["garden_drawn"]),
        float(obs["end_triggered"]), obs["deck"] / _DECK, float(obs["removed"]),
    ]  # fmt: skip
    x += _kinds(obs["garden"])
    seats, scores = obs["seats"], obs["scores"]
    for s in order:
        one = seats[s]
        x += [scores[s] / rules.END_SCORE, float(one["hand"])]
        x += _kinds(one["yard_up"])
        x += [float(one["yard_down"]), float(one["returned"])]
        x += _kinds(one["known"])
    x += [0.0] * ((MAX_SEATS - players) * _SEAT)
    x += _kinds(obs["hand"]) + _kinds(obs["yard_down"]) + _kinds(obs["returned"])
    row[:] = x


_PHASE_SLOT = {p: i for i, p in enumerate(PHASES)}
_PLAY: Final = Phase.PLAY  # a module global reads faster than the enum's attribute
_MOVER_AT = len(PHASES)


def _start(slot: int, mover: int | None) -> tuple[float, ...]:
    x = [0.0] * (_MOVER_AT + MAX_SEATS)
    x[slot] = 1.0
    if mover is not None:
        x[_MOVER_AT + mover] = 1.0
    return tuple(x)


#: The phase and mover one-hots of a Play decision, by the mover counted from the viewer:
#: looked up rather than built, and without hashing the phase (an Enum hashes in Python).
_PLAY_STARTS: Final = tuple(_start(_PHASE_SLOT[_PLAY], m) for m in range(MAX_SEATS))


def write_state(state: Any, seat: int, row: Any) -> None:
    """What :func:`write` makes of ``state.observe(seat)``, read from the state without
    building the observation (the conformance suite checks the two agree). The state
    keeps its counts per kind in KINDS order, as the observation lists them."""
    s: BlossomState = state
    players = s.n
    if s.phase == _PLAY:  # the observation's "current" is None in other phases
        start = _PLAY_STARTS[(s.current - seat) % players]
    else:
        start = _start(_PHASE_SLOT[s.phase], None)
    # One list display per block; counts go in as ints and flags as bools: the row's
    # float32 takes them as they are (a float() per value costs more than it saves).
    x = [
        *start, s.turns / 50.0, s.actions_done, s.garden_drawn, s.end_triggered,
        sum(s.deck) / _DECK, sum(s.removed), *s.garden,
    ]  # fmt: skip
    scores, end, hands, ups, downs = s.scores, rules.END_SCORE, s.hands, s.ups, s.downs
    returned, known = s.returned, s.known
    for k in range(players):
        i = (seat + k) % players
        x += [
            scores[i] / end, sum(hands[i]), *ups[i], sum(downs[i]), sum(returned[i]),
            *known[i],
        ]  # fmt: skip
    # Two writes: the absent seats' zeros are already there. struct packs ints and
    # bools into float32 about twice as fast as numpy converts a list holding them; a
    # row of another width (float64) or not one contiguous buffer takes numpy's path.
    try:
        packed = row.itemsize == 4
        if packed:
            _HEAD[players].pack_into(row, 0, *x)
            _TAIL.pack_into(row, _TAIL_AT, *hands[seat], *downs[seat], *returned[seat])
    except (AttributeError, BufferError, TypeError):
        packed = False
    if not packed:
        row[: len(x)] = x
        row[SIZE - _TAIL_LEN :] = [*hands[seat], *downs[seat], *returned[seat]]


#: The packers of a row's head (everything up to the absent seats, by player count) and
#: of its tail (the viewer's own hand, face-down yard and returns by kind), as float32.
_HEAD_LEN = _MOVER_AT + MAX_SEATS + 6 + len(KINDS)
_HEAD: Final = {n: struct.Struct(f"{_HEAD_LEN + n * _SEAT}f") for n in range(1, MAX_SEATS + 1)}
_TAIL_LEN = 3 * len(KINDS)
_TAIL: Final = struct.Struct(f"{_TAIL_LEN}f")
_TAIL_AT = (SIZE - _TAIL_LEN) * _TAIL.size // _TAIL_LEN  # in bytes


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent seats are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write, write_state)
