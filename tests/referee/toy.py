"""A tiny scripted game for referee tests: chance, single and simultaneous decisions.

Each round chance rolls a die (1-3); then the seat on turn chooses "take" (scores the
die) or "pass"; every third round all seats also answer at once whether the next roll is
high ("hi"/"lo") and score 1 if right. The game lasts ``rounds`` rounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa.engine import (
    CHANCE,
    Game,
    GameInfo,
    IllegalAction,
    Option,
    Result,
    Rng,
    State,
    places_from_keys,
)


class ToyState(State):
    def __init__(self, players: int, rounds: int) -> None:
        self.players = players
        self.rounds = rounds
        self.round = 0
        self.die = 0
        self.phase = "roll"  # roll -> take -> (guess) -> roll ...
        self.scores = [0] * players
        self.guesses: dict[int, str] = {}

    def to_move(self) -> tuple[int, ...]:
        if self.round >= self.rounds:
            return ()
        if self.phase == "roll":
            return (CHANCE,)
        if self.phase == "take":
            return (self.round % self.players,)
        return tuple(range(self.players))

    def legal_actions(self, seat: int) -> list[Any]:
        if seat not in self.to_move() or seat == CHANCE:
            return []
        return ["take", "pass"] if self.phase == "take" else ["hi", "lo"]

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        return [(d, 1 / 3) for d in (1, 2, 3)] if self.phase == "roll" else []

    def apply(self, joint: Mapping[int, Any]) -> None:
        seats = self.to_move()
        if set(joint) != set(seats):
            raise IllegalAction("toy §1", f"expected moves for {seats}")
        if seats == (CHANCE,):
            if joint[CHANCE] not in (1, 2, 3):
                raise IllegalAction("toy §2", "a die shows 1 to 3")
            for seat, guess in self.guesses.items():
                self.scores[seat] += (guess == "hi") == (joint[CHANCE] >= 2)
            self.guesses = {}
            self.die, self.phase = joint[CHANCE], "take"
            return
        for seat in seats:
            if joint[seat] not in self.legal_actions(seat):
                raise IllegalAction("toy §3", f"seat {seat} cannot {joint[seat]!r}")
        if self.phase == "take":
            if joint[seats[0]] == "take":
                self.scores[seats[0]] += self.die
            self.phase = "guess" if self.round % 3 == 2 else "roll"
            if self.phase == "roll":
                self.round += 1
        else:
            self.guesses = dict(joint)
            self.phase = "roll"
            self.round += 1

    def observe(self, seat: int | None) -> dict[str, Any]:
        return {"round": self.round, "die": self.die, "phase": self.phase,
                "scores": list(self.scores)}

    def result(self) -> Result:
        return Result(tuple(float(s) for s in self.scores), places_from_keys(self.scores))

    def clone(self) -> ToyState:
        return ToyGame().from_json(self.to_json())

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players, "rounds": self.rounds, "round": self.round,
                "die": self.die, "phase": self.phase, "scores": list(self.scores),
                "guesses": {str(k): v for k, v in self.guesses.items()}}

    def render(self, seat: int | None = None) -> str:
        return f"round {self.round} die {self.die} scores {self.scores}"

    def describe(self, seat: int, action: Any) -> str:
        return f"rolls {action}" if seat == CHANCE else f"seat {seat}: {action}"


class ToyGame(Game):
    info = GameInfo("toy", "toy@1", 2, 4, simultaneous=True, chance=True,
                    hidden_information=False,
                    options=(Option("rounds", "int", 6, "rounds to play", minimum=1),))

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> ToyState:
        opts = self.info.validate(players, options)
        return ToyState(players, opts["rounds"])

    def from_json(self, data: Mapping[str, Any]) -> ToyState:
        s = ToyState(data["players"], data["rounds"])
        s.round, s.die, s.phase = data["round"], data["die"], data["phase"]
        s.scores = list(data["scores"])
        s.guesses = {int(k): v for k, v in data["guesses"].items()}
        return s

    def determinize(self, observation: Mapping[str, Any], seat: int, rng: Rng) -> ToyState:
        raise NotImplementedError("the toy game has no hidden information")


GAME = ToyGame()
