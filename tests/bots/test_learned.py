"""Learned values (niwa.bots.learned): training, the shipped weights, and the bots that
use them (builtin:mcts?eval=learned, builtin:policy)."""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from niwa import engine
from niwa.bots import heuristics, learned, value_training
from niwa.bots.builtin import create
from niwa.bots.builtin.mcts import MctsBot
from niwa.bots.sdk import GameStart, Turn
from niwa.bots.search import ISMCTS, SearchLimits
from niwa.cli import main
from niwa.engine.testing import playout
from niwa.referee.match import BotSpec, MatchSpec, play_match

SHIPPED = resources.files(learned.PACKAGE)
#: niwa's own games (a plug-in installed beside them ships no weights in niwa)
BUILT_IN = sorted(
    g for g in engine.games()
    if type(engine.load(g)).__module__.startswith("niwa.engine.rulesets.")
)


@pytest.fixture(autouse=True)
def _fresh_weights() -> None:
    learned.weights_for.cache_clear()


def shipped_games() -> list[str]:
    return sorted(p.name[: -len(".json")] for p in SHIPPED.iterdir() if p.name.endswith(".json"))


def test_every_built_in_game_ships_a_learned_value() -> None:
    assert shipped_games() == BUILT_IN == ["blossom", "bonsai", "miyabi", "sakura"]


@pytest.mark.parametrize("game", BUILT_IN)
def test_the_shipped_weights_hash_matches_their_provenance(game: str) -> None:
    provenance = json.loads((SHIPPED / f"{game}.json").read_text(encoding="utf-8"))
    path = Path(str(SHIPPED / provenance["file"]))
    assert learned.file_sha256(path) == provenance["sha256"]
    trained = provenance["trained"]
    assert trained["command"].startswith(f"niwa train value {game} ")
    assert trained["games"] >= 1 and trained["positions"] >= 1


@pytest.mark.parametrize("game", BUILT_IN)
def test_the_shipped_weights_load_and_value_every_seat_in_0_1(game: str) -> None:
    g = engine.load(game)
    players = max(2, g.info.min_players)
    evaluate = learned.evaluation(game, players)
    for state, _ in playout(g, players, seed=3):
        values = evaluate(state)
        assert len(values) == players
        assert all(0.0 <= v <= 1.0 for v in values)


def test_an_untrained_network_is_the_heuristic_itself() -> None:
    game = engine.load("sakura")
    positions = [
        value_training.selfplay(game, 2, seed, iterations=3).labelled(0.5) for seed in range(2)
    ]
    net = value_training.fit(positions, hidden=4, epochs=0, seed=0).network
    x = np.concatenate([p[0] for p in positions]).astype(np.float64)
    assert np.allclose(net(x), np.clip(x[:, -1], learned.EDGE, 1 - learned.EDGE))


def test_self_play_labels_every_seats_rows_with_its_final_reward() -> None:
    game = engine.load("blossom")
    x, y = value_training.selfplay(game, 3, seed=4, iterations=3).labelled(share=0.0)
    assert x.shape == (len(y), learned.Inputs(game, 3).size)
    rewards = y.reshape(-1, 3)  # one row per seat at every decision
    assert (rewards == rewards[0]).all() and sorted(rewards[0]) == [0.0, 0.5, 1.0]


def test_the_positions_after_searched_moves_carry_the_search_value_and_no_outcome() -> None:
    game = engine.load("blossom")
    played = value_training.selfplay(game, 2, seed=4, iterations=40)
    after = np.isnan(played.outcome)
    assert after.any() and not np.isnan(played.search[after]).any()
    assert played.x.shape == (len(played.outcome), learned.Inputs(game, 2).size)
    x, y = played.labelled(share=0.0)  # the final places alone: the played positions
    assert len(x) == len(y) == int((~after).sum())
    assert np.isin(y, [0.0, 1.0]).all()


def test_a_played_positions_label_mixes_the_search_value_and_the_final_place() -> None:
    played = value_training.selfplay(engine.load("blossom"), 2, seed=4, iterations=40)
    _, y = played.labelled(share=0.25)
    both = ~np.isnan(played.search) & ~np.isnan(played.outcome)
    first = int(np.argmax(both))  # the first played position a seat searched
    mixed = 0.25 * played.search[first] + 0.75 * played.outcome[first]
    assert y[first] == pytest.approx(mixed)
    assert ((y >= 0.0) & (y <= 1.0)).all()


