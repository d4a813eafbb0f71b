"""High card: a tiny game that lives outside niwa's game packages and is not
registered, to show that niwa.engine.testing checks any Game object.

Rules (§ numbers are what IllegalAction cites): §1 six cards numbered 1 to 6; chance
deals one face down to each seat in turn. §2 Each seat in turn keeps its card or swaps
it: the old card goes face up to the discards and chance draws a new one. §3 When every
seat has chosen, all cards are shown; the highest card wins (the lowest with the option
``lowest_wins``). Hidden: the other seats' cards and the deck, until §3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from niwa import engine
from niwa.engine import CHANCE, JSON, Action, Game, GameInfo, IllegalAction, Option, Result, State

VERSION = "highcard@1"
CARDS = (1, 2, 3, 4, 5, 6)
CHOICES = ({"choice": "keep"}, {"choice": "swap"})


class HighCardState(State):
    def __init__(self, data: Mapping[str, Any]) -> None:
        self.players: int = data["players"]
        self.options: dict[str, Any] = dict(data["options"])
        self.cards: list[int | None] = list(data["cards"])
        self.deck: list[int] = sorted(data["deck"])
        self.discards: list[int] = list(data["discards"])
        self.decided: list[bool] = list(data["decided"])
        self.drawing: bool = data["drawing"]  # a swap's new card is pending (§2)

    def _chooser(self) -> int | None:
        return next((s for s in range(self.players) if not self.decided[s]), None)

    def phase(self) -> str:
        if None in self.cards:
            return "deal"
        return "over" if self._chooser() is None else "choose"

    def to_move(self) -> tuple[int, ...]:
        if None in self.cards or self.drawing:
            return (CHANCE,)
        chooser = self._chooser()
        return () if chooser is None else (chooser,)

    def legal_actions(self, seat: int) -> list[Action]:
        return [dict(c) for c in CHOICES] if self.to_move() == (seat,) else []

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.to_move() != (CHANCE,):
            return []
        return [({"card": c}, 1 / len(self.deck)) for c in self.deck]

    def apply(self, joint: Mapping[int, Action]) -> None:
        movers = self.to_move()
        if set(joint) != set(movers):
            raise IllegalAction(
                "highcard.md §2", f"seats {list(movers)} move now, not {list(joint)}"
            )
        (seat,) = movers
        action = joint[seat]
        if seat == CHANCE:
            if action not in [a for a, _ in self.chance_outcomes()]:
                raise IllegalAction("highcard.md §1", f"{action!r} is not a card in the deck")
            card = action["card"]
            self.deck.remove(card)
            if self.drawing:
                self.cards[self._chooser() or 0] = card
                self.decided[self._chooser() or 0] = True
                self.drawing = False
            else:
                self.cards[self.cards.index(None)] = card
            return
        if action not in CHOICES:
            raise IllegalAction("highcard.md §2", f"{action!r} is not keep or swap")
        if action["choice"] == "keep":
            self.decided[seat] = True
        else:
            old = self.cards[seat]
            assert old is not None
            self.discards.append(old)
            self.drawing = True

    def observe(self, seat: int | None) -> dict[str, JSON]:
        over = self.phase() == "over"
        obs = engine.envelope(VERSION, seat, self.players, self.phase(), self.to_move())
        obs["options"] = dict(self.options)
        obs["dealt"] = sum(c is not None for c in self.cards)
        obs["deck_size"] = len(self.deck)
        obs["discards"] = list(self.discards)
        obs["decided"] = list(self.decided)
        obs["drawing"] = self.drawing
        obs["card"] = self.cards[seat] if seat is not None else None
        obs["shown"] = list(self.cards) if over else None
        return obs

    def result(self) -> Result:
        # a seat scores its card, or 7 minus it when the lowest wins: more is better
        low = self.options["lowest_wins"]
        points = [(7 - (c or 0)) if low else (c or 0) for c in self.cards]
        return Result(scores=tuple(map(float, points)), places=engine.places_from_keys(points))

    def clone(self) -> HighCardState:
        return HighCardState(self.to_json())

    def to_json(self) -> dict[str, JSON]:
        return {
            "players": self.players,
            "options": dict(self.options),
            "cards": list(self.cards),
            "deck": list(self.deck),
            "discards": list(self.discards),
            "decided": list(self.decided),
            "drawing": self.drawing,
        }

    def render(self, seat: int | None = None) -> str:
        obs = self.observe(seat)
        mine = f", your card {obs['card']}" if obs["card"] is not None else ""
        shown = f", cards {obs['shown']}" if obs["shown"] else ""
        return f"{obs['phase']}: discards {obs['discards']}{mine}{shown}"

    def describe(self, seat: int, action: Action) -> str:
        return "a card is drawn" if seat == CHANCE else f"seat {seat} chooses {action['choice']}"


class HighCardGame(Game):
    info = GameInfo(
        name="highcard",
        version=VERSION,
        min_players=2,
        max_players=3,
        simultaneous=False,
        chance=True,
        hidden_information=True,
        options=(Option("lowest_wins", "bool", False, "the lowest card wins (§3)"),),
    )

    def new_game(self, players: int, options: Mapping[str, Any] | None = None) -> HighCardState:
        data = {
            "players": players,
            "options": self.info.validate(players, options),
            "cards": [None] * players,
            "deck": list(CARDS),
            "discards": [],
            "decided": [False] * players,
            "drawing": False,
        }
        return HighCardState(data)

    def from_json(self, data: Mapping[str, JSON]) -> HighCardState:
        return HighCardState(data)

    def determinize(
        self, observation: Mapping[str, JSON], seat: int, rng: engine.Rng
    ) -> HighCardState:
        """Deal the cards ``seat`` cannot see (other seats' cards, the deck) at random."""
        obs = observation
        players, dealt = int(obs["players"]), int(obs["dealt"])
        if obs["shown"] is not None:
            cards: list[int | None] = list(obs["shown"])
        else:
            unseen = [c for c in CARDS if c not in obs["discards"] and c != obs["card"]]
            rng.shuffle(unseen)
            # a seat that swapped holds its old, discarded card until the draw (§2)
            swapper = obs["decided"].index(False) if obs["drawing"] else None
            cards = [None] * players
            for s in range(dealt):
                if s == seat:
                    cards[s] = obs["card"]
                elif s == swapper:
                    cards[s] = obs["discards"][-1]
                else:
                    cards[s] = unseen.pop()
        known = {*obs["discards"], *(c for c in cards if c is not None)}
        return HighCardState(
            {
                "players": players,
                "options": obs["options"],
                "cards": cards,
                "deck": [c for c in CARDS if c not in known],
                "discards": obs["discards"],
                "decided": obs["decided"],
                "drawing": obs["drawing"],
            }
        )


GAME = HighCardGame()
