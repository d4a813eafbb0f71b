"""``niwa replay verify``: check everything a replay claims that a rating or a reader
relies on, with nothing but the engine, the seed and the referee's own rules.

The match is re-simulated from the header (game, version, players, options, seed) and
the recorded moves, and every claim is compared with what the referee would have
written:

* every move is legal and made by the seats that were to move; every state hash (in
  niwa-replay/2, one at least every CHECKPOINT_EVERY steps and after the last) and
  every step's chain (niwa-replay/2);
* every chance outcome is the one the seed's chance stream draws;
* every default move (a failed decision, or a seat that is out) is the one the seat's
  seeded default stream draws;
* each seat's statuses follow the referee's rule: CRASHED or DISCONNECTED, or the
  ``max_failures``-th failure, puts it out; after that only OUT moves;
* the result: scores and ``game_places`` from the engine, each seat's outcome (status,
  reason, step, failures) from its moves, ``places`` from those by
  :func:`niwa.referee.match.final_places`, the number of decisions;
* the header: the game name and version, the options, one seat per player, the
  built-in bots' names and versions; clocks that never exceed the time control nor grow.

What the file alone cannot prove (notes, debug text, timings, details, stderr, a bot
directory's name and version, the match id and start time) needs the ladder's stored
hash.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from niwa import engine
from niwa.bots.sdk import DEBUG_LIMIT, NOTE_LIMIT
from niwa.engine import CHANCE, JSON, Game, State, canonical_json
from niwa.referee.failures import FATAL, Failure
from niwa.referee.match import BotSpec, final_places
from niwa.referee.replay import (
    CHECKPOINT_EVERY,
    SCHEMA,
    Move,
    Replay,
    ReplayError,
    ReplayMismatch,
    SeatOutcome,
    Step,
    apply_step,
    chain_next,
    chain_start,
    is_checkpoint,
    new_game,
)
from niwa.referee.seeds import stream
from niwa.referee.text import printable

#: Differences listed before the rest are only counted.
MAX_PROBLEMS = 50
#: A seat whose moves from some step to its last are exactly its seeded default moves,
#: with this many bits of choice among them, was out and relabelled OK: an honest bot
#: cannot know the default stream (it gets another seed), so by chance this happens
#: once in 2**40.
DEFAULT_RUN_BITS = 40.0
_FAILURES = frozenset(str(f) for f in Failure)


@dataclass
class Report:
    steps: int = 0  # steps re-simulated and checked
    problems: list[str] = field(default_factory=list)
    complete: bool = False  # the replay has a result line, and it was checked


def _show(value: JSON) -> str:
    return printable(canonical_json(value), 120)


@dataclass
class _SeatTrack:
    """What a seat's moves say about it, as the referee counts."""

    moves: int = 0
    failures: int = 0
    out: bool = False
    at: int | None = None  # the step it went out at; None with ``out`` = at start-up
    reason: str = ""
    last_clock: int | None = None
    # Copies of the default stream started at one of its OK moves, kept while every
    # move since is what that copy draws: (step, stream, bits of evidence).
    shadows: list[tuple[int, random.Random, float]] = field(default_factory=list)