def test_the_values_of_two_seats_add_up_to_one_as_their_rewards_do() -> None:
    _, y = value_training.selfplay(engine.load("sakura"), 2, seed=4, iterations=40).labelled(0.5)
    pairs = y.reshape(-1, 2)  # a played position: both seats; after a move: mover, other
    assert np.allclose(pairs.sum(axis=1), 1.0)
    assert not np.isin(y, [0.0, 0.5, 1.0]).all()  # the search's values, not the places alone


def test_the_search_reports_each_root_actions_visits_and_value() -> None:
    game = engine.load("blossom")
    state = game.new_game(2)
    while state.to_move() == (engine.CHANCE,):
        state.apply({engine.CHANCE: state.sample_chance(random.Random(1))})
    (seat,) = state.to_move()
    legal = state.legal_actions(seat)
    search = ISMCTS(game, game.heuristic())
    index, info = search.choose(state.observe(seat), seat, legal, SearchLimits(iterations=200))
    view = search.root_view
    assert len(view.visits) == len(view.action_values) == len(legal)
    assert view.visits[index] == max(view.visits) == info["visits"]
    assert view.action_values[index] == pytest.approx(info["value"])
    assert all(0.0 <= v <= 1.0 for v in view.action_values)


def test_a_network_no_epoch_trained_values_as_the_heuristic_without_reading_features(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = engine.load("sakura")
    positions = [value_training.selfplay(game, 2, 1, iterations=3).labelled(0.5)]
    net = value_training.fit(positions, hidden=4, epochs=0, seed=0).network
    assert net.is_heuristic()
    monkeypatch.setattr(learned, "weights_for", lambda name: learned.Weights(net, {}))
    evaluate = learned.evaluation("sakura", 2)
    monkeypatch.setattr(learned.Inputs, "rows", None)  # never called
    for state, _ in playout(game, 2, seed=5):
        expected = np.clip(game.heuristic()(state), learned.EDGE, 1 - learned.EDGE)
        assert evaluate(state) == pytest.approx(expected.tolist())


@pytest.mark.parametrize("name", ["bonsai", "miyabi"])  # miyabi's reads no cells
def test_the_search_evaluation_computes_what_the_network_does(name: str) -> None:
    game = engine.load(name)
    net = learned.weights_for(name).network
    assert not net.is_heuristic()
    inputs = learned.Inputs(game, 3)
    evaluate = learned.evaluation(name, 3)
    for state, _ in playout(game, 3, seed=5):
        assert evaluate(state) == pytest.approx(net(inputs.rows(state)).tolist(), abs=1e-6)


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_batch_is_valued_as_each_of_its_states_alone(name: str) -> None:
    game = engine.load(name)
    evaluate = learned.evaluation(name, 3)
    assert isinstance(evaluate, heuristics.BatchEvaluation)
    net, rows = learned.weights_for(name).network, learned.Inputs(game, 3).rows
    states = [state.clone() for state, _ in playout(game, 3, seed=5)]
    states = [s for s in states if not s.is_over()]
    batch = evaluate.many(states)
    assert len(batch) == len(states)
    for state, values in zip(states, batch, strict=True):
        assert values == pytest.approx(evaluate(state), abs=1e-6)
        assert values == pytest.approx(net(rows(state)).tolist(), abs=1e-6)


class _CountedBatches:
    """The heuristic as a batch evaluation, counting the batches' sizes."""

    def __init__(self, game: engine.Game) -> None:
        heuristic = game.heuristic()
        assert heuristic is not None
        self.one = heuristic
        self.sizes: list[int] = []

    def __call__(self, state: engine.State) -> list[float]:
        return self.one(state)

    def many(self, states: Any) -> list[list[float]]:
        self.sizes.append(len(states))
        return [self.one(s) for s in states]


@pytest.mark.parametrize(("name", "players"), [("miyabi", 2), ("sakura", 3)])
def test_seeding_values_a_nodes_moves_in_one_batch_and_searches_the_same(
    name: str, players: int
) -> None:
    game = engine.load(name)
    batched = _CountedBatches(game)
    one_by_one = batched.one.__call__  # not the game's own: both draw what it is blind to
    for state, _ in playout(game, players, seed=3):
        seats = state.to_move()
        if state.is_over() or seats == (engine.CHANCE,):
            continue
        seat = seats[0]
        legal = state.legal_actions(seat)
        if len(legal) < 2:
            continue
        views = []
        for evaluate in (one_by_one, batched):
            search = ISMCTS(game, evaluate, rng=random.Random(7))
            search.choose(state.observe(seat), seat, legal, SearchLimits(iterations=60))
            views.append(search.root_view)
        assert views[0] == views[1]
    assert batched.sizes and max(batched.sizes) > 2
    assert sum(batched.sizes) > 2 * len(batched.sizes)


def test_a_feature_group_left_out_keeps_every_other_input_and_the_heuristic() -> None:
    groups = {"board": ((1, 3), (5, 6)), "hand": ((3, 4),)}
    assert value_training.columns_without(groups, [], 8) is None
    assert value_training.columns_without(groups, ["board"], 8).tolist() == [0, 3, 4, 6, 7]
    assert value_training.columns_without({"all": ((0, 8),)}, ["all"], 8).tolist() == [7]
    with pytest.raises(ValueError, match="no feature group 'cards'; this game's groups: board, h"):
        value_training.columns_without(groups, ["cards"], 8)


def test_a_network_fitted_without_a_group_reads_whole_rows_and_ignores_that_group() -> None:
    game = engine.load("miyabi")
    played = [value_training.selfplay(game, 2, seed, iterations=3) for seed in range(3)]
    inputs = played[0].x.shape[1]
    encoder = learned.encoder_of(game, 2)
    columns = value_training.columns_without(encoder.groups, ["cells"], inputs)
    assert columns is not None and len(columns) == inputs - 1152
    narrow = [p.labelled(0.5, columns) for p in played]
    whole = [p.labelled(0.5)[0] for p in played]
    assert all(np.array_equal(x, w[:, columns]) for (x, _), w in zip(narrow, whole, strict=True))
    fitted = value_training.fit(narrow, hidden=4, epochs=2, seed=0).network
    assert not fitted.is_heuristic()  # trained, so the check below means something
    wide = value_training.widened(fitted, columns, inputs)
    assert wide.w1.shape == (inputs, 4)
    x = np.concatenate(whole)
    scrambled = x.copy()
    left_out = np.setdiff1d(np.arange(inputs), columns)
    scrambled[:, left_out] = np.random.default_rng(0).random((len(x), len(left_out)))
    assert np.allclose(wide(scrambled), fitted(x[:, columns]))


def test_the_search_evaluation_of_a_network_without_a_group_computes_what_it_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = engine.load("miyabi")
    played = value_training.selfplay(game, 2, 2, iterations=3)
    inputs = played.x.shape[1]
    columns = value_training.columns_without(
        learned.encoder_of(game, 2).groups, ["cells"], inputs
    )
    fitted = value_training.fit([played.labelled(0.5, columns)], hidden=4, epochs=2, seed=0)
    net = value_training.widened(fitted.network, columns, inputs)
    monkeypatch.setattr(learned, "weights_for", lambda name: learned.Weights(net, {}))
    evaluate, rows = learned.evaluation("miyabi", 2), learned.Inputs(game, 2).rows
    for state, _ in playout(game, 2, seed=5):
        assert evaluate(state) == pytest.approx(net(rows(state)).tolist(), abs=1e-6)


def test_training_without_a_group_says_so_in_the_command_and_refuses_an_unknown_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["train", "value", "miyabi", "--games", "2", "--iterations", "2", "--epochs", "1",
            "--hidden", "4", "--dir", str(tmp_path)]  # fmt: skip
    assert main([*args, "--without", "hand"]) == 2
    said = capsys.readouterr().err
    assert "--without: no feature group 'hand'; this game's groups: cells" in said
    assert main([*args, "--without", "cells"]) == 0
    trained = json.loads((tmp_path / "miyabi.json").read_text(encoding="utf-8"))["trained"]
    assert trained["command"].endswith(" --without cells")
    assert trained["without"] == ["cells"]


def test_training_saves_weights_with_provenance_and_resumes_without_replaying(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["train", "value", "sakura", "--iterations", "3", "--epochs", "2", "--hidden", "4",
            "--dir", str(tmp_path)]  # fmt: skip
    assert main([*args, "--games", "3"]) == 0
    games = sorted((tmp_path / "games").iterdir())
    assert len(games) == 3
    first = {p.name: p.read_bytes() for p in games}
    assert main([*args, "--games", "5"]) == 0
    assert "5 games (2 played now, 3 kept from before)" in capsys.readouterr().err
    assert all((tmp_path / "games" / name).read_bytes() == data for name, data in first.items())
    provenance = json.loads((tmp_path / "sakura.json").read_text(encoding="utf-8"))
    assert provenance["sha256"] == learned.file_sha256(tmp_path / "sakura.npz")
    assert provenance["trained"]["games"] == 5
    monkeypatch.setenv("NIWA_VALUE_DIR", str(tmp_path))
    assert learned.weights_for("sakura").meta["trained"]["games"] == 5


def test_the_same_training_command_writes_the_same_weights_file_afresh_or_resumed(
    tmp_path: Path,
) -> None:
    args = ["train", "value", "sakura", "--iterations", "3", "--epochs", "2", "--hidden", "4"]
    assert main([*args, "--games", "3", "--dir", str(tmp_path / "afresh")]) == 0
    assert main([*args, "--games", "2", "--dir", str(tmp_path / "resumed")]) == 0
    assert main([*args, "--games", "3", "--dir", str(tmp_path / "resumed")]) == 0
    afresh, resumed = (
        json.loads((tmp_path / run / "sakura.json").read_text(encoding="utf-8"))
        for run in ("afresh", "resumed")
    )
    assert afresh["sha256"] == resumed["sha256"]
    assert (afresh["this_run"]["games_played"], resumed["this_run"]["games_played"]) == (3, 1)


def test_self_play_in_several_processes_plays_the_same_games_and_writes_the_same_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["train", "value", "sakura", "--iterations", "3", "--epochs", "2", "--hidden", "4",
            "--games", "4"]  # fmt: skip
    assert main([*args, "--jobs", "1", "--dir", str(tmp_path / "one")]) == 0
    assert main([*args, "--jobs", "2", "--dir", str(tmp_path / "two")]) == 0
    assert "4 games (4 played now, 0 kept from before)" in capsys.readouterr().err
    for i in range(4):
        name = f"game-{i:06d}.npz"
        with np.load(tmp_path / "one" / "games" / name) as a, np.load(
            tmp_path / "two" / "games" / name
        ) as b:
            assert sorted(a.files) == sorted(b.files)
            assert all(np.array_equal(a[k], b[k], equal_nan=True) for k in a.files)
    one, two = (
        json.loads((tmp_path / run / "sakura.json").read_text(encoding="utf-8"))
        for run in ("one", "two")
    )
    assert one["sha256"] == two["sha256"]
    assert one["trained"]["command"] == two["trained"]["command"]  # --jobs is not in it
    assert two["this_run"]["games_played"] == 4


def test_a_negative_jobs_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "value", "sakura", "--jobs", "-1", "--dir", str(tmp_path)]) == 2
    assert "--jobs must be 0 (the cores) or more, not -1" in capsys.readouterr().err


