"""A game of Sakura in progress: the round flow of sakura.md §6 as small decisions.

A round is: every seat picks a card at once (one joint move; the tricky-variant supplier
also picks the court painter's card), chance reveals the court card in a two-player game,
then cards resolve in order-number order with the engine stepping through everything
that needs no decision and stopping only for a forward/back choice of the card's owner.
Draws (and the opening deal) are chance nodes over the unordered deck.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Mapping
from functools import cache
from operator import itemgetter
from typing import Any, Final

from niwa.engine.actions import LegalActions, same_json
from niwa.engine.api import CHANCE, JSON, Action, IllegalAction, Result, Rng, State, share_json
from niwa.engine.rulesets.sakura import codec, render, rules, views, views_json
from niwa.engine.rulesets.sakura.actions import Card, Direction, Phase, Play, SakuraAction
from niwa.engine.rulesets.sakura.garden import GATE, Garden, set_up
from niwa.engine.rulesets.sakura.rules import (
    CHOICE_ACTIONS,
    CLOSEST_BACK_2,
    COUNT_AHEAD,
    EMP_BACK_1,
    EMP_FWD_1,
    EMP_FWD_2,
    EMP_FWD_OR_BACK_1,
    FWD,
    JUMP_AHEAD,
)
from niwa.engine.rulesets.sakura.scoring import final_places, rewards_for

DEAL: Final = Phase.DEAL
CHOOSE: Final = Phase.CHOOSE
COURT: Final = Phase.COURT
RESOLVE: Final = Phase.RESOLVE
DRAW: Final = Phase.DRAW
OVER: Final = Phase.OVER

#: Phases whose chance node deals a card to a seat (its hand: only it sees the card).
DRAWING: Final = frozenset({DEAL, DRAW})
#: ``to_move`` of the phases that need nothing else to say it.
_FIXED_TO_MOVE: Final[dict[str, tuple[int, ...]]] = {
    DEAL: (CHANCE,), DRAW: (CHANCE,), COURT: (CHANCE,), OVER: ()
}

GARDEN_STEP: Final = "garden"
PAINTER_STEP: Final = "painter"

PENDING: Final = "pending"
RESOLVED: Final = "resolved"
DISCARDED: Final = "discarded"

FORWARD: Final = "forward"
BACK: Final = "back"
DIRECTIONS: Final = (FORWARD, BACK)

#: Chance outcomes, one per card, built once and shared by every state: a chance node
#: lists the whole deck, so building these dicts anew was most of its cost. Like every
#: action handed out, they must not be mutated.
_CARD_NUMBERS: Final = sorted({n for deck in rules.decks().values() for n in deck})
_DRAW_OUTCOMES: Final[dict[int, Card]] = {n: {"type": "draw", "card": n} for n in _CARD_NUMBERS}
_REVEAL_OUTCOMES: Final[dict[int, Card]] = {
    n: {"type": "reveal", "card": n} for n in _CARD_NUMBERS
}
#: The printed distance of every FWD_n / FWD_OR_BACK_n painter action.
_DISTANCE: Final = {a: rules.distance(a) for a in (*rules.FWD, *rules.FWD_OR_BACK)}
#: Built once too: the actions of a plain play and of a direction choice.
_PLAYS: Final[dict[int, Play]] = {n: {"type": "play", "card": n} for n in _CARD_NUMBERS}
EMPEROR: Final = "emperor"
PAINTER: Final = "painter"
# the listing of a direction choice, copied for each caller
_DIRECTION_CHOICES: Final[dict[str, list[SakuraAction]]] = {
    EMPEROR: [{"type": "emperor", "direction": d} for d in DIRECTIONS],
    PAINTER: [{"type": "painter", "direction": d} for d in DIRECTIONS],
}
_DIRECTION_LEGAL: Final = {kind: LegalActions(a) for kind, a in _DIRECTION_CHOICES.items()}
share_json([*_DRAW_OUTCOMES.values(), *_REVEAL_OUTCOMES.values(), *_PLAYS.values(),
            *(a for choices in _DIRECTION_CHOICES.values() for a in choices)])
#: The phases in which someone (or chance) is to move.
_MOVING: Final = frozenset({DEAL, CHOOSE, COURT, RESOLVE, DRAW})
#: The chance outcomes of each chance phase.
_OUTCOMES_OF: Final[dict[str, dict[int, Card]]] = {
    DEAL: _DRAW_OUTCOMES, DRAW: _DRAW_OUTCOMES, COURT: _REVEAL_OUTCOMES
}
_BY_CARD: Final = itemgetter(1)
_PLAY_OF: Final = _PLAYS.__getitem__
#: Per outcome type, the shared outcomes by identity (they live as long as the module):
#: their card.
_CARD_OF_OUTCOME: Final = {
    kind: {id(outcome): n for n, outcome in outcomes.items()}
    for kind, outcomes in (("draw", _DRAW_OUTCOMES), ("reveal", _REVEAL_OUTCOMES))
}
_DRAW_CARD: Final = _CARD_OF_OUTCOME["draw"]


@cache
def _all_seats(players: int) -> tuple[int, ...]:
    return tuple(range(players))


@cache
def _sorted_deck(mix: str) -> tuple[int, ...]:
    return tuple(sorted(rules.decks()[mix]))


@cache
def _deal_order(players: int) -> tuple[int, ...]:
    """Who receives each card of the opening deal, in order: round the table."""
    return tuple(s for _ in range(rules.config().hand_size) for s in range(players))


@cache
def _seat_set(seats: tuple[int, ...]) -> frozenset[int]:
    """``to_move`` as a set, for checking a joint move's keys against it in one step."""
    return frozenset(seats)


