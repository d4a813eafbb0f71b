"""A game that does not end within the match's step limit is stopped with EndlessMatch:
some rules let the seats go on for ever (Bonsai's players may both Cultivate and place
nothing), and two bots that do so must not hold a referee, a ladder worker or a series
for ever, nor write a replay longer than a replay may be."""

from __future__ import annotations

import random
import uuid
from dataclasses import replace

import pytest

from niwa import engine
from niwa.cli import main
from niwa.commands import play as play_command
from niwa.errors import CommandError
from niwa.referee.match import BotSpec, EndlessMatch, MatchSpec, play_match
from niwa.referee.replay import MAX_STEPS
from niwa.series import games
from niwa.series.games import GameJob
from tests.referee.sandboxing import leftover_processes
from tests.referee.toy import GAME


def test_the_step_limit_is_what_a_replay_may_hold() -> None:
    assert MatchSpec(game=GAME, bots=[]).max_steps == MAX_STEPS


def test_players_who_only_cultivate_nothing_never_end_a_bonsai_game() -> None:
    # The rules (docs/games/bonsai.md): the game ends once the deck runs out, and only
    # Meditate takes cards from it; a Cultivate may place no tile at all.
    state = engine.load("bonsai").new_game(2)
    while state.to_move() == (engine.CHANCE,):
        state.apply({engine.CHANCE: state.sample_chance(random.Random(1))})
    deck = state.observe(0)["deck_size"]
    for _ in range(500):
        seat = state.to_move()[0]
        for wanted in ("cultivate", "end_placing"):
            action = next(a for a in state.legal_actions(seat) if a["type"] == wanted)
            state.apply({seat: action})
    assert not state.is_over() and state.observe(0)["deck_size"] == deck


def test_a_match_past_its_step_limit_stops_naming_it() -> None:
    spec = MatchSpec(
        game=GAME, bots=[BotSpec.parse("builtin:random")] * 2, options={"rounds": 50},
        in_process=True, max_steps=12,
    )
    with pytest.raises(EndlessMatch, match="did not end within 12 steps"):
        play_match(spec)


def test_sandboxed_bots_of_an_endless_match_are_stopped_and_reaped() -> None:
    match_id = f"endless-{uuid.uuid4().hex[:8]}"  # another run's leftovers are not ours
    spec = MatchSpec(
        game=GAME, bots=[BotSpec.parse("builtin:random")] * 2, options={"rounds": 50},
        max_steps=12, match_id=match_id,
    )
    with pytest.raises(EndlessMatch, match="did not end within 12 steps"):
        play_match(spec)
    assert leftover_processes(match_id) == []


def test_niwa_play_says_the_match_had_no_end_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def endless(spec: MatchSpec) -> None:
        raise EndlessMatch("the game did not end within 100,000 steps")

    monkeypatch.setattr(play_command, "play_match", endless)
    code = main(["play", "bonsai", "--bot", "builtin:random", "--bot", "builtin:random"])
    assert code == 1
    assert "niwa play: error: the game did not end within 100,000 steps" in capsys.readouterr().err


def test_a_series_stops_at_an_endless_game_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def endless(spec: MatchSpec) -> None:
        raise EndlessMatch("the game did not end within 100,000 steps")

    monkeypatch.setattr(games, "play_match", endless)
    job = GameJob(index=6, game="bonsai", bots=("builtin:random", "builtin:greedy"),
                  ids=("random", "greedy"), seed=41, time_control="1s+10s")  # fmt: skip
    with pytest.raises(CommandError, match=r"game 7 \(seed 41, builtin:random vs builtin:gr"):
        games.play_game(job)


def test_a_game_that_ends_within_the_limit_plays_as_before() -> None:
    spec = MatchSpec(
        game=GAME, bots=[BotSpec.parse("builtin:random")] * 2, options={"rounds": 5},
        in_process=True, seed=3,
    )
    unlimited = play_match(spec)
    limited = play_match(replace(spec, max_steps=12))
    assert unlimited.decisions <= 12
    assert (limited.result, limited.decisions) == (unlimited.result, unlimited.decisions)
