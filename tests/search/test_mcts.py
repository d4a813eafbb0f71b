"""builtin:mcts: its time budget, its options, and reproducible fixed-effort searches."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import niwa.bots.search
from niwa import engine
from niwa.bots import heuristics
from niwa.bots.builtin import create
from niwa.bots.builtin.mcts import CLOCK_SHARE, DECISION_SHARE, MARGIN_S, MctsBot
from niwa.bots.sdk import GameStart, Turn
from niwa.bots.search import ISMCTS, SearchLimits
from niwa.engine import CHANCE, State


def started(bot: MctsBot, game: str = "blossom", per_decision_ms: int = 1000) -> MctsBot:
    bot.start(GameStart(game, f"{game}@1", 0, 2, {}, per_decision_ms, 10_000, 5))
    return bot


def test_the_budget_is_a_safe_share_of_the_per_decision_time() -> None:
    bot = started(MctsBot(), per_decision_ms=1000)
    assert bot.budget(time_left_ms=60_000) == pytest.approx(1.0 * DECISION_SHARE - MARGIN_S)


def test_the_budget_never_exceeds_a_share_of_what_is_left_on_the_clock() -> None:
    bot = started(MctsBot(), per_decision_ms=1000)
    assert bot.budget(time_left_ms=2000) == pytest.approx(2.0 * CLOCK_SHARE - MARGIN_S)


def test_the_budget_stays_below_the_time_left_even_when_almost_none_is() -> None:
    bot = started(MctsBot(), per_decision_ms=100)
    for left_ms in (1, 10, 50, 100, 150):
        assert 0 < bot.budget(time_left_ms=left_ms) < left_ms / 1000 or left_ms < 10


def test_a_fixed_search_time_is_still_capped_by_the_clock() -> None:
    bot = started(MctsBot(seconds=5.0))
    assert bot.budget(time_left_ms=1000) == pytest.approx(1.0 * CLOCK_SHARE - MARGIN_S)
    assert bot.budget(time_left_ms=600_000) == 5.0


class FakeClock:
    """time.monotonic for the search: each reading is 1/64 s after the previous one
    (a binary fraction, so the sums are exact)."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1 / 64
        return self.now


@pytest.fixture
def fake_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    clock = FakeClock()
    monkeypatch.setattr(niwa.bots.search, "time", clock)
    yield clock


def midgame(name: str, players: int = 2, seed: int = 1, moves: int = 12) -> State:
    """A position a few random decisions into a game, at a decision of one seat."""
    state = engine.load(name).new_game(players, {})
    rng = random.Random(seed)
    done = 0
    while True:
        seats = state.to_move()
        if seats == (CHANCE,):
            state.apply({CHANCE: engine.sample_chance(state, rng)})
            continue
        if done >= moves and len(seats) == 1 and len(state.legal_actions(seats[0])) > 1:
            return state
        state.apply({s: rng.choice(state.legal_actions(s)) for s in seats})
        done += 1


def test_the_search_stops_at_its_deadline_and_starts_no_iteration_after_it(
    fake_clock: FakeClock,
) -> None:
    game = engine.load("blossom")
    state = midgame("blossom")
    seat = state.to_move()[0]
    search = ISMCTS(game, None, rng=random.Random(0))
    limits = SearchLimits(seconds=8 / 64)
    search.choose(state.observe(seat), seat, state.legal_actions(seat), limits)
    # The deadline is set at the first reading (1/64 + 8/64) and the clock is read again
    # before every iteration: readings 2/64 .. 8/64 start seven, 9/64 stops the search.
    assert search.iterations == 7
    assert fake_clock.now == 9 / 64


def test_a_fixed_iteration_search_runs_exactly_that_many_iterations() -> None:
    game = engine.load("miyabi")
    state = midgame("miyabi")
    seat = state.to_move()[0]
    search = ISMCTS(game, None, rng=random.Random(0))
    search.choose(state.observe(seat), seat, state.legal_actions(seat), SearchLimits(iterations=25))
    assert search.iterations == 25


@pytest.mark.parametrize("name", ["blossom", "sakura", "miyabi", "bonsai"])
def test_mcts_with_a_fixed_iteration_count_answers_the_same_every_time(name: str) -> None:
    state = midgame(name, moves=20)
    seat = state.to_move()[0]
    turn = Turn(20, seat, state.observe(seat), state.legal_actions(seat), 10_000, seed=3)
    replies = []
    for _ in range(2):
        bot = create("mcts?iterations=40")
        bot.start(GameStart(name, f"{name}@1", seat, 2, {}, 1000, 10_000, 9))
        replies.append(bot.act(turn))
    assert replies[0] == replies[1]


def test_one_legal_action_is_played_without_searching() -> None:
    bot = started(MctsBot(iterations=1000))
    reply = bot.act(Turn(0, 0, {}, [{"type": "only"}], 10_000))
    assert reply.index == 0 and reply.note.startswith("0 iterations")


def test_mcts_options_name_iterations_or_seconds() -> None:
    assert create("mcts?iterations=200").iterations == 200
    assert create("mcts?seconds=0.05").seconds == 0.05


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts?depth=3", "builtin:mcts has no option 'depth'; its options: iterations, seconds"),
        ("mcts?iterations=0", "must be a number above 0"),
        ("mcts?seconds=fast", "must be a number above 0"),
        ("mcts?iterations=5&seconds=1", "iterations or seconds, not both"),
        ("greedy?seconds=1", "builtin:greedy takes no options"),
        ("mcts?seconds", "write NAME?key=value"),
    ],
)
def test_a_bad_mcts_option_is_refused_with_the_fix(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("?", r"\?")):
        create(spec)


