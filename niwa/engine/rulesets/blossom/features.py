"""Blossom's fast feature encoding (the ``feature_encoder`` plugin hook, for
niwa.adapters.vector): counts per flower kind, read from the seat's observation only, so
it holds nothing hidden from the seat. Seats are listed from the viewer on (own first),
so one policy serves every seat."""

from __future__ import annotations

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


def write_state(state: Any, seat: int, row: Any) -> None:
    """What :func:`write` makes of ``state.observe(seat)``, read from the state without
    building the observation (the conformance suite checks the two agree). The state
    keeps its counts per kind in KINDS order, as the observation lists them."""
    s: BlossomState = state
    players = s.n
    x = [0.0] * _MOVER_AT + [0.0] * MAX_SEATS
    x[_PHASE_SLOT[s.phase]] = 1.0
    if s.phase == _PLAY:  # the observation's "current" is None in other phases
        x[_MOVER_AT + (s.current - seat) % players] = 1.0
    # counts go in as ints and flags as bools: the row's float32 takes them as they are
    x += (
        s.turns / 50.0, s.actions_done, s.garden_drawn, s.end_triggered,
        sum(s.deck) / _DECK, sum(s.removed),
    )  # fmt: skip
    x += s.garden
    scores, end, hands, ups, downs = s.scores, rules.END_SCORE, s.hands, s.ups, s.downs
    returned, known = s.returned, s.known
    for k in range(players):
        i = (seat + k) % players
        x += (scores[i] / end, sum(hands[i]))
        x += ups[i]
        x += (sum(downs[i]), sum(returned[i]))
        x += known[i]
    at = len(x) + (MAX_SEATS - players) * _SEAT
    row[: len(x)] = x  # two assignments: the absent seats' zeros are already there
    row[at:] = [*hands[seat], *downs[seat], *returned[seat]]


def encoder(players: int) -> FeatureEncoder:
    """The hook: one encoding for every player count (absent seats are zeros)."""
    return FeatureEncoder(VERSION, SIZE, write, write_state)