RULE_ROUND: Final = "sakura.md §6"
RULE_ACTIONS: Final = "sakura.md §2"
RULE_END: Final = "sakura.md §8"
RULE_TWO: Final = "sakura.md §9"


class SakuraState(State):
    """Mutable game state; ``to_json`` lists every field."""

    def __init__(
        self,
        players: int,
        options: dict[str, Any],
        garden: Garden,
        hands: list[list[int]],
        deck: list[int],
        discard: list[int],
    ) -> None:
        self.players = players
        self.options = options
        self.cards = rules.decks()[options["deckMix"]]
        self.garden = garden
        self.hands = hands
        self.deck = deck  # unordered: kept sorted so chance outcomes are deterministic
        self.discard = discard
        self.phase: str = DEAL
        self.round = 0
        #: [painter, card, status] for this round's cards, in resolution order.
        self.played: list[list[Any]] = []
        self.cursor = 0
        self.step: str = GARDEN_STEP
        self.halt: int | None = None  # the sakura the Emperor stopped on this card
        self.draws: list[int] = []  # seats still to draw one card, in order
        self.supplier: int | None = None  # tricky variant: who plays the court card
        self.scorings: list[dict[str, Any]] = []
        # Decisions and chance outcomes of the current position, built once: search
        # bots ask for them repeatedly. apply() clears them; callers get copies.
        self._legal: dict[int, LegalActions] = {}
        self._outcomes: list[tuple[Card, float]] | None = None
        #: The observation's text but for the hand and the seat (views_json), shared by
        #: the seats asked in this position; apply() clears it, a clone starts without.
        self._view: tuple[str, str, str] | None = None

    @classmethod
    def new(cls, players: int, options: dict[str, Any]) -> SakuraState:
        """A fresh game (sakura.md §6 #1) with validated ``options``: the deal is chance,
        one card at a time, round the table."""
        deck = list(_sorted_deck(options["deckMix"]))
        state = cls(players, options, set_up(players), [[] for _ in range(players)], deck, [])
        state.draws = list(_deal_order(players))
        state.phase = DEAL
        return state

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> SakuraState:
        """Rebuild a state from :meth:`to_json`; a snapshot of other rules or data, or a
        malformed one, raises :class:`engine.SnapshotError`."""
        return codec.FORMAT.load(data, codec.FIELDS, lambda fields: codec.decode(fields, cls))

    # -- who is who -------------------------------------------------------------------------

    @property
    def court(self) -> int | None:
        """The court painter's index (sakura.md §9): the painter after the seats."""
        return self.players if self.players == 2 else None

    def _tricky(self) -> bool:
        return self.players == 2 and bool(self.options["trickyVariant"])

    def owner(self) -> int:
        """The painter whose card is resolving."""
        painter: int = self.played[self.cursor][0]
        return painter

    def current_card(self) -> rules.Card:
        return self.cards[self.played[self.cursor][1]]

    # -- the contract -----------------------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        fixed = _FIXED_TO_MOVE.get(self.phase)
        if fixed is not None:
            return fixed
        if self.phase == CHOOSE:
            return _all_seats(self.players)
        if self.phase == RESOLVE:
            return (self.played[self.cursor][0],)  # the owner of the resolving card
        return ()

    def is_over(self) -> bool:
        return self.phase not in _MOVING  # what ``not to_move()`` says, without building it

    def legal_actions(self, seat: int) -> list[SakuraAction]:
        # The two common decisions are listed straight from shared action objects, a
        # fresh list each time (as cheap as copying a cached one); the court card's
        # supplier and seats with nothing to do go through the cache.
        phase = self.phase
        if phase == CHOOSE and seat != self.supplier and 0 <= seat < self.players:
            return list(map(_PLAY_OF, self.hands[seat]))  # map: no Python frame
        if phase == RESOLVE and seat == self.played[self.cursor][0]:
            return _DIRECTION_CHOICES[EMPEROR if self.step == GARDEN_STEP else PAINTER].copy()
        return self._choices(seat).listing()

    def _choices(self, seat: int) -> LegalActions:
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._legal[seat] = LegalActions(self._list_actions(seat))
        return cached

    def _list_actions(self, seat: int) -> list[SakuraAction]:
        if self.phase == CHOOSE and 0 <= seat < self.players:
            hand = self.hands[seat]
            if seat == self.supplier:
                return [
                    {"type": "play", "card": a, "court_card": b}
                    for a in hand
                    for b in hand
                    if a != b
                ]
            return [_PLAYS[c] for c in hand]
        if self.phase == RESOLVE and seat == self.owner():
            return _DIRECTION_CHOICES[EMPEROR if self.step == GARDEN_STEP else PAINTER]
        return []

    def chance_outcomes(self) -> list[tuple[Card, float]]:
        if self._outcomes is None:
            self._outcomes = self._list_outcomes()
        return self._outcomes.copy()

    def _list_outcomes(self) -> list[tuple[Card, float]]:
        if self.phase not in (DEAL, DRAW, COURT):
            return []
        outcomes = _REVEAL_OUTCOMES if self.phase == COURT else _DRAW_OUTCOMES
        p = 1.0 / len(self.deck)
        return [(outcomes[c], p) for c in self.deck]

    def sample_chance(self, rng: Rng) -> Card:
        """One card of the (sorted) deck, each equally likely, from one ``rng.random()``
        and without listing the deck: O(1) per draw (since sakura@3)."""
        outcomes = _OUTCOMES_OF.get(self.phase)
        if outcomes is None:
            raise ValueError("no chance outcome is pending")
        deck = self.deck
        n = len(deck)
        i = int(rng.random() * n)
        return outcomes[deck[i if i < n else n - 1]]  # guards x * n rounding to n

    def apply(self, joint: Mapping[int, Action]) -> None:
        phase = self.phase
        if phase in DRAWING and len(joint) == 1 and CHANCE in joint:
            self._draw(joint[CHANCE])  # most applies: a draw, with nothing to resolve after
        elif phase == RESOLVE and len(joint) == 1 and (owner := self.owner()) in joint:
            # most decisions: the owner's direction, checked without to_move's tuple
            self._resolve_choice(self._direction_of(owner, joint[owner]))
            self._resolve_cards()
        else:
            seats = self.to_move()
            if not seats:
                raise IllegalAction(RULE_END, "the game is over; no move can be made")
            if joint.keys() != _seat_set(seats):
                want = ", ".join("chance" if s == CHANCE else f"seat {s}" for s in seats)
                raise IllegalAction(RULE_ROUND, f"this move needs exactly one action from {want}")
            if phase == CHOOSE:
                # every seat's play checked before any is made; map: no comprehension frame
                self._play_cards(list(map(self._play_of, seats, map(joint.__getitem__, seats))))
            elif phase == RESOLVE:
                self._resolve_choice(self._direction_of(seats[0], joint[seats[0]]))
            else:
                self._reveal(joint[CHANCE])
            self._advance()
        if self._legal:  # e.g. someone asked a seat's (empty) actions while chance moved
            self._legal = {}
        self._outcomes = None
        self._view = None

    def observe(self, seat: int | None) -> dict[str, JSON]:
        return views.observation(self, seat)

    def observe_json(self, seat: int | None) -> str:
        return views_json.observation_json(self, seat)

    def result(self) -> Result:
        court_competes = self.court is not None and bool(self.options["courtCanWin"])
        return final_places(self.garden, self.players, court_competes)

    def clone(self) -> SakuraState:
        other = SakuraState.__new__(SakuraState)
        other.players = self.players
        other.options = self.options  # never mutated after validation
        other.cards = self.cards
        other.garden = self.garden.copy()
        other.hands = list(map(list.copy, self.hands))  # map: no Python frame per hand
        other.deck = self.deck.copy()
        other.discard = self.discard.copy()
        other.phase = self.phase
        other.round = self.round
        other.played = list(map(list.copy, self.played))
        other.cursor = self.cursor
        other.step = self.step
        other.halt = self.halt
        other.draws = self.draws.copy()
        other.supplier = self.supplier
        other.scorings = self.scorings  # append-only records, replaced on change
        other._legal = self._legal.copy()  # the cached lists are never handed out
        other._outcomes = self._outcomes
        other._view = None  # a clone is often changed in place (niwa.bots.redeal)
        return other

    def to_json(self) -> dict[str, JSON]:
        return codec.FORMAT.wrap(codec.encode(self))

    def snapshot_text(self) -> str:
        return views_json.snapshot_json(self)

    def render(self, seat: int | None = None) -> str:
        return render.table(self, seat)

    def describe(self, seat: int, action: Action) -> str:
        return render.describe(self, seat, action)

    # -- validation -------------------------------------------------------------------------

    def _play_of(self, seat: int, action: Action) -> Play:
        """``seat``'s card choice, matched as :meth:`LegalActions.match` would against
        the one listed play of the card it names, without listing the hand; the
        supplier's two-card plays and anything refused go through :meth:`_parse`."""
        if type(action) is dict and seat != self.supplier:
            card = action.get("card")
            if type(card) is int and card in self.hands[seat]:
                play = _PLAYS[card]
                if play is action or (play == action and same_json(play, action)):
                    return play
        listed: Play = self._parse(seat, action)  # the choose phase lists plays only
        return listed

    def _direction_of(self, seat: int, action: Action) -> Direction:
        """The owner's direction choice, matched against the two shared listed ones."""
        found: Direction | None = _DIRECTION_LEGAL[
            EMPEROR if self.step == GARDEN_STEP else PAINTER
        ].match(action)
        if found is None:
            found = self._parse(seat, action)  # refuses it
        return found

    def _parse(self, seat: int, action: Action) -> Action:
        """The legal action of ``seat`` that ``action`` spells, else IllegalAction; the
        explanation is built only for an illegal one."""
        found = self._choices(seat).match(action)
        if found is None:
            raise IllegalAction(*self._explainer(seat)(action))
        return found

    def _explainer(self, seat: int) -> Callable[[Action], tuple[str, str]]:
        """Why ``seat``'s action is not one of its legal ones, in the rules' words."""
        if self.phase == CHOOSE:
            return lambda action: self._why_not_play(seat, action)
        return lambda action: (
            RULE_ACTIONS,
            f"seat {seat} must choose one of {self.legal_actions(seat)}, not {action!r}",
        )

    def _why_not_play(self, seat: int, action: Action) -> tuple[str, str]:
        hand = self.hands[seat]
        if not isinstance(action, dict) or action.get("type") != "play":
            return (
                RULE_ROUND,
                f"seat {seat} must play a card from hand: "
                f'{{"type": "play", "card": N}}, not {action!r}',
            )
        wants_court = seat == self.supplier
        keys = {"type", "card", "court_card"} if wants_court else {"type", "card"}
        if set(action) != keys:
            what = "a card and a court_card" if wants_court else "one card"
            return (
                RULE_TWO if wants_court else RULE_ROUND,
                f"seat {seat} must play {what}, not {action!r}",
            )
        cards = [action[k] for k in sorted(keys - {"type"})]
        for c in cards:
            if type(c) is not int or c not in hand:
                return RULE_ROUND, f"seat {seat} has no card {c!r} in hand"
        return RULE_TWO, f"seat {seat} must play two different cards"

    def _resolve_choice(self, action: Direction) -> None:
        painter, number, _ = self.played[self.cursor]  # the owner and the card resolving
        if self.step == GARDEN_STEP:
            self._garden_action(self.cards[number].garden, action["direction"])
            self.step = PAINTER_STEP
        else:
            self._painter_action(painter, self.cards[number].painter, action["direction"])
            self._finish_card()

    def _deck_index(self, outcome: Action, kind: str) -> int:
        """Where the card of chance ``outcome`` lies in the deck. Checked in place rather
        than against the listed outcomes (the whole deck): the same test, exactly
        {"type": kind, "card": a card in the deck} in JSON types. One of the shared
        outcomes (what sample_chance hands out) is known by its identity."""
        number = _CARD_OF_OUTCOME[kind].get(id(outcome))
        if number is None and type(outcome) is dict and len(outcome) == 2:
            tag, card = outcome.get("type"), outcome.get("card")
            if type(tag) is str and tag == kind and type(card) is int:
                number = card
        if number is not None:
            deck = self.deck
            i = bisect_left(deck, number)
            if i < len(deck) and deck[i] == number:
                return i
        raise IllegalAction(RULE_ROUND, f"chance must {kind} a card of the deck, not {outcome!r}")

    def _draw(self, outcome: Action) -> None:
        """A deal or draw: the card joins the next drawer's hand (kept sorted)."""
        deck = self.deck
        # a shared outcome (sample_chance's) found by identity, without a call
        number = _DRAW_CARD.get(id(outcome), -1)
        i = bisect_left(deck, number)
        if i == len(deck) or deck[i] != number:
            i = self._deck_index(outcome, "draw")
        card = deck.pop(i)
        draws = self.draws
        insort(self.hands[draws.pop(0)], card)
        if not draws:
            self._start_round()
        elif not self.deck:
            self._refill_deck()

    def _reveal(self, outcome: Action) -> None:
        """The court painter's card (sakura.md §9) joins this round's cards."""
        card = self.deck.pop(self._deck_index(outcome, "reveal"))
        self.played.append([self.court, card, PENDING])
        self._start_resolving()

    # -- the round --------------------------------------------------------------------------

    def _play_cards(self, actions: list[Play]) -> None:
        """Reveal every choice at once (sakura.md §6 #2); ``actions`` in seat order."""
        hands, played, supplier = self.hands, self.played, self.supplier
        for seat, action in enumerate(actions):
            card = action["card"]
            hands[seat].remove(card)
            played.append([seat, card, PENDING])
            if seat == supplier:
                hands[seat].remove(action["court_card"])
                played.append([self.court, action["court_card"], PENDING])
        if supplier is None and self.court is not None:
            self.phase = COURT  # the top deck card plays for the court painter (§9)
        else:
            self._start_resolving()

    def _start_resolving(self) -> None:
        self.played.sort(key=_BY_CARD)
        self.phase = RESOLVE
        self.cursor = 0
        self.step = GARDEN_STEP

    def _start_round(self) -> None:
        self.round += 1
        self.phase = CHOOSE
        self.played = []
        self.cursor = 0
        self.step = GARDEN_STEP
        self.supplier = self._court_supplier() if self._tricky() else None

    def _court_supplier(self) -> int | None:
        """Tricky variant: the human further from the Emperor; none if both are on the
        gate (sakura.md §9)."""
        a, b = self.garden.painters[0], self.garden.painters[1]
        if a == GATE and b == GATE:
            return None
        return 0 if a < b else 1

    def _advance(self) -> None:
        """Run every step that needs no decision (sakura.md §6 #2, #14)."""
        if self.phase == RESOLVE:
            self._resolve_cards()
        elif self.phase == COURT:
            self._refill_deck()

    def _resolve_cards(self) -> None:
        """Resolve this round's cards in order up to one that needs its owner's choice;
        when all are done and the game goes on, the round ends."""
        played, cards, humans = self.played, self.cards, self.players
        while self.cursor < len(played):
            painter, number, _ = played[self.cursor]
            card = cards[number]
            human = painter < humans
            if self.step == GARDEN_STEP:
                if human and card.garden in CHOICE_ACTIONS:
                    return
                # the court painter always picks forward (§9)
                self._garden_action(card.garden, FORWARD)
                self.step = PAINTER_STEP
            if human and card.painter in CHOICE_ACTIONS:
                return
            self._painter_action(painter, card.painter, FORWARD)
            self._finish_card()
        if self.phase == RESOLVE:  # not OVER: the last sakura scored
            self._end_round()

    def _refill_deck(self) -> None:
        """An empty deck is refilled with the discard pile (sakura.md §6 #2)."""
        if not self.deck:
            self.deck = sorted(self.discard)
            self.discard = []

    def _garden_action(self, action: str, direction: str) -> None:
        """The resolving card's garden ``action`` (sakura.md §2.1) in ``direction``."""
        g = self.garden
        if action == EMP_FWD_1 or (action == EMP_FWD_OR_BACK_1 and direction == FORWARD):
            self.halt = g.emperor_forward(1)
        elif action == EMP_FWD_2:
            self.halt = g.emperor_forward(2)
        elif action in (EMP_BACK_1, EMP_FWD_OR_BACK_1):
            g.emperor_back()
        elif action == CLOSEST_BACK_2:
            target = g.closest()
            if target is not None:
                g.back(target, 2)
        else:
            target = g.furthest()
            if target is not None:
                g.forward(target, 2)

    def _painter_action(self, painter: int, action: str, direction: str) -> None:
        """The resolving card's painter ``action`` (sakura.md §2.2) for its owner."""
        g = self.garden
        if action == JUMP_AHEAD:
            g.jump_ahead(painter)
        elif action == COUNT_AHEAD:
            g.count_ahead(painter)
        elif direction == FORWARD or action in FWD:
            g.forward(painter, _DISTANCE[action])
        else:
            g.back(painter, _DISTANCE[action])

    def _finish_card(self) -> None:
        """Discard the resolved card; after a sakura stop, discard the rest and score
        (sakura.md §6 #14, §7, §8)."""
        entry = self.played[self.cursor]
        entry[2] = RESOLVED
        self.discard.append(entry[1])
        self.cursor += 1
        self.step = GARDEN_STEP
        if self.halt is None:
            return
        for rest in self.played[self.cursor :]:
            rest[2] = DISCARDED
            self.discard.append(rest[1])
        self.cursor = len(self.played)
        sakura, self.halt = self.halt, None
        last = sakura == len(self.garden.board.sakura) - 1
        paid = self.garden.score(rewards_for(self.players, last))
        self.garden.scored[sakura] = True
        awards = [[p, t] for p, t in paid]
        self.scorings = [*self.scorings, {"sakura": sakura, "round": self.round, "awards": awards}]
        if last:
            self.phase = OVER  # the game ends right after the last sakura scores (§8)

    def _end_round(self) -> None:
        """Everyone draws back to a full hand, in seat order (sakura.md §6 #17, §9)."""
        self.phase = DRAW
        self.draws = list(range(self.players))
        if self.supplier is not None:
            self.draws.insert(self.supplier, self.supplier)  # it played two cards
        self._refill_deck()  # the first draw needs a deck