def test_resuming_with_other_settings_is_refused_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["train", "value", "sakura", "--games", "1", "--epochs", "1", "--dir", str(tmp_path)]
    assert main([*base, "--iterations", "2"]) == 0
    assert main([*base, "--iterations", "3"]) == 2
    assert "played with iterations 2, not 3" in capsys.readouterr().err


def test_a_folder_of_an_earlier_niwas_games_is_not_continued(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["train", "value", "sakura", "--games", "1", "--epochs", "1", "--iterations", "2",
            "--dir", str(tmp_path)]  # fmt: skip
    assert main(base) == 0
    settings = json.loads((tmp_path / "selfplay.json").read_text(encoding="utf-8"))
    del settings["kept"]  # as an earlier niwa wrote it
    (tmp_path / "selfplay.json").write_text(json.dumps(settings), encoding="utf-8")
    assert main(base) == 2
    assert "kept the final places alone" in capsys.readouterr().err


def test_an_earlier_niwas_game_file_reads_as_final_places_alone(tmp_path: Path) -> None:
    path = tmp_path / "game.npz"
    np.savez(path, x=np.ones((2, 3), np.float32), y=np.array([1.0, 0.0], np.float32))
    with np.load(path) as saved:
        played = value_training.Played.of(saved)
    x, y = played.labelled(share=0.25)
    assert x.shape == (2, 3) and y.tolist() == [1.0, 0.0]


def test_a_search_share_outside_0_to_1_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "value", "sakura", "--search-share", "1.5", "--dir", str(tmp_path)]) == 2
    assert "--search-share is a share from 0 to 1, not 1.5" in capsys.readouterr().err