class _Checker:
    def __init__(self, replay: Replay, game: Game | None) -> None:
        self.replay = replay
        self.h = replay.header
        self.game = game
        self.report = Report()
        self.dropped = 0
        self.hash_mismatches: list[int] = []
        self.chain_mismatches: list[int] = []
        self.chained = self.h.schema == SCHEMA  # niwa-replay/2: chains, hashes at checkpoints
        self.chain = chain_start(self.h)
        self.seats = [_SeatTrack() for _ in range(self.h.players)]
        self.defaults = [stream(self.h.seed, "default", s) for s in range(self.h.players)]
        self.chance = stream(self.h.seed, "chance")
        self.decisions = 0

    def problem(self, text: str) -> None:
        if len(self.report.problems) < MAX_PROBLEMS:
            self.report.problems.append(text)
        else:
            self.dropped += 1

    # -- the header ----------------------------------------------------------------

    def load_game(self) -> Game | None:
        h = self.h
        game = self.game
        if game is None:
            try:
                game = engine.load(h.game)
            except engine.UnknownGame:
                raise ReplayError(
                    f"the replay is for the game {printable(h.game, 60)!r}, which is not "
                    f"installed: registered games: {', '.join(engine.games())}"
                ) from None
        if game.info.name != h.game:
            self.problem(f"header game: expected {game.info.name}, found {printable(h.game, 60)}")
        if game.info.version != h.version:
            self.problem(
                f"header version: expected {game.info.version} (the rules of "
                f"{game.info.name} installed here), found {printable(h.version, 60)}"
            )
            return None  # different rules: nothing after this would mean anything
        return game

    def check_header(self, game: Game) -> None:
        h = self.h
        try:
            options = game.info.validate(h.players, h.options)
        except engine.OptionError:
            return  # new_game reports it
        if options != h.options:
            self.problem(f"header options: expected {_show(options)}, found {_show(h.options)}")
        if h.time_control["per_decision_ms"] < 1:
            self.problem("header time_control.per_decision_ms: expected 1 or more, found 0")
        for info in h.seats:
            if not info.bot.startswith("builtin:"):
                continue  # a bot directory: only the ladder knows what it held
            try:
                manifest = BotSpec.parse(info.bot).manifest()
            except Exception:  # its options are the file's text: any refusal means "not ours"
                self.problem(
                    f"header seats[{info.seat}].bot: {printable(info.bot, 60)} is not a "
                    "built-in bot of this niwa"
                )
                continue
            for name in ("name", "version"):
                want, got = getattr(manifest, name), getattr(info, name)
                if want != got:
                    self.problem(
                        f"header seats[{info.seat}].{name}: expected {printable(want, 60)}, "
                        f"found {printable(got, 60)}"
                    )

    # -- the steps -----------------------------------------------------------------

    def check_move(self, step: Step, move: Move, state: State) -> None:
        s, i = move.seat, step.index
        track = self.seats[s]
        where = f"step {i} seat {s}"
        if move.status == "OUT":
            if not track.out and track.moves == 0:
                track.out, track.failures = True, 1  # out before its first decision
            elif not track.out:
                self.problem(f"{where} status: expected a decision (the seat is in), found OUT")
        elif track.out:
            since = "start-up" if track.at is None else f"step {track.at}"
            self.problem(f"{where} status: expected OUT (out since {since}), found {move.status}")
        elif move.status in _FAILURES:
            track.failures += 1
            if move.status in FATAL or track.failures >= self.h.max_failures:
                track.out, track.at, track.reason = True, i, move.status
        track.moves += 1
        legal = state.legal_actions(s)
        self.follow_shadows(track, move, legal)
        if move.status == "OK" and len(legal) > 1:
            copy = random.Random()
            copy.setstate(self.defaults[s].getstate())
            track.shadows.append((step.index, copy, 0.0))
            self.follow_shadows(track, move, legal, only_last=True)
        if move.status != "OK":  # the referee drew a default move
            expected = self.defaults[s].choice(legal)
            if canonical_json(expected) != canonical_json(move.action):
                self.problem(
                    f"{where} default move ({move.status}): expected {_show(expected)} "
                    f"(drawn from the seed), found {_show(move.action)}"
                )
            if move.note:
                self.problem(f"{where} note: expected none on a default move, found one")
            if move.debug:
                self.problem(f"{where} debug: expected none on a default move, found some")
        if len(move.note) > NOTE_LIMIT:
            self.problem(f"{where} note: expected at most {NOTE_LIMIT} characters, "
                         f"found {len(move.note)}")
        size = len(move.debug.encode("utf-8", "replace"))
        if size > DEBUG_LIMIT:  # debug text is never rated: only its bound is checked
            self.problem(f"{where} debug: expected at most {DEBUG_LIMIT} bytes, found {size}")
        self.check_clock(where, track, move)

    @staticmethod
    def follow_shadows(
        track: _SeatTrack, move: Move, legal: list[JSON], only_last: bool = False
    ) -> None:
        """Advance each shadow stream by this move; drop those it does not match."""
        wanted = canonical_json(move.action)
        bits = math.log2(len(legal)) if legal else 0.0
        kept = track.shadows[:-1] if only_last else []
        for start, rng, evidence in track.shadows[-1:] if only_last else track.shadows:
            if canonical_json(rng.choice(legal)) == wanted:
                kept.append((start, rng, evidence + bits))
        track.shadows = kept

    def check_default_runs(self) -> None:
        for seat, track in enumerate(self.seats):
            found = [(start, bits) for start, _, bits in track.shadows if bits >= DEFAULT_RUN_BITS]
            if found:
                start, bits = min(found)
                self.problem(
                    f"step {start} seat {seat} status: expected OUT (every move of the seat "
                    f"from here on is its seeded default move, {bits:.0f} bits of choice), "
                    "found OK"
                )

    def check_clock(self, where: str, track: _SeatTrack, move: Move) -> None:
        if move.status == "OUT" or move.clock_ms is None:
            return
        tc = self.h.time_control
        most = tc["per_decision_ms"] + tc["bank_ms"]
        if track.last_clock is not None:
            most = min(most, track.last_clock)  # the bank only ever shrinks
        if move.clock_ms > most or move.clock_ms < 0:
            self.problem(f"{where} clock_ms: expected 0 to {most}, found {move.clock_ms}")
        track.last_clock = move.clock_ms

    def check_step(self, step: Step, state: State) -> bool:
        """Check one step and apply it; False when the re-simulation cannot go on."""
        if not state.is_over():
            kind = "chance" if state.to_move() == (CHANCE,) else "decision"
            if step.kind != kind:
                self.problem(f"step {step.index} kind: expected {kind}, found {step.kind}")
                return False
        before = state.clone()
        try:
            apply_step(step, state)
        except ReplayError as e:
            self.problem(str(e))
            return False
        if step.kind == "chance":
            expected = engine.sample_chance(before, self.chance)
            found = step.moves[0].action
            if canonical_json(expected) != canonical_json(found):
                self.problem(
                    f"step {step.index} chance outcome: expected {_show(expected)} "
                    f"(drawn from the seed), found {_show(found)}"
                )
        else:
            self.decisions += 1
            for move in step.moves:
                self.check_move(step, move, before)
        if self.chained:
            self.check_chain(step)
            if not step.hash and is_checkpoint(step.index, state.is_over()):
                self.problem(
                    f"step {step.index}: no state hash, but every {CHECKPOINT_EVERY}th step "
                    "and the last carry one"
                )
                return True
        if step.hash or not self.chained:
            got = engine.state_hash(state)
            if got != step.hash:
                if not self.hash_mismatches:
                    self.problem(
                        f"step {step.index}: state hash {got} but the replay says "
                        f"{printable(step.hash, 40)}"
                    )
                self.hash_mismatches.append(step.index)
        return True

    def check_chain(self, step: Step) -> None:
        """The chain over every recorded action and chance outcome up to ``step``."""
        self.chain = chain_next(self.chain, step.kind, step.index, step.moves)
        if step.chain != self.chain:
            if not self.chain_mismatches:
                self.problem(
                    f"step {step.index}: chain {self.chain} but the replay says "
                    f"{printable(step.chain, 40)}"
                )
            self.chain_mismatches.append(step.index)

    # -- the result ----------------------------------------------------------------

    def expected_outcome(self, seat: int, recorded: SeatOutcome) -> SeatOutcome:
        t = self.seats[seat]
        if not t.out:
            if t.moves == 0 and recorded.status == "out" and recorded.at is None:
                return recorded  # never asked anything: its start-up cannot be checked
            # The referee records failures only for seats that went out; accept either.
            failures = recorded.failures if recorded.failures in (0, t.failures) else t.failures
            return SeatOutcome(seat, failures=failures)
        reason = t.reason
        if t.at is None:  # out at start-up: any failure may have kept it from starting
            reason = recorded.reason if recorded.reason in _FAILURES else "a failure"
        return SeatOutcome(seat, "out", reason, t.at, failures=t.failures)

    def check_result(self, state: State) -> None:
        r = self.replay.result
        assert r is not None
        if not state.is_over():
            self.problem("result: the recorded moves do not finish the game")
            return
        game_result = state.result()
        if list(game_result.scores) != r.scores:
            self.problem(f"result scores: expected {_show(list(game_result.scores))}, "
                         f"found {_show(r.scores)}")
        if list(game_result.places) != r.game_places:
            self.problem(f"result game_places: expected {_show(list(game_result.places))}, "
                         f"found {_show(r.game_places)}")
        expected = [self.expected_outcome(s, o) for s, o in enumerate(r.seats)]
        for want, got in zip(expected, r.seats, strict=True):
            for name in ("status", "reason", "at", "failures"):
                w, g = getattr(want, name), getattr(got, name)
                if w != g:
                    self.problem(
                        f"result seats[{want.seat}].{name}: expected {_show(w)}, found {_show(g)}"
                    )
        places = final_places(game_result.places, expected)
        if places != r.places:
            self.problem(f"result places: expected {_show(places)}, found {_show(r.places)}")
        if self.decisions != r.decisions:
            self.problem(f"result decisions: expected {self.decisions}, found {r.decisions}")
        self.report.complete = True

    def run(self) -> Report:
        game = self.load_game()
        if game is None:
            return self.report
        self.check_header(game)
        try:
            state = new_game(self.replay, game)
        except ReplayError as e:
            self.problem(str(e))
            return self.report
        whole = True
        for step in self.replay.steps:
            if not self.check_step(step, state):
                whole = False
                break
            self.report.steps += 1
        self.check_default_runs()
        if len(self.chain_mismatches) > 1:
            self.problem(
                f"chains also differ at {len(self.chain_mismatches) - 1} later steps "
                f"(the last at step {self.chain_mismatches[-1]})"
            )
        if len(self.hash_mismatches) > 1:
            self.problem(
                f"state hashes also differ at {len(self.hash_mismatches) - 1} later steps "
                f"(the last at step {self.hash_mismatches[-1]})"
            )
        if whole and self.replay.result is not None:
            self.check_result(state)
        if self.dropped:
            self.report.problems.append(f"... and {self.dropped} more differences")
        return self.report


def check(replay: Replay, game: Game | None = None) -> Report:
    """Every difference between what ``replay`` claims and what re-playing it gives.

    ``game`` defaults to the registered game the header names; ReplayError if that is
    not installed."""
    return _Checker(replay, game).run()


def verify(replay: Replay, game: Game | None = None) -> int:
    """Check everything the replay claims (see :func:`check`).

    Returns the number of steps checked; raises :class:`ReplayMismatch` listing every
    difference (or :class:`ReplayError` if the game it names is not installed)."""
    report = check(replay, game)
    if report.problems:
        raise ReplayMismatch(report.problems)
    return report.steps
