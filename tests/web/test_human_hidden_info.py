"""The human seat's page gets only what its seat may see: across whole matches of every
game (several seeds, the person at different seats), every snapshot the page's event
stream sends (``Desk.snapshot``, sent as it is) is the same when it is rebuilt from a
world where everything the seat cannot see is drawn again (``Game.determinize``, as
the conformance leak checks do), and for a hidden-information game those worlds do
differ somewhere."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import trio

from niwa import engine
from niwa.engine import JSON, State
from niwa.referee.human import Desk, choices, shows_views
from niwa.referee.match import BotSpec, MatchSpec, run_match
from tests.web.matches import GAMES

SEEDS = (1, 2, 3)


class RecordingDesk(Desk):
    """A desk that keeps every snapshot it changes to, with the true state of then."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.state: State | None = None
        self.sent: list[tuple[dict[str, JSON], State]] = []

    def _bump(self) -> None:
        super()._bump()
        if self.state is not None:
            self.sent.append((self.snapshot(), self.state.clone()))


def play(game: str, seed: int, players: int) -> RecordingDesk:
    """A match of builtin:random bots and a person picking random moves at seat
    ``seed % players``; the person's desk, with everything it sent."""
    seat = seed % players
    desk = RecordingDesk(seat)
    bots = [BotSpec.parse("builtin:random") for _ in range(players)]
    bots[seat] = BotSpec.parse("human")

    def track(step: Any, before: Any, after: State) -> None:
        desk.state = after

    spec = MatchSpec(
        game, bots, seed=seed, in_process=True, humans={seat: desk},
        on_step=shows_views({seat: desk}, track),
    )  # fmt: skip

    async def person() -> None:
        desk.connect()
        rng = random.Random(seed)
        while not desk.closed:
            await desk.changed_since(desk.version - 1)
            question = desk.snapshot()["question"]
            if isinstance(question, dict):
                moves = question["moves"]
                assert isinstance(moves, list)
                desk.answer(int(question["decision"]), rng.randrange(len(moves)))  # type: ignore[call-overload]
            await desk.changed_since(desk.version)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(person)
            await run_match(spec)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return desk


def rebuilt(
    snapshot: dict[str, JSON], world: State, game: engine.Game, seat: int
) -> dict[str, JSON]:
    """``snapshot`` with what depends on the state made again from ``world``."""
    view = world.observe(seat)
    again = dict(snapshot)
    if snapshot["view"] is not None:
        again["view"] = view
    question = snapshot["question"]
    if isinstance(question, dict):
        legal = world.legal_actions(seat)
        asked = choices(world, seat, legal, view, game.board_parts())
        again["question"] = {**question, "moves": [c.to_json() for c in asked]}
    return again


@pytest.mark.parametrize("game_name", GAMES)
def test_no_payload_to_the_human_page_holds_another_seats_hidden_information(
    game_name: str,
) -> None:
    game = engine.load(game_name)
    varied = False
    checked = 0
    for seed in SEEDS:
        players = 2 + seed % 2
        desk = play(game_name, seed, players)
        rngs = (random.Random(seed + 5), random.Random(seed + 6))
        for snapshot, state in desk.sent:
            sent = json.loads(json.dumps(snapshot))  # as the event stream carries it
            obs = state.observe(desk.seat)
            worlds = [game.determinize(json.loads(json.dumps(obs)), desk.seat, r) for r in rngs]
            varied = varied or engine.state_hash(worlds[0]) != engine.state_hash(worlds[1])
            for world in worlds:
                again = json.loads(json.dumps(rebuilt(snapshot, world, game, desk.seat)))
                assert again == sent, (
                    f"{game_name} seed {seed}: a snapshot sent to seat {desk.seat}'s page "
                    "changes with what the seat cannot see"
                )
            checked += 1
    assert checked > 100
    assert varied or not game.info.hidden_information, (
        "the sampled worlds never differed: the check would see no leak"
    )
