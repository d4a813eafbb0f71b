"""builtin:greedy takes the obviously best move in scripted positions."""

from __future__ import annotations

from niwa.bots.builtin.greedy import GreedyBot
from niwa.engine.rulesets.sakura.rules import CHOICE_ACTIONS, decks
from tests.games.bonsai.table import play as bonsai_play
from tests.games.bonsai.table import supply
from tests.games.bonsai.table import table as bonsai_table
from tests.games.miyabi.scripted import scripted
from tests.games.sakura.table import play as sakura_play
from tests.games.sakura.table import table as sakura_table
from tests.search.helpers import ask


def test_miyabi_greedy_places_a_tile_on_the_highest_layer_it_can_reach() -> None:
    # A fish straight stands upright in column 4 (rows 3, 2, 1): a pagoda single placed
    # on its green cell in row 2 lies on layer 2 and scores 2, anywhere else 1 (miyabi.md §6.1).
    state = scripted(gardens={0: [("straight", "fish", 4, 3)]}, taken=("single", "pagoda"))
    action = ask(GreedyBot(), "miyabi", state, 0)
    assert (action["row"], action["col"]) == (2, 4)


def test_miyabi_greedy_takes_a_tile_rather_than_passing() -> None:
    state = scripted(middle=[("straight", "maple")])
    assert ask(GreedyBot(), "miyabi", state, 0)["type"] == "take"


def test_bonsai_greedy_places_a_leaf_rather_than_ending_its_cultivate() -> None:
    state = bonsai_table()
    supply(state, 0, leaf=1)
    bonsai_play(state, {"type": "cultivate"})
    action = ask(GreedyBot(), "bonsai", state, 0)
    assert action["type"] == "place" and action["tile"] == "leaf"


def test_sakura_greedy_steps_back_rather_than_walking_into_the_emperor() -> None:
    # Card 36: Emperor back 1 (16 -> 15), then the painter 2 forward or back. Seat 0 on
    # 14: forward walks into the Emperor (a token lost, back three spaces to 12,
    # sakura.md §6 #6); back reaches 12 too and keeps the token. The other seats' later
    # cards need no decision and cannot bring the Emperor to the next sakura (21).
    deck = decks()["default"]
    plain = [n for n, c in sorted(deck.items())
             if n > 36 and c.garden not in CHOICE_ACTIONS and c.painter not in CHOICE_ACTIONS]
    state = sakura_table(3, emperor=16, painters=[14, 5, 3], scored=[True, False, False],
                         hands=[[36], [plain[0]], [plain[1]]])
    state = sakura_play(state, {0: 36, 1: plain[0], 2: plain[1]})
    assert state.to_move() == (0,) and state.step == "painter"
    back = {"type": "painter", "direction": "back"}
    assert ask(GreedyBot(), "sakura", state, 0, players=3) == back
