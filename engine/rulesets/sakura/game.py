"""The Sakura game: its info, new games, snapshots and determinization."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.api import JSON, Game, GameInfo, Rng
from engine.rulesets.sakura import rules
from engine.rulesets.sakura.garden import GATE, Garden
from engine.rulesets.sakura.state import DEAL, SakuraState
from engine.rulesets.sakura.views import hidden_snapshot


def _garden(players: int) -> Garden:
    """Set-up (sakura.md §6 #1): Emperor on the torii, painters on the gate, 5 tokens
    each; the supply is the neutral tokens plus the unused colours (§5)."""
    cfg = rules.config()
    board = rules.board_for(players)
    painters = players + 1 if players == 2 else players  # the court painter (§9)
    return Garden(
        board=board,
        emperor=board.torii,
        painters=[GATE] * painters,
        tokens=[cfg.starting_tokens] * painters,
        supply=cfg.neutral_tokens + cfg.starting_tokens * (cfg.colours - painters),
        scored=[False] * len(board.sakura),
        bump_loss=cfg.bump_loss,
        bump_back=cfg.bump_back,
    )


class SakuraGame(Game):
    info = GameInfo(
        name="sakura",
        version=rules.VERSION,
        min_players=2,
        max_players=6,
        simultaneous=True,
        chance=True,
        hidden_information=True,
        options=rules.config().options,
    )

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> SakuraState:
        chosen = self.info.validate(players, options)
        deck = sorted(rules.decks()[chosen["deckMix"]])
        state = SakuraState(
            players, chosen, _garden(players), [[] for _ in range(players)], deck, []
        )
        # The deal is chance: one card at a time, round the table (§6 #1).
        state.draws = [s for _ in range(rules.config().hand_size) for s in range(players)]
        state.phase = DEAL
        return state

    def from_json(self, data: Mapping[str, JSON]) -> SakuraState:
        players: int = data["players"]
        options = self.info.validate(players, data["options"])
        garden = _garden(players)
        garden.emperor = data["emperor"]
        garden.painters = list(data["painters"])
        garden.tokens = list(data["tokens"])
        garden.supply = data["supply"]
        garden.scored = list(data["scored"])
        state = SakuraState(
            players,
            options,
            garden,
            [list(h) for h in data["hands"]],
            list(data["deck"]),
            list(data["discard"]),
        )
        state.phase = data["phase"]
        state.round = data["round"]
        state.played = [list(e) for e in data["played"]]
        state.cursor = data["cursor"]
        state.step = data["step"]
        state.halt = data["halt"]
        state.draws = list(data["draws"])
        state.supplier = data["supplier"]
        state.scorings = [dict(s, awards=[list(a) for a in s["awards"]]) for s in data["scorings"]]
        return state

    def determinize(self, observation: Mapping[str, JSON], seat: int, rng: Rng) -> SakuraState:
        return self.from_json(hidden_snapshot(observation, seat, rng))