def test_a_game_without_weights_names_the_command_that_makes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NIWA_VALUE_DIR", str(tmp_path))
    with pytest.raises(learned.NoLearnedValue, match="niwa train value miyabi"):
        learned.evaluation("miyabi", 2)


def test_weights_for_other_features_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    net = learned.Network(*(np.zeros(2) for _ in range(2)), np.zeros((2, 1)), np.zeros(1),
                          np.zeros(1), 1.0, 0.0)  # fmt: skip
    learned.save(tmp_path / "sakura.npz", net, {"game": "sakura", "encoder": "sakura-features/0"})
    monkeypatch.setenv("NIWA_VALUE_DIR", str(tmp_path))
    with pytest.raises(learned.NoLearnedValue, match=r"features sakura-features/0.*train it again"):
        learned.weights_for("sakura")


def test_mcts_takes_eval_learned_beside_its_effort() -> None:
    bot = create("mcts?eval=learned&iterations=20")
    assert isinstance(bot, MctsBot) and (bot.value, bot.iterations) == ("learned", 20)
    assert create("mcts").value == "heuristic"
    with pytest.raises(ValueError, match="give eval=heuristic or eval=learned"):
        create("mcts?eval=deep")


@pytest.mark.parametrize("spec", ["mcts?eval=learned&iterations=30", "policy"])
def test_the_learned_bots_play_legal_moves_to_the_end(spec: str) -> None:
    game = engine.load("blossom")
    bots = [create(spec), create("greedy")]
    for seat, bot in enumerate(bots):
        bot.start(GameStart("blossom", "blossom@1", seat, 2, {}, 1000, 10_000, 9))
    state, rng, decision = game.new_game(2), random.Random(9), 0
    while not state.is_over():
        movers = state.to_move()
        if movers == (engine.CHANCE,):
            state.apply({engine.CHANCE: state.sample_chance(rng)})
            continue
        joint = {}
        for seat in movers:
            legal = state.legal_actions(seat)
            decision += 1
            reply = bots[seat].act(Turn(decision, seat, state.observe(seat), legal, 10_000))
            joint[seat] = legal[reply.index]
        state.apply(joint)
    assert state.result().places


