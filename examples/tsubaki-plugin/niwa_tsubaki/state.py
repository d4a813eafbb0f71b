"""Tsubaki's state machine: deal (chance), bid, play, score (tsubaki.md §3-§7)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from niwa.engine import (
    CHANCE,
    JSON,
    Action,
    IllegalAction,
    Result,
    State,
    envelope,
    places_from_keys,
)

from niwa_tsubaki import cards, render
from niwa_tsubaki.actions import Phase
from niwa_tsubaki.rules import EXACT_BONUS, VERSION, cite

#: The fields of a snapshot, in the order to_json writes them.
FIELDS = (
    "players", "hand", "hook", "round", "dealer", "phase", "hands", "deck", "trump",
    "bids", "tricks_won", "leader", "trick", "tricks", "scores", "history",
)


class TsubakiState(State):
    """One game of Oh Hell. Every field is plain JSON, so a snapshot is ``vars``."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        missing = [f for f in FIELDS if f not in data]
        if missing:
            raise ValueError(f"a tsubaki snapshot needs {missing}; pass State.to_json()")
        d = copy.deepcopy(dict(data))
        self.players: int = d["players"]
        self.hand: int = d["hand"]  # cards in the first round (§2)
        self.hook: bool = d["hook"]
        self.round: int = d["round"]
        self.dealer: int = d["dealer"]
        self.phase: str = d["phase"]  # deal, bid, play or over
        self.hands: list[list[str]] = d["hands"]
        self.deck: list[str] = d["deck"]  # undealt cards, unordered (kept sorted)
        self.trump: str | None = d["trump"]  # the turned-up card
        self.bids: list[int | None] = d["bids"]
        self.tricks_won: list[int] = d["tricks_won"]
        self.leader: int = d["leader"]
        self.trick: list[list[Any]] = d["trick"]  # [seat, card] in play order
        self.tricks: list[dict[str, Any]] = d["tricks"]  # this round's finished tricks
        self.scores: list[int] = d["scores"]
        self.history: list[dict[str, Any]] = d["history"]  # finished rounds

    @classmethod
    def fresh(cls, players: int, hand: int, hook: bool) -> TsubakiState:
        state = cls({
            "players": players, "hand": hand, "hook": hook, "round": 0, "dealer": 0,
            "phase": Phase.DEAL.value, "hands": [], "deck": [], "trump": None, "bids": [],
            "tricks_won": [], "leader": 0, "trick": [], "tricks": [],
            "scores": [0] * players, "history": [],
        })
        state._start_round()
        return state

    # -- the round's numbers ------------------------------------------------------------

    @property
    def rounds(self) -> int:
        return self.hand  # one card fewer each round, down to one (§2)

    @property
    def hand_size(self) -> int:
        return self.hand - self.round

    def dealt(self) -> int:
        return sum(len(h) for h in self.hands)

    def bidder(self) -> int:
        made = sum(b is not None for b in self.bids)
        return (self.dealer + 1 + made) % self.players

    def forbidden_bid(self) -> int | None:
        """The dealer's bid that would make the total equal the cards each holds (§4)."""
        if not self.hook or self.bidder() != self.dealer:
            return None
        return self.hand_size - sum(b for b in self.bids if b is not None)

    def led_suit(self) -> str | None:
        return cards.suit(self.trick[0][1]) if self.trick else None

    # -- the engine contract -------------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        if self.phase == Phase.DEAL:
            return (CHANCE,)
        if self.phase == Phase.BID:
            return (self.bidder(),)
        if self.phase == Phase.PLAY:
            return ((self.leader + len(self.trick)) % self.players,)
        return ()

    def legal_actions(self, seat: int) -> list[Action]:
        if seat not in self.to_move() or seat == CHANCE:
            return []
        if self.phase == Phase.BID:
            no = self.forbidden_bid()
            return [{"bid": n} for n in range(self.hand_size + 1) if n != no]
        hand, led = self.hands[seat], self.led_suit()
        return [{"card": c} for c in hand if cards.follows(hand, c, led)]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase != Phase.DEAL:
            return []
        p = 1.0 / len(self.deck)
        return [({"card": c}, p) for c in self.deck]

    def apply(self, joint: Mapping[int, Action]) -> None:
        seats = self.to_move()
        if not seats:
            raise IllegalAction(cite(7), "the game is over: no move is taken")
        (seat,) = seats
        if set(joint) != {seat}:
            who = "chance" if seat == CHANCE else f"seat {seat}"
            raise IllegalAction(cite(9), f"it is {who}'s turn alone, not {sorted(joint)}'s")
        action = joint[seat]
        if seat == CHANCE:
            self._deal(self._card_of(action, self.deck, 3, "the undealt deck"))
        elif self.phase == Phase.BID:
            self._bid(seat, action)
        else:
            self._play(seat, action)

    @staticmethod
    def _card_of(action: Action, pool: list[str], section: int, where: str) -> str:
        card = action.get("card") if isinstance(action, dict) and len(action) == 1 else None
        if not isinstance(card, str) or card not in pool:
            raise IllegalAction(cite(section), f"{action!r} is not a card in {where}")
        return card

    def _deal(self, card: str) -> None:
        target = self.players * self.hand_size
        self.deck.remove(card)
        if self.dealt() < target:
            seat = (self.dealer + 1 + self.dealt()) % self.players
            self.hands[seat] = cards.sort_hand([*self.hands[seat], card])
        else:  # the card after the deal is turned up for trumps (§3)
            self.trump = card
            self.phase = Phase.BID

    def _bid(self, seat: int, action: Action) -> None:
        bid = action.get("bid") if isinstance(action, dict) and len(action) == 1 else None
        if isinstance(bid, bool) or not isinstance(bid, int):
            raise IllegalAction(cite(9), f"{action!r} is not a bid; bid like {{\"bid\": 1}}")
        if not 0 <= bid <= self.hand_size:
            raise IllegalAction(cite(4), f"a bid is 0 to {self.hand_size}, not {bid}")
        if bid == self.forbidden_bid():
            raise IllegalAction(
                cite(4), f"the dealer may not bid {bid}: the bids would add up to"
                f" {self.hand_size}, the cards each holds"
            )
        self.bids[seat] = bid
        if all(b is not None for b in self.bids):
            self.phase = Phase.PLAY

    def _play(self, seat: int, action: Action) -> None:
        hand = self.hands[seat]
        card = self._card_of(action, hand, 5, f"seat {seat}'s hand")
        led = self.led_suit()
        if not cards.follows(hand, card, led):
            raise IllegalAction(cite(5), f"{card} does not follow suit: play a card of {led}")
        hand.remove(card)
        self.trick.append([seat, card])
        if len(self.trick) < self.players:
            return
        plays = [(s, c) for s, c in self.trick]
        winner = cards.trick_winner(plays, cards.suit(self.trump) if self.trump else None)
        self.tricks.append({"leader": self.leader, "cards": self.trick, "winner": winner})
        self.tricks_won[winner] += 1
        self.leader, self.trick = winner, []
        if not any(self.hands):
            self._score_round()

    def _score_round(self) -> None:
        points = [
            EXACT_BONUS + t if b == t else 0
            for b, t in zip(self.bids, self.tricks_won, strict=True)
        ]
        self.scores = [s + p for s, p in zip(self.scores, points, strict=True)]
        self.history.append({
            "hand_size": self.hand_size, "trump": self.trump, "bids": self.bids,
            "tricks_won": self.tricks_won, "points": points,
        })
        if self.round + 1 == self.rounds:
            self.phase = Phase.OVER
            return
        self.round += 1
        self.dealer = (self.dealer + 1) % self.players
        self._start_round()

    def _start_round(self) -> None:
        n = self.players
        self.phase, self.deck, self.trump = Phase.DEAL, list(cards.DECK), None
        self.hands = [[] for _ in range(n)]
        self.bids, self.tricks_won = [None] * n, [0] * n
        self.leader, self.trick, self.tricks = (self.dealer + 1) % n, [], []

    def result(self) -> Result:
        return Result(tuple(float(s) for s in self.scores), places_from_keys(self.scores))

    def clone(self) -> TsubakiState:
        return TsubakiState(self.to_json())

    def to_json(self) -> dict[str, JSON]:
        return copy.deepcopy({f: getattr(self, f) for f in FIELDS})

    # -- views ---------------------------------------------------------------------------

    def observe(self, seat: int | None) -> dict[str, JSON]:
        """The public table plus ``seat``'s own hand (tsubaki.md §8)."""
        obs = envelope(VERSION, seat, self.players, self.phase, self.to_move())
        obs.update(copy.deepcopy({
            "options": {"hand": self.hand, "hook": self.hook},
            "round": self.round, "rounds": self.rounds, "hand_size": self.hand_size,
            "dealer": self.dealer, "trump": self.trump, "bids": self.bids,
            "tricks_won": self.tricks_won, "leader": self.leader, "trick": self.trick,
            "tricks": self.tricks, "scores": self.scores, "history": self.history,
            "hand_counts": [len(h) for h in self.hands],
            "deck_count": len(self.deck),
        }))
        if seat is not None:
            obs["hand"] = list(self.hands[seat])
        return obs

    def render(self, seat: int | None = None) -> str:
        return render.table(self.observe(seat))

    def describe(self, seat: int, action: Action) -> str:
        return render.describe(self.observe(None), seat, action)