@pytest.mark.parametrize("name", ["miyabi", "bonsai"])
def test_reusing_seeded_values_changes_no_decision_without_hidden_information(
    name: str,
) -> None:
    game = engine.load(name)
    for moves in (4, 12, 24):
        state = midgame(name, players=3, moves=moves)
        seat = state.to_move()[0]
        answers = []
        for reuse in (True, False):
            search = ISMCTS(game, heuristics.for_game(name), rng=random.Random(5))
            search.reuse_values = reuse
            answers.append(search.choose(state.observe(seat), seat,
                                         state.legal_actions(seat), SearchLimits(iterations=150)))
        assert answers[0] == answers[1]


def _choices(
    name: str, setup: Callable[[ISMCTS], None], rollouts: bool = False
) -> list[tuple[int, dict[str, Any]]]:
    game = engine.load(name)
    answers = []
    for moves in (4, 12, 24):
        state = midgame(name, players=3, moves=moves)
        seat = state.to_move()[0]
        evaluate = None if rollouts else heuristics.for_game(name)
        search = ISMCTS(game, evaluate, rng=random.Random(5))
        setup(search)
        answers.append(search.choose(state.observe(seat), seat,
                                     state.legal_actions(seat), SearchLimits(iterations=200)))
    return answers


def _walk_again(search: ISMCTS) -> None:
    search.keep_states = False


@pytest.mark.parametrize("name", ["miyabi", "bonsai"])
def test_nodes_keeping_their_states_change_no_decision(name: str) -> None:
    assert _choices(name, lambda search: None) == _choices(name, _walk_again)


def test_rollouts_played_from_a_new_node_leave_the_kept_states_alone() -> None:
    # a rollout plays on in the state it values: that state must not be a kept one
    kept = _choices("miyabi", lambda search: None, rollouts=True)
    assert kept == _choices("miyabi", _walk_again, rollouts=True)


@pytest.mark.parametrize("name", ["miyabi", "bonsai"])
def test_a_search_past_its_kept_states_budget_walks_on_with_the_same_decisions(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(niwa.bots.search, "KEPT_STATES", 7)
    searches: list[ISMCTS] = []
    assert _choices(name, searches.append) == _choices(name, _walk_again)
    assert [search._kept for search in searches] == [7, 7, 7]


def test_the_search_leaves_the_cycle_collector_running() -> None:
    seen: list[bool] = []

    def evaluate(state: State) -> list[float]:
        seen.append(gc.isenabled())
        return [0.5, 0.5]

    state = midgame("miyabi")
    seat = state.to_move()[0]
    search = ISMCTS(engine.load("miyabi"), evaluate, rng=random.Random(0))
    search.choose(state.observe(seat), seat, state.legal_actions(seat), SearchLimits(iterations=20))
    assert seen and all(seen)


def _search_miyabi() -> None:
    state = midgame("miyabi")
    seat = state.to_move()[0]
    search = ISMCTS(engine.load("miyabi"), heuristics.for_game("miyabi"), rng=random.Random(0))
    search.choose(state.observe(seat), seat, state.legal_actions(seat), SearchLimits(iterations=20))


def test_a_search_leaves_no_object_frozen_out_of_the_collector() -> None:
    assert gc.get_freeze_count() == 0
    _search_miyabi()
    assert gc.get_freeze_count() == 0


def test_a_search_keeps_the_objects_its_caller_froze_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        _search_miyabi()
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("name", ["blossom", "sakura", "miyabi", "bonsai"])
def test_a_search_leaves_no_reference_cycles_for_the_collector(name: str) -> None:
    # the tree is freed by reference counts alone: the collector has nothing to find
    state = midgame(name, players=3)
    seat = state.to_move()[0]
    gc.collect()
    gc.disable()
    try:
        search = ISMCTS(engine.load(name), heuristics.for_game(name), rng=random.Random(1))
        search.choose(state.observe(seat), seat, state.legal_actions(seat),
                      SearchLimits(iterations=300))
        del search
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_an_actions_key_is_its_canonical_json_asked_again_or_rebuilt() -> None:
    search = ISMCTS(engine.load("miyabi"), None, rng=random.Random(0))
    shared = {"type": "play", "card": "a"}
    rebuilt = {"card": "a", "type": "play"}  # the same action spelled in another order
    keys = [search._key(a) for a in (shared, shared, rebuilt)]
    assert keys == [engine.canonical_json(shared)] * 3


def test_an_untried_action_is_picked_before_any_scored_one_and_every_arm_counts_as_available(
) -> None:
    search = ISMCTS(engine.load("miyabi"), None, rng=random.Random(0))
    arms = [niwa.bots.search._Arm(4, 3.9), niwa.bots.search._Arm(), niwa.bots.search._Arm(2, 0.1)]
    for arm in arms:
        arm.available = 7
    assert search._select(arms) == 1
    assert [arm.available for arm in arms] == [8, 8, 8]


def test_with_every_action_tried_the_best_upper_bound_is_picked() -> None:
    search = ISMCTS(engine.load("miyabi"), None, rng=random.Random(0))
    Arm = niwa.bots.search._Arm
    arms = [Arm(4, 2.0), Arm(4, 3.6), Arm(40, 20.0)]
    for arm in arms:
        arm.available = 48
    assert search._select(arms) == 1  # mean 0.9 beats 0.5 and 0.5, whatever the bonus