def test_a_self_play_game_past_the_decision_cap_gives_no_positions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Bonsai's rules let two players Cultivate nothing for ever; such games are dropped
    monkeypatch.setattr(value_training, "MAX_DECISIONS", 3)
    played = value_training.selfplay(engine.load("bonsai"), 2, seed=1, iterations=2)
    assert played.x.shape == (0, learned.Inputs(engine.load("bonsai"), 2).size)
    assert len(played.outcome) == len(played.search) == 0


def _sandboxed_learned_match(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NIWA_VALUE_DIR", str(folder))
    spec = MatchSpec(
        game="sakura", bots=[BotSpec.parse("builtin:mcts?eval=learned&iterations=5"),
                             BotSpec.parse("builtin:random")],
        seed=2, match_id=f"learned-{folder.name}",
    )  # fmt: skip
    return play_match(spec)  # built-in bots as sandboxed processes, as niwa play runs them


def test_a_sandboxed_built_in_bot_reads_the_folder_niwa_value_dir_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "sakura.npz").write_bytes(b"not weights")
    outcome = _sandboxed_learned_match(broken, monkeypatch)
    assert (outcome.seats[0].status, outcome.seats[0].reason) == ("out", "CRASHED")
    assert "is not a learned value" in outcome.seats[0].detail

    good = tmp_path / "good"
    good.mkdir()
    (good / "sakura.npz").write_bytes((SHIPPED / "sakura.npz").read_bytes())
    assert [s.status for s in _sandboxed_learned_match(good, monkeypatch).seats] == ["ok", "ok"]


def test_the_command_line_default_search_share_is_the_trainings_own() -> None:
    # spelled twice so that the command line starts without numpy: kept equal here
    from niwa.commands import train

    assert train.SEARCH_SHARE == value_training.SEARCH_SHARE
