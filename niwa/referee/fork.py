"""Forking a recorded match at step N (``niwa replay fork``): the steps the fork starts
from, and the chance of the forked line. Sans-IO: the referee plays the rest.

Chance already drawn stays as recorded where the rules allow: each chance step of the
forked line takes the first recorded outcome from step N on that it has not used yet
and that is legal now (a card still in the deck, a tile of the shape being dealt);
only when none is does it draw from the fork's seeded stream. Every game here deals
from finite piles, so the forked line draws the recorded cards in the recorded order
until it needs more than the original drew (docs/series.md, "Forks").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from niwa.engine import CHANCE, Action, Rng, State, canonical_json
from niwa.errors import RefereeError
from niwa.referee.failures import MoveStatus, SeatStatus
from niwa.referee.replay import ForkOrigin, Replay, Step, states


class ForkRefused(RefereeError, ValueError):
    """A fork that cannot start: its message names the cause and the fix."""


@dataclass(frozen=True)
class ForkStart:
    """What a forked match starts from: the recorded steps before ``origin.at`` (played
    again as recorded, bots not asked) and the chance outcomes recorded from there on."""

    origin: ForkOrigin
    prefix: tuple[Step, ...]
    recorded: tuple[Action, ...]


def fork_start(replay: Replay, at: int, sha256: str) -> tuple[ForkStart, State]:
    """The start of a fork of ``replay`` (whose file has SHA-256 ``sha256``) after its
    first ``at`` steps, and the state there (to check the seats with). ForkRefused if
    the replay is a fork itself, there is no such step, or a seat was already out: a
    bot put in its place would be asked nothing, and one left out would skew the result."""
    if replay.header.fork is not None:  # its steps before the fork drew on another seed
        raise ForkRefused(
            f"this replay is itself a fork (of step {replay.header.fork.at} of the replay "
            f"with SHA-256 {replay.header.fork.replay_sha256[:16]}): fork that replay instead"
        )
    last = len(replay.steps)
    if not 0 <= at < last:
        raise ForkRefused(
            f"no step {at} to fork at: the replay has steps 0 to {last - 1}; give --at "
            "0 to " + str(last - 1)
        )
    state: State | None = None
    for step, before, _ in states(replay):
        if step.index == at:
            state = before
            break
        for move in step.moves:
            if move.status == MoveStatus.OUT or _puts_out(replay, move.seat, step.index):
                raise ForkRefused(
                    f"seat {move.seat} was out from step {step.index}, before step {at}: "
                    f"fork at step {step.index} or earlier"
                )
    assert state is not None  # at < last: the walk reached it
    origin = ForkOrigin(sha256, at, replay.header.seed)
    recorded = tuple(
        s.moves[0].action for s in replay.steps[at:] if s.moves[0].seat == CHANCE
    )
    return ForkStart(origin, tuple(replay.steps[:at]), recorded), state


def _puts_out(replay: Replay, seat: int, index: int) -> bool:
    """Whether the result says ``seat`` went out at step ``index`` (its move there was
    the failure that did it: the seat is out for every step after)."""
    if replay.result is None or seat < 0:
        return False
    outcome = replay.result.seats[seat]
    return outcome.status == SeatStatus.OUT and outcome.at == index


class RecordedChance:
    """Draws a forked line's chance: the recorded outcomes first, in their order, each
    used once and only where legal; else ``rng`` (the fork's seeded stream). Counts
    how many of each it gave (``kept``, ``drawn``) for the caller to report."""

    def __init__(self, recorded: Sequence[Action], rng: Rng) -> None:
        self.queue = [(canonical_json(a), a) for a in recorded]
        self.rng = rng
        self.kept = 0
        self.drawn = 0

    def __call__(self, state: State) -> Action:
        legal = {canonical_json(a): a for a, p in state.chance_outcomes() if p > 0}
        for i, (text, _) in enumerate(self.queue):
            own = legal.get(text)
            if own is not None:
                del self.queue[i]
                self.kept += 1
                return own  # the engine's own object: equal, and spelled once
        self.drawn += 1
        return state.sample_chance(self.rng)


def chance_kept(forked: Replay, start: ForkStart) -> tuple[int, int]:
    """How many of a forked replay's chance outcomes from the fork on are recorded ones
    (what :class:`RecordedChance` takes from the original's) and how many are not
    (drawn from the fork's seed): read back from the file, for the report."""
    queue = [canonical_json(a) for a in start.recorded]
    kept = drawn = 0
    for step, before, _ in states(forked):
        if step.index < start.origin.at or step.moves[0].seat != CHANCE:
            continue
        legal = {canonical_json(a) for a, p in before.chance_outcomes() if p > 0}
        first = next((i for i, text in enumerate(queue) if text in legal), None)
        if first is not None and queue[first] == canonical_json(step.moves[0].action):
            del queue[first]
            kept += 1
        else:
            drawn += 1
    return kept, drawn
