"""The vectorised environment (niwa.adapters.vector) and the games' feature encoders."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install niwa[rl])")

import numpy as np
from pettingzoo.test import parallel_api_test

from niwa import engine
from niwa.adapters import outcome
from niwa.adapters.features import GENERIC_VERSION, encode, encoder_for
from niwa.adapters.vector import VectorEnv, vector_env
from niwa.engine import CHANCE, JSON, Game, Rng, State
from niwa.engine.testing import playout
from tests.adapters.playouts import TABLES

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # PettingZoo's style hints

GAMES = engine.games()
RL_DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def random_actions(v: VectorEnv, infos: Mapping[str, Any], rng: random.Random) -> dict[str, Any]:
    """A uniformly random legal action for every seat to move in every game."""
    actions = {}
    for agent in v.possible_agents:
        chosen = np.zeros(v.games, np.int64)
        for g in np.flatnonzero(infos[agent]["to_move"]):
            chosen[g] = rng.choice(v.legal(agent, int(g)))
        actions[agent] = chosen
    return actions


def run(v: VectorEnv, seed: int, steps: int) -> list[Any]:
    """Every observation, mask and reward of ``steps`` random steps from ``seed``."""
    rng = random.Random(seed)
    obs, infos = v.reset(seed=seed)
    seen: list[Any] = [{a: {k: x.copy() for k, x in o.items()} for a, o in obs.items()}]
    for _ in range(steps):
        obs, rewards, _, _, infos = v.step(random_actions(v, infos, rng))
        seen.append({a: {k: x.copy() for k, x in o.items()} for a, o in obs.items()})
        seen.append(rewards)
    return seen


def same(a: list[Any], b: list[Any]) -> bool:
    return all(
        x.keys() == y.keys() and all(np.array_equal(_arrays(x[k]), _arrays(y[k])) for k in x)
        for x, y in zip(a, b, strict=True)
    )


def _arrays(value: Any) -> Any:
    return np.concatenate([v.ravel() for v in value.values()]) if isinstance(value, dict) else value


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_pettingzoo_parallel_api_test_passes(game: str, players: int) -> None:
    parallel_api_test(vector_env(game, players, games=3), num_cycles=150)


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_plays_the_same_batch(game: str) -> None:
    assert same(run(vector_env(game, games=4), 11, 60), run(vector_env(game, games=4), 11, 60))


@pytest.mark.parametrize("game", [g for g in GAMES if engine.load(g).info.chance])
def test_another_seed_deals_other_games(game: str) -> None:
    assert not same(run(vector_env(game, games=4), 11, 30), run(vector_env(game, games=4), 12, 30))


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_masks_are_the_engines_legal_moves_of_the_seats_to_move(game: str, players: int) -> None:
    v = vector_env(game, players, games=3)
    rng = random.Random(5)
    obs, infos = v.reset(seed=5)
    for _ in range(80):
        for seat, agent in enumerate(v.possible_agents):
            for g, table in enumerate(v.tables):
                row = set(np.flatnonzero(obs[agent]["action_mask"][g]).tolist())
                legal = table.legal_actions(seat) if seat in table.to_move() else []
                assert row == {v.space.actions.index(a) for a in legal}
                assert bool(infos[agent]["to_move"][g]) == bool(legal)
        obs, _, _, _, infos = v.step(random_actions(v, infos, rng))


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_game_pays_its_places_and_starts_again(game: str) -> None:
    v = vector_env(game, players=2, games=2)
    rng = random.Random(3)
    _, infos = v.reset(seed=3)
    for _ in range(5000):
        playing = list(v.tables)
        _, rewards, terminated, _, infos = v.step(random_actions(v, infos, rng))
        done = infos[v.possible_agents[0]]["done"]
        if done.any():
            break
    else:
        pytest.fail("no game ended in 5000 steps")
    g = int(np.flatnonzero(done)[0])
    paid = [float(rewards[a][g]) for a in v.possible_agents]
    assert playing[g].is_over()
    assert paid == pytest.approx(outcome.rewards(playing[g].result()))
    assert not any(terminated.values())
    assert not v.tables[g].is_over()  # the next game of that slot is under way


@pytest.mark.parametrize("game", GAMES)
def test_an_action_outside_the_mask_is_refused_and_changes_nothing(game: str) -> None:
    v = vector_env(game, games=2)
    _, infos = v.reset(seed=1)
    before = [engine.state_hash(t) for t in v.tables]
    actions = random_actions(v, infos, random.Random(1))
    for agent in v.possible_agents:
        for g in np.flatnonzero(infos[agent]["to_move"]):
            legal = set(v.legal(agent, int(g)))
            actions[agent][g] = next(i for i in range(len(v.space.actions)) if i not in legal)
            with pytest.raises(ValueError, match=rf"{agent} may not play .* in game {g}"):
                v.step(actions)
            assert [engine.state_hash(t) for t in v.tables] == before
            return


@pytest.mark.parametrize("game", GAMES)
def test_the_env_uses_the_games_encoder_when_it_has_one(game: str) -> None:
    g = engine.load(game)
    own = g.feature_encoder(g.info.min_players)
    v = vector_env(game, games=1)
    assert own is not None and v.encoder.version == own.version
    assert v.observation_space("player_0")["observation"].shape == (1, own.size)


class _NoEncoder(Game):
    """A registered game seen through a class without the hook: the fallback applies."""

    def __init__(self, inner: Game) -> None:
        self.inner = inner
        self.info = inner.info

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> State:
        return self.inner.new_game(players, options)

    def from_json(self, data: Mapping[str, JSON]) -> State:
        return self.inner.from_json(data)

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> State:
        return self.inner.determinize(observation, seat, rng)


def test_a_game_without_an_encoder_gets_the_hashed_encoding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = GAMES[0]
    plain = _NoEncoder(engine.load(game))
    assert plain.feature_encoder(2) is None
    monkeypatch.setattr("niwa.adapters.vector.load", lambda name: plain)
    v = vector_env(game, games=2, observation_size=64)
    assert v.encoder.version == f"{GENERIC_VERSION}@64"
    obs, _ = v.reset(seed=2)
    table = v.tables[0]
    seat = table.to_move()[0]
    row = obs[f"player_{seat}"]["observation"][0]
    assert np.array_equal(row, encode(table.observe(seat), 64))


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_encoders_give_fixed_size_finite_float32_rows(game: str, players: int) -> None:
    g = engine.load(game)
    enc = encoder_for(g, players)
    for seed in range(3):
        for state, joint in playout(g, players, seed):
            for seat in joint:
                if seat != CHANCE:
                    row = np.zeros(enc.size, np.float32)
                    enc.write(state.observe(seat), row)
                    assert np.isfinite(row).all()


def _hidden_pairs(game: Game, players: int, seed: int) -> list[tuple[Any, Any, int]]:
    """Pairs of full states that agree on what one seat sees and differ in what it does
    not: two determinizations of its observation, from different generators."""
    rng = random.Random(seed)
    pairs = []
    for state, joint in playout(game, players, seed):
        seat = next((s for s in joint if s != CHANCE), None)
        if seat is None:
            continue
        view: Mapping[str, JSON] = state.observe(seat)
        a = game.determinize(view, seat, random.Random(rng.random()))
        b = game.determinize(view, seat, random.Random(rng.random()))
        if a.snapshot_text() != b.snapshot_text():
            pairs.append((a, b, seat))
    return pairs


@pytest.mark.parametrize(
    ("game", "players"), [(g, n) for g, n in TABLES if engine.load(g).info.hidden_information]
)
def test_encoders_hold_nothing_hidden_from_the_seat(game: str, players: int) -> None:
    g = engine.load(game)
    enc = encoder_for(g, players)
    pairs = _hidden_pairs(g, players, 8)
    assert pairs, "no position had hidden parts to differ in"
    for a, b, seat in pairs:
        ra, rb = np.zeros(enc.size, np.float32), np.zeros(enc.size, np.float32)
        enc.write(a.observe(seat), ra)
        enc.write(b.observe(seat), rb)
        assert np.array_equal(ra, rb)


def test_the_rl_docs_vector_snippet_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = RL_DOC.read_text(encoding="utf-8")
    section = text[text.index("## The vectorised environment") :]
    snippet = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert snippet is not None
    exec(compile(snippet.group(1), str(RL_DOC), "exec"), {})  # the docs are our own text
    assert "steps" in capsys.readouterr().out


def test_an_action_batch_of_the_wrong_length_is_refused_naming_the_count() -> None:
    v = vector_env(GAMES[0], games=3)
    _, infos = v.reset(seed=1)
    actions = random_actions(v, infos, random.Random(1))
    agent = next(a for a in v.possible_agents if infos[a]["to_move"].any())
    actions[agent] = actions[agent][:2]
    with pytest.raises(ValueError, match=r"has 2 entries: give one per game \(3\)"):
        v.step(actions)


def test_legal_moves_of_an_unknown_agent_are_refused_naming_the_agents() -> None:
    v = vector_env(GAMES[0], games=2)
    v.reset(seed=1)
    with pytest.raises(ValueError, match=r"no agent 'player_9' here: the agents are \['player_0'"):
        v.legal("player_9", 0)


def test_a_batch_whose_masks_outgrow_the_memory_cap_is_refused_naming_the_most_games() -> None:
    # Bonsai at 4 players has 232,496 actions a seat: 4,096 games would need 3.5 GiB
    with pytest.raises(ValueError, match=r"MiB of action masks.*run at most 288 games"):
        VectorEnv("bonsai", players=4, games=4096)
    assert VectorEnv("bonsai", players=4, games=288).games == 288
