"""Every game at every player count passes PettingZoo's own tests."""

from __future__ import annotations

from functools import partial

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install niwa[rl])")

import numpy as np
from pettingzoo.test import api_test, render_test, seed_test

from niwa import engine
from niwa.adapters.pettingzoo import NiwaEnv, env
from tests.adapters.playouts import TABLES

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's style hints


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_pettingzoo_api_test_passes(game: str, players: int) -> None:
    api_test(env(game, players), num_cycles=200)


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_pettingzoo_seed_test_passes(game: str, players: int) -> None:
    seed_test(partial(env, game, players), num_cycles=200)


@pytest.mark.parametrize("game", sorted({g for g, _ in TABLES}))
def test_pettingzoo_render_test_passes(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(partial(env, game, None))
    assert capsys.readouterr().out  # human mode printed the table


def play_out(e: NiwaEnv, seed: int) -> list[float]:
    """A random game with the mask; the final cumulative rewards by seat."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in e.agent_iter():
        obs, reward, done, truncated, _ = e.last()
        if done or truncated:
            final[agent] = reward
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return [final[a] for a in e.possible_agents]


def test_the_same_seed_deals_the_same_game_and_another_seed_another() -> None:
    a, b = env("blossom", 2), env("blossom", 2)
    a.reset(seed=3)
    b.reset(seed=3)
    assert a.table.to_json() == b.table.to_json()
    b.reset(seed=4)
    assert a.table.to_json() != b.table.to_json()


def test_chance_is_resolved_before_any_agent_is_asked() -> None:
    e = env("bonsai", 3)
    e.reset(seed=1)
    assert e.table.to_move() != (engine.CHANCE,)
    assert e.agent_selection == f"player_{e.table.to_move()[0]}"


def test_rewards_at_the_end_sum_to_zero_with_a_win_worth_one() -> None:
    rewards = play_out(env("miyabi", 2), seed=5)
    assert sum(rewards) == 0
    assert sorted(rewards) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_solo_game_pays_its_score() -> None:
    e = env("bonsai", 1)
    [reward] = play_out(e, seed=2)
    assert reward == e.table.result().scores[0]


def test_an_action_outside_the_mask_is_refused_and_changes_nothing() -> None:
    e = env("miyabi", 2)
    e.reset(seed=0)
    before = e.table.to_json()
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match="action_mask"):
        e.step(int(np.flatnonzero(mask == 0)[0]))
    assert e.table.to_json() == before


def test_simultaneous_choices_wait_until_every_seat_has_chosen() -> None:
    e = env("sakura", 3)
    e.reset(seed=0)
    seats = e.table.to_move()
    assert len(seats) == 3
    before = e.table.to_json()
    first = e.agent_selection
    e.step(int(np.flatnonzero(e.observe(first)["action_mask"])[0]))
    assert e.table.to_json() == before  # held, not applied
    assert e.agent_selection != first
    assert not e.observe(first)["action_mask"].any()  # it has chosen: nothing more to do


def test_info_lists_the_legal_actions_as_json() -> None:
    e = env("miyabi", 2)
    e.reset(seed=0)
    agent = e.agent_selection
    listed = e.infos[agent]["legal_actions"]
    mask = e.observe(agent)["action_mask"]
    assert sorted(e.space.actions.index(a) for a in listed) == list(np.flatnonzero(mask))
