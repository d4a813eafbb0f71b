"""The viewer's payload: every view of every step rebuilt from the frames' operations
equals what the engine's observe gives; moves carry the legal list with the choice."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from niwa.engine import JSON
from niwa.referee import replay as replays
from niwa.referee.replay import ReplayError
from niwa.web import replay_view
from niwa.web.replay_view import MAX_STEPS, apply, diff, replay_payload
from tests.web.matches import GAMES, play


@pytest.fixture(scope="module")
def replay_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("replays")
    return {game: play(game, directory, seats=3 if game == "sakura" else 2) for game in GAMES}


def _plain(value: object) -> JSON:
    return json.loads(json.dumps(value))  # type: ignore[no-any-return]


def _payload(replay: replays.Replay) -> dict[str, Any]:
    """The payload as the browser gets it (through JSON)."""
    payload = _plain(replay_payload(replay))
    assert isinstance(payload, dict)
    return payload


@pytest.mark.parametrize("game", GAMES)
def test_every_frame_rebuilds_every_seats_observation(
    game: str, replay_files: dict[str, Path]
) -> None:
    replay = replays.read(replay_files[game])
    payload = _payload(replay)
    frames = payload["frames"]
    players = replay.header.players
    states = [replays.new_game(replay, replay.game())]
    states += [after.clone() for _, _, after in replays.states(replay)]
    assert len(frames) == len(states) == len(replay.steps) + 1
    views: list[JSON] = []
    for frame, state in zip(frames, states, strict=True):
        ops = frame["ops"]
        if not views:
            spectator = apply(None, ops[0])
            views = [spectator, *(apply(spectator, o) for o in ops[1:])]
        else:
            views = [apply(v, ops[i] if ops[i] is not None else ops[0])
                     for i, v in enumerate(views)]
        expected = [_plain(state.observe(seat)) for seat in (None, *range(players))]
        assert views == expected


def test_a_decision_lists_its_legal_actions_with_the_choice_marked(
    replay_files: dict[str, Path],
) -> None:
    payload = replay_payload(replays.read(replay_files["blossom"]))
    moves = [m for f in payload["frames"] for m in f["moves"]]  # type: ignore[union-attr]
    decisions = [m for m in moves if m["seat"] != -1]
    assert decisions
    for m in decisions:
        assert m["legal"][m["chosen"]] == m["action"]
        assert m["legal_count"] >= len(m["legal"])


def test_the_payload_is_much_smaller_than_every_view_whole(replay_files: dict[str, Path]) -> None:
    replay = replays.read(replay_files["miyabi"])
    size = len(json.dumps(replay_payload(replay)))
    whole = sum(len(json.dumps(before.observe(s))) for _, before, _ in replays.states(replay)
                for s in (None, 0, 1))
    assert size < whole / 5


def test_the_result_keeps_the_failure_class_and_step_but_not_stderr(
    replay_files: dict[str, Path],
) -> None:
    replay = replays.read(replay_files["blossom"])
    assert replay.result is not None
    out = dataclasses.replace(replay.result.seats[1], status="out", reason="CRASHED", at=7,
                              stderr_tail=["Traceback: secret path /home/owner"])
    seats = [replay.result.seats[0], out]
    replay.result = dataclasses.replace(replay.result, seats=seats)
    result = replay_payload(replay)["result"]
    assert isinstance(result, dict)
    assert result["seats"][1] == {"seat": 1, "status": "out", "reason": "CRASHED", "at": 7,  # type: ignore[index]
                                  "failures": 0}
    assert "secret" not in json.dumps(result)


def test_a_replay_longer_than_the_viewer_shows_is_refused(replay_files: dict[str, Path]) -> None:
    replay = replays.read(replay_files["blossom"])
    replay.steps = replay.steps * (MAX_STEPS // len(replay.steps) + 1)
    with pytest.raises(ReplayError, match=f"at most {MAX_STEPS}"):
        replay_payload(replay)


def test_a_forged_move_is_a_replay_error(replay_files: dict[str, Path]) -> None:
    replay = replays.read(replay_files["miyabi"])
    i = next(i for i, s in enumerate(replay.steps) if s.kind == "decision")
    move = dataclasses.replace(replay.steps[i].moves[0], action={"type": "nonsense"})
    replay.steps[i] = dataclasses.replace(replay.steps[i], moves=[move])
    with pytest.raises(ReplayError, match=f"step {i}"):
        replay_payload(replay)


def test_diff_and_apply_handle_added_removed_keys_and_resized_lists() -> None:
    old: JSON = {"a": [1, 2, 3], "b": {"x": 1, "y": 2}, "c": None}
    new: JSON = {"a": [1, 5], "b": {"x": 1, "z": [1]}, "c": 0, "d": [1, 2]}
    assert apply(old, diff(old, new)) == new
    assert apply(new, diff(new, old)) == old
    assert old == {"a": [1, 2, 3], "b": {"x": 1, "y": 2}, "c": None}  # left as it was


def test_a_long_legal_list_is_cut_but_keeps_the_choice(
    replay_files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replay_view, "LEGAL_SHOWN", 2)
    payload = replay_payload(replays.read(replay_files["miyabi"]))
    moves = [m for f in payload["frames"] for m in f["moves"]]  # type: ignore[union-attr]
    cut = [m for m in moves if m["seat"] != -1 and m["legal_count"] > 2]
    assert cut
    for m in cut:
        assert len(m["legal"]) == 2
        assert m["legal"][m["chosen"]] == m["action"]


def test_the_seed_travels_as_a_string_that_keeps_every_digit(tmp_path: Path) -> None:
    seed = 2**62 - 12_345  # past 2**53: a JSON number would round it in the browser
    replay = replays.read(play("blossom", tmp_path, seed=seed))
    assert replay.header.seed == seed  # the file keeps the number (its format is a contract)
    payload = json.loads(json.dumps(replay_payload(replay)))
    assert payload["seed"] == str(seed)


@pytest.mark.parametrize("game", GAMES)
def test_every_frame_carries_the_spectators_running_score_and_the_last_the_breakdown(
    game: str, replay_files: dict[str, Path]
) -> None:
    replay = replays.read(replay_files[game])
    payload = _payload(replay)
    frames = payload["frames"]
    score_now = replay.game().score_now()
    assert score_now is not None
    for index in (0, len(frames) // 2, len(frames) - 1):
        spectator = replay_view.views_at(payload, index)[0]
        assert isinstance(spectator, dict)
        assert frames[index]["score"] == score_now(spectator)
    assert payload["result"] is not None
    assert frames[-1]["score"] == payload["result"]["scores"]
    assert payload["breakdown"]["rows"][-1]["label"] == "place"


def test_a_decisions_legal_list_has_its_words_beside_the_json(
    replay_files: dict[str, Path]
) -> None:
    payload = _payload(replays.read(replay_files["sakura"]))
    move = next(m for f in payload["frames"] for m in f["moves"] if m["seat"] >= 0)
    assert len(move["legal_text"]) == len(move["legal"])
    assert move["legal_text"][move["chosen"]] == move["text"]
