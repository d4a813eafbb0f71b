"""A match's balance figures from its replay: re-simulate it and read each round's end
scores with the game's own hooks (``score_now`` from the spectator's view, and
``round_ends``; every decision is a round for a game without that hook)."""

from __future__ import annotations

from pathlib import Path

from niwa.engine import CHANCE, Game
from niwa.ladder.balance import MatchBalance
from niwa.referee.replay import Replay, ReplayError, read
from niwa.referee.replay.check import apply_step, new_game


def from_replay(replay: Replay, game: Game | None = None) -> MatchBalance:
    """The figures of a finished match; :class:`ReplayError` if it has no result line
    or does not re-simulate."""
    if replay.result is None:
        raise ReplayError("the replay has no result line: the match did not finish")
    game = game or replay.game()
    score_now = game.score_now()
    round_ends = game.round_ends()
    state = new_game(replay, game)
    view = state.observe(None)
    # no running score yet (set-up pending) reads as everyone on nothing
    start = None if score_now is None else score_now(view) or [0.0] * replay.header.players
    history: list[list[float]] = []
    steps = 0
    for step in replay.steps:
        apply_step(step, state)
        decision = any(m.seat != CHANCE for m in step.moves)
        steps += decision
        if score_now is None:
            continue
        after = state.observe(None)
        ended = round_ends(view, after) if round_ends is not None else decision
        if ended and not state.is_over():
            scores = score_now(after)
            if scores is not None:
                history.append(scores)
        view = after
    final = [float(s) for s in replay.result.scores]
    if score_now is not None:
        history.append(final)  # the last round ends with the game, on the result's scores
    return MatchBalance.of(
        replay.result.places,
        final,
        start,
        None if score_now is None else history,
        steps,
    )


def from_file(path: Path) -> MatchBalance:
    """:func:`from_replay` of the replay file at ``path``."""
    return from_replay(read(path))
