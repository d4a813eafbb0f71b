"""Blossom's game state: set-up, the two-action turn, the cherry, refills and the end.

Sections cited (§N) are the numbered headings of docs/games/blossom.md. Multisets of
cards are lists of six counts in ``rules.KINDS`` order. The deck is unordered: every draw
from it is a chance node (see ``chance_outcomes``), so a shuffle is simply "the deck is a
multiset".
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Final, cast

from niwa.engine.actions import LegalActions
from niwa.engine.api import (
    CHANCE,
    JSON,
    Action,
    IllegalAction,
    Result,
    Rng,
    State,
    places_from_keys,
)
from niwa.engine.rulesets.blossom import codec, render, rules, views, views_json
from niwa.engine.rulesets.blossom.actions import (
    Arrange,
    ArrangeCherry,
    ArrangeCount,
    Bare,
    BlossomAction,
    BlossomChance,
    Card,
    Cards,
    CherryTake,
    Dealer,
    Draw,
    DrawDeck,
    DrawGarden,
    FeedUp,
    Phase,
)
from niwa.engine.rulesets.blossom.rules import (
    ACTIONS_PER_TURN,
    CHERRY,
    CHERRY_GARDEN_FILL_MIN_HAND,
    CHERRY_MAX_DRAW,
    END_SCORE,
    GARDEN_DEAL,
    HAND_DEAL,
    HAND_LIMIT,
    KIND_INDEX,
    KINDS,
    YARD_LIMIT,
    sub_multisets,
)
from niwa.engine.rulesets.blossom.scoring import arrange_points, flower_value

# The phases as module constants: ``Phase.X`` is an enum class lookup, several times
# slower than a global, and the state compares its phase on every move.
_SETUP: Final = Phase.SETUP
_MULLIGAN: Final = Phase.MULLIGAN
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER

# Chance targets waiting in ``queue``: a seat number deals to that seat's hand.
DEALER, REMOVE, GARDEN = "dealer", "remove", "garden"

# Actions and chance outcomes are built once and shared by every state and decision:
# building a dozen dicts per decision was most of the engine's time. Like every action
# handed out, they must not be mutated.
_FEED_UP: Final[tuple[FeedUp, ...]] = tuple({"type": "feed_up", "card": k} for k in KINDS)
_ARRANGE: Final[tuple[tuple[ArrangeCount, ...], ...]] = tuple(
    tuple({"type": "arrange", "kind": k, "count": c} for c in range(1, YARD_LIMIT + 1))
    for k in KINDS
)
_ARRANGE_CHERRY: Final[tuple[ArrangeCherry, ...]] = (
    {"type": "arrange", "kind": "cherry", "mode": "points"},
    {"type": "arrange", "kind": "cherry", "mode": "draw"},
)
_DRAW_DECK: Final[DrawDeck] = {"type": "draw", "from": "deck"}
_DRAW_GARDEN: Final[tuple[DrawGarden, ...]] = tuple(
    {"type": "draw", "from": "garden", "kind": k} for k in KINDS
)
_CHERRY_DRAW: Final[Bare] = {"type": "cherry_draw"}
_CHERRY_TAKE: Final[tuple[CherryTake, ...]] = tuple(
    {"type": "cherry_take", "kind": k} for k in KINDS
)
_CHERRY_STOP: Final[Bare] = {"type": "cherry_stop"}
_CARD_OUTCOMES: Final[tuple[Card, ...]] = tuple({"card": k} for k in KINDS)


@cache
def _feeds(hand: tuple[int, ...], room: int) -> tuple[BlossomAction, ...]:
    """§5 Feed A and B for a hand with ``room`` (>= 1) free places in the yard."""
    down: tuple[BlossomAction, ...] = tuple(
        {"type": "feed_down", "cards": list(m)} for m in sub_multisets(hand, 1, room)
    )
    return down + tuple(_FEED_UP[k] for k in range(6) if hand[k])


@cache
def _flips(down: tuple[int, ...]) -> tuple[Cards, ...]:
    """§5 Feed C for these face-down yard cards."""
    return tuple({"type": "flip", "cards": list(m)} for m in sub_multisets(down, 1, YARD_LIMIT))


@cache
def _arranges(up: tuple[int, ...]) -> tuple[Arrange, ...]:
    """§5/§6 Arrange for these face-up yard cards: exactly one cherry, in two modes."""
    out: list[Arrange] = []
    for k in range(6):
        if up[k]:
            out += _ARRANGE_CHERRY if k == CHERRY else _ARRANGE[k][: up[k]]
    return tuple(out)


@cache
def _hand_choices(hand: tuple[int, ...]) -> tuple[int, tuple[tuple[BlossomAction, ...], ...]]:
    """A hand's size, and its §5 Feed A and B by the free places in the yard (0 to 5):
    at most 462 hands of up to 5 cards."""
    return sum(hand), ((), *(_feeds(hand, room) for room in range(1, YARD_LIMIT + 1)))


@cache
def _yard_choices(yard: tuple[int, ...]) -> tuple[int, tuple[BlossomAction, ...]]:
    """A yard's size, and its §5 Feed C then its §5/§6 Arranges, for the face-down counts
    followed by the face-up ones: at most 6,188 yards of up to 5 cards."""
    down, up = yard[:6], yard[6:]
    return sum(yard), _flips(down) + _arranges(up)


@cache
def _garden_draws(shown: tuple[bool, ...], first_arranged: int | None) -> tuple[DrawGarden, ...]:
    """§5 Draw from the garden: any kind it shows but the one arranged this turn. Keyed
    by which kinds it shows, so the cache holds at most 64 x 7 entries."""
    return tuple(_DRAW_GARDEN[k] for k in range(6) if shown[k] and k != first_arranged)


@cache
def _dealer_outcomes(n: int) -> tuple[Dealer, ...]:
    return tuple({"dealer": s} for s in range(n))


def _kind(name: Any, rule: str) -> int:
    if not isinstance(name, str) or name not in KIND_INDEX:
        raise IllegalAction(rule, f"{name!r} is not a flower kind ({', '.join(KINDS)})")
    return KIND_INDEX[name]


def _cards(names: Any, rule: str) -> list[int]:
    if not isinstance(names, list):
        raise IllegalAction(rule, "cards must be a list of flower kinds")
    counts = [0] * len(KINDS)
    for name in names:
        counts[_kind(name, rule)] += 1
    return counts


class BlossomState(State):
    """A game of Blossom. Build with ``BlossomGame.new_game`` or ``from_json``."""

    __slots__ = (
        "_legal",
        "actions_done",
        "cherry",
        "current",
        "dealer",
        "deck",
        "downs",
        "end_triggered",
        "first_arranged",
        "garden",
        "garden_drawn",
        "hands",
        "known",
        "mulligan",
        "mulligan_next",
        "n",
        "overflow_source",
        "phase",
        "queue",
        "removed",
        "resume",
        "returned",
        "scores",
        "turns",
        "ups",
    )

    def __init__(self, players: int, options: Mapping[str, Any]) -> None:
        n = players
        self.n = n
        self.mulligan: bool = bool(options["mulligan"])
        self.overflow_source: str = str(options["cherryOverflowSource"])
        self.phase: Phase = _SETUP
        self.dealer: int | None = None
        self.queue: list[int | str] = []
        self.resume = "dealer"
        self.deck = list(rules.FULL_DECK)
        self.removed = [0] * 6
        self.garden = [0] * 6
        self.hands = [[0] * 6 for _ in range(n)]
        self.ups = [[0] * 6 for _ in range(n)]
        self.downs = [[0] * 6 for _ in range(n)]
        self.returned = [[0] * 6 for _ in range(n)]
        # Public memory: cards every player knows to be among seat s's hidden cards (hand
        # and face-down yard together), because s took them from the garden. A lower
        # bound: playing or turning up a card of a kind lowers it by one.
        self.known = [[0] * 6 for _ in range(n)]
        self.scores = [0] * n
        self.mulligan_next: int | None = None
        self.current = 0
        self.actions_done = 0
        self.garden_drawn = False
        self.first_arranged: int | None = None
        self.cherry: dict[str, Any] | None = None
        self.end_triggered = False
        self.turns = 0
        self._legal: LegalActions | None = None
        dealer = int(options["dealer"])
        if dealer < 0:
            self.queue = [DEALER]  # §4 PROPOSED: the dealer is drawn at random
        else:
            self._set_dealer(dealer)

    # ----------------------------------------------------------------- set-up (§4)

    def _set_dealer(self, dealer: int) -> None:
        self.dealer = dealer
        self.current = dealer
        order = [(dealer + 1 + i) % self.n for i in range(self.n)]  # clockwise from the left
        self.queue = [REMOVE] * rules.REMOVED_UNSEEN[self.n] + order * HAND_DEAL
        self.resume = "dealt"

    def _after_chance(self) -> None:
        """The queue of chance deals is empty: go on with what was waiting for it."""
        step = self.resume
        if step == "dealer":
            return
        if step == "dealt":
            if self.mulligan:  # §9: each player once, starting left of the dealer
                self.phase = _MULLIGAN
                self.mulligan_next = self._left_of_dealer()
            else:
                self._deal_garden([])
        elif step == "garden":
            self.phase = _PLAY
            self._start_turn(self._dealer())
        elif step == "draw":
            self._finish_action()
        elif step == "cherry":
            assert self.cherry is not None
            self.cherry["drawn"] += 1
            self._continue_cherry()

    def _dealer(self) -> int:
        assert self.dealer is not None
        return self.dealer

    def _left_of_dealer(self) -> int:
        return (self._dealer() + 1) % self.n

    def _deal_garden(self, redeal: list[int | str]) -> None:
        self.queue = [*redeal, *([GARDEN] * GARDEN_DEAL)]
        self.resume = "garden"

    # ------------------------------------------------------------------ protocol

    def to_move(self) -> tuple[int, ...]:
        if self.phase == _OVER:
            return ()
        if self.queue:
            return (CHANCE,)
        if self.phase == _MULLIGAN:
            assert self.mulligan_next is not None
            return (self.mulligan_next,)
        return (self.current,)

    def is_over(self) -> bool:
        return self.phase == _OVER  # what ``not to_move()`` says, without building it

    def chance_outcomes(self) -> list[tuple[BlossomChance, float]]:
        if self.phase == _OVER or not self.queue:
            return []
        if self.queue[0] == DEALER:
            return [(a, 1 / self.n) for a in _dealer_outcomes(self.n)]
        total = sum(self.deck)
        return [(_CARD_OUTCOMES[k], c / total) for k, c in enumerate(self.deck) if c]

    def sample_chance(self, rng: Rng) -> BlossomChance:
        """The base class's draw, card for card (§4, §7: one ``rng.random()``, the
        outcomes walked in KINDS order with the same float arithmetic) without building
        the list of outcomes: a card is drawn at almost every other decision."""
        if self.phase == _OVER or not self.queue or self.queue[0] == DEALER:
            return cast(BlossomChance, super().sample_chance(rng))
        deck = self.deck
        total = sum(deck)
        # an empty kind's 0.0 changes neither the sum nor x, so it may stay in the walk
        chances = [c / total for c in deck]
        x = rng.random() * sum(chances)
        for k, p in enumerate(chances):
            x -= p
            if x < 0:
                return _CARD_OUTCOMES[k]
        return _CARD_OUTCOMES[max(k for k in range(6) if deck[k])]  # rounding: the last

    def legal_actions(self, seat: int) -> list[BlossomAction]:
        if seat != self._seat_to_move():
            return []  # chance's turn, another seat's, or the game is over
        legal = self._legal  # kept until the next apply (``or`` would call __len__)
        if legal is None:
            legal = self._choices(seat)
        listing: list[BlossomAction] = legal.listing()
        return listing

    def _seat_to_move(self) -> int | None:
        """The one seat ``to_move`` lists, chance included, or None once the game is
        over: what apply and legal_actions ask on every decision, without the tuple."""
        if self.phase == _OVER:
            return None
        if self.queue:
            return CHANCE
        return self.mulligan_next if self.phase == _MULLIGAN else self.current

    def _choices(self, seat: int) -> LegalActions:
        if self._legal is None:  # cached until the next apply: apply checks against it
            if self.phase == _MULLIGAN:
                self._legal = LegalActions(
                    {"type": "mulligan", "cards": list(m)}
                    for m in sub_multisets(self.hands[seat], 0, HAND_LIMIT)
                )
            elif self.cherry is not None:
                self._legal = LegalActions(self._cherry_actions())
            else:
                self._legal = LegalActions(self._action_choices())
        return self._legal

    def apply(self, joint: Mapping[int, Action]) -> None:
        seat = self._seat_to_move()  # one seat moves at a time: the joint move has its entry only
        if seat is None:
            raise IllegalAction("blossom.md §9", "the game is over")
        if len(joint) != 1 or seat not in joint:
            raise IllegalAction(
                "blossom.md §5", f"the move must be for seat {seat}, not {sorted(joint)}"
            )
        action = joint[seat]
        if seat == CHANCE:
            self._apply_chance(action)
            self._legal = None
            return
        legal = self._legal
        if legal is None:
            legal = self._choices(seat)
        listed: BlossomAction | None = legal.match(action)
        if listed is None:  # the explanation is only worked out for an illegal action
            raise IllegalAction(*self._why_illegal(seat, action))
        self._legal = None
        # Each test narrows ``listed`` to one kind, the most frequent kinds of a random
        # game first; inline rather than a method: one call less on every decision.
        if listed["type"] == "draw":
            self._draw(seat, listed)
        elif listed["type"] == "arrange":
            self._arrange(seat, listed)
        elif listed["type"] == "feed_down":
            self._feed_down(seat, listed)
        elif listed["type"] == "flip":
            self._flip(seat, listed)
        elif listed["type"] == "feed_up":
            self._feed_up(seat, listed)
        elif listed["type"] == "cherry_take":
            self._cherry_take(seat, listed)
        elif listed["type"] == "cherry_draw":
            self._queue_deck_draw(seat, "cherry")
        elif listed["type"] == "cherry_stop":
            self._end_cherry()
        else:
            self._mulligan(seat, listed)

    def observe(self, seat: int | None) -> dict[str, JSON]:
        return views.observation(self, seat)

    def observe_json(self, seat: int | None) -> str:
        return views_json.observation_json(self, seat)

    def result(self) -> Result:
        # §9: most points; tie -> fewer cards in hand + yard; still tied -> shared (PROPOSED)
        cards = [sum(self.hands[s]) + sum(self.ups[s]) + sum(self.downs[s]) for s in range(self.n)]
        keys = [(self.scores[s], -cards[s]) for s in range(self.n)]
        return Result(scores=tuple(float(x) for x in self.scores), places=places_from_keys(keys))

    def clone(self) -> BlossomState:
        c = object.__new__(BlossomState)
        c.n = self.n
        c.mulligan = self.mulligan
        c.overflow_source = self.overflow_source
        c.phase = self.phase
        c.dealer = self.dealer
        c.queue = list(self.queue)
        c.resume = self.resume
        c.deck = list(self.deck)
        c.removed = list(self.removed)
        c.garden = list(self.garden)
        c.hands = list(map(list, self.hands))
        c.ups = list(map(list, self.ups))
        c.downs = list(map(list, self.downs))
        c.returned = list(map(list, self.returned))
        c.known = list(map(list, self.known))
        c.scores = list(self.scores)
        c.mulligan_next = self.mulligan_next
        c.current = self.current
        c.actions_done = self.actions_done
        c.garden_drawn = self.garden_drawn
        c.first_arranged = self.first_arranged
        c.cherry = None if self.cherry is None else dict(self.cherry)
        c.end_triggered = self.end_triggered
        c.turns = self.turns
        # The same position has the same legal actions; the listing is never changed in
        # place (apply replaces it), so the copy shares it: a search applies each action
        # to a copy of one state, and every copy listed them all again.
        c._legal = self._legal
        return c

    def to_json(self) -> dict[str, JSON]:
        return codec.FORMAT.wrap(codec.encode(self))

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> BlossomState:
        """Rebuild a state from :meth:`to_json`; a snapshot of other rules or data, or a
        malformed one, raises :class:`engine.SnapshotError`."""
        return codec.FORMAT.load(data, codec.FIELDS, lambda fields: codec.decode(fields, cls))

    def render(self, seat: int | None = None) -> str:
        return render.render(self, seat)

    def describe(self, seat: int, action: Action) -> str:
        return render.describe(self, seat, action)

    # ------------------------------------------------------------------ chance

    def _apply_chance(self, action: Action) -> None:
        # Checked in place rather than against a list of outcomes: the same test (exactly
        # one key, a value of the right JSON type, a possible outcome) without building it.
        target = self.queue[0]
        key = "dealer" if target == DEALER else "card"
        value = action.get(key) if type(action) is dict and len(action) == 1 else None
        if target == DEALER:
            if type(value) is not int or not 0 <= value < self.n:
                raise IllegalAction(*_not_an_outcome(action))
            self.queue.pop(0)
            self._set_dealer(value)
            return
        k = KIND_INDEX.get(value) if type(value) is str else None
        if k is None or not self.deck[k]:
            raise IllegalAction(*_not_an_outcome(action))
        self.queue.pop(0)
        self.deck[k] -= 1
        if target == REMOVE:
            self.removed[k] += 1
        elif target == GARDEN:
            self.garden[k] += 1
        else:
            assert isinstance(target, int)
            self.hands[target][k] += 1
        if self.phase == _PLAY and not any(self.deck):
            self._refill()  # §8 (a): the last deck card was just drawn
        if not self.queue:
            self._after_chance()

    def _refill(self) -> None:
        """§7/§8: the garden is shuffled into a new deck; an empty garden leaves it empty."""
        for k in range(6):
            self.deck[k] += self.garden[k]
            self.garden[k] = 0

    def _queue_deck_draw(self, seat: int, resume: str) -> None:
        if not any(self.deck):
            self._refill()  # §8 (b): a draw attempted on an empty deck
        self.queue = [seat]
        self.resume = resume

    # ------------------------------------------------------------------ mulligan (§9)

    def _mulligan(self, seat: int, action: Cards) -> None:
        cards = _cards(action["cards"], "blossom.md §9")
        for k in range(6):
            self.hands[seat][k] -= cards[k]
            self.returned[seat][k] += cards[k]
        nxt = (seat + 1) % self.n
        if nxt != self._left_of_dealer():
            self.mulligan_next = nxt
            return
        # Everyone has decided: the returned cards go back into the deck and each player
        # is dealt as many as they returned (PROPOSED), clockwise from the dealer's left.
        self.mulligan_next = None
        redeal: list[int | str] = []
        for i in range(self.n):
            s = (self._left_of_dealer() + i) % self.n
            redeal += [s] * sum(self.returned[s])
            for k in range(6):
                self.deck[k] += self.returned[s][k]
                self.returned[s][k] = 0
        self.phase = _SETUP
        self._deal_garden(redeal)

    # ------------------------------------------------------------------ turns (§5)

    def _start_turn(self, seat: int) -> None:
        """Give ``seat`` its turn; a seat with no legal action forfeits it (§5 PROPOSED).

        Unreachable in a real game as far as we can tell: an empty-handed seat with an
        empty yard and nothing to draw needs 33 cards in the other three seats' 30 slots,
        and after any first action some second action is always open. Kept so that the
        engine never offers a seat an empty list of actions."""
        for _ in range(self.n):
            self.current = seat
            self.actions_done = 0
            self.garden_drawn = False
            self.first_arranged = None
            self.cherry = None
            self.turns += 1
            if self._has_action():
                return
            if self._game_ends_after(seat):
                self.phase = _OVER
                return
            seat = (seat + 1) % self.n
        self.phase = _OVER  # nobody can act at all: only a malformed state gets here

    def _game_ends_after(self, seat: int) -> bool:
        """§9: once triggered, the game ends after the turn of the starting player's right."""
        return self.end_triggered and seat == (self._dealer() - 1) % self.n

    def _finish_action(self) -> None:
        self.cherry = None
        self.actions_done += 1
        if self.actions_done < ACTIONS_PER_TURN and self._has_action():
            return
        if self._game_ends_after(self.current):
            self.phase = _OVER
            return
        self._start_turn((self.current + 1) % self.n)

    def _has_action(self) -> bool:
        """Whether ``_action_choices`` is non-empty, without building it (§5)."""
        seat = self.current
        hand, up, down = self.hands[seat], self.ups[seat], self.downs[seat]
        if any(up) or any(down):
            return True  # Arrange or Feed C
        if any(hand):
            return True  # the yard is empty here, so Feed A/B fits
        return any(self.deck) or any(self.garden)  # Draw (an empty hand has room)

    def _action_choices(self) -> list[BlossomAction]:
        # the hand's and the yard's choices come whole from their caches, in rule order:
        # Feed A and B (they need room in the yard), Feed C, Arrange, then Draw
        seat = self.current
        hand, feeds = _hand_choices(tuple(self.hands[seat]))
        yard, yard_choices = _yard_choices(tuple(self.downs[seat] + self.ups[seat]))
        out: list[BlossomAction] = [*feeds[YARD_LIMIT - yard]] if yard < YARD_LIMIT else []
        out += yard_choices
        if hand < HAND_LIMIT:
            garden = self.garden
            if any(self.deck) or any(garden):  # §8: nothing to take -> no Draw
                out.append(_DRAW_DECK)
            if not self.garden_drawn:  # §5: at most one garden draw per turn
                a, b, c, d, e, f = garden  # which kinds it shows: 3x faster than map(bool)
                shown = (a > 0, b > 0, c > 0, d > 0, e > 0, f > 0)
                out += _garden_draws(shown, self.first_arranged)
        return out

    # ------------------------------------------------------------------ the actions (§5, §6)

    def _feed_down(self, seat: int, action: Cards) -> None:
        """§5 Feed A: hand cards face down into the yard."""
        moved = _cards(action["cards"], "blossom.md §5")
        for k in range(6):
            self.hands[seat][k] -= moved[k]
            self.downs[seat][k] += moved[k]
        self._finish_action()

    def _feed_up(self, seat: int, action: FeedUp) -> None:
        """§5 Feed B: one hand card face up into the yard."""
        k = KIND_INDEX[action["card"]]
        self.hands[seat][k] -= 1
        self.ups[seat][k] += 1
        known = self.known[seat]
        if known[k]:  # _forget for one card of kind k
            known[k] -= 1
        self._finish_action()

    def _flip(self, seat: int, action: Cards) -> None:
        """§5 Feed C: face-down yard cards turned up."""
        moved = _cards(action["cards"], "blossom.md §5")
        for k in range(6):
            self.downs[seat][k] -= moved[k]
            self.ups[seat][k] += moved[k]
        self._forget(seat, moved)
        self._finish_action()

    def _arrange(self, seat: int, action: Arrange) -> None:
        k = KIND_INDEX[action["kind"]]
        if self.actions_done == 0:
            self.first_arranged = k  # §5: the second action may not garden-draw this kind
        if "count" in action:
            count = action["count"]
        elif action["mode"] == "draw":  # the cherry, arranged alone (§6)
            hand = sum(self.hands[seat])
            from_garden = self.overflow_source == "garden" and hand >= CHERRY_GARDEN_FILL_MIN_HAND
            self.cherry = {"drawn": 0, "source": "garden" if from_garden else "deck"}
            self._continue_cherry()
            return
        else:
            count = 1
        value = flower_value(k, self.ups, [sum(d) for d in self.downs], self.garden)
        self.scores[seat] += arrange_points(value, count)
        self.ups[seat][k] -= count
        self.garden[k] += count
        if self.scores[seat] >= END_SCORE:
            self.end_triggered = True
        self._finish_action()

    def _cherry_actions(self) -> list[BlossomAction]:
        assert self.cherry is not None
        seat = self.current
        out: list[BlossomAction] = []
        if self.cherry["drawn"] < CHERRY_MAX_DRAW and sum(self.hands[seat]) < HAND_LIMIT:
            if self.cherry["source"] == "deck":
                if any(self.deck) or any(self.garden):
                    out.append(_CHERRY_DRAW)
            else:
                for k in range(6):
                    if self.garden[k]:
                        out.append(_CHERRY_TAKE[k])
        out.append(_CHERRY_STOP)
        return out

    def _cherry_take(self, seat: int, action: CherryTake) -> None:
        k = KIND_INDEX[action["kind"]]
        self.garden[k] -= 1
        self.hands[seat][k] += 1
        self.known[seat][k] += 1
        assert self.cherry is not None
        self.cherry["drawn"] += 1
        self._continue_cherry()

    def _continue_cherry(self) -> None:
        if len(self._cherry_actions()) == 1:  # only "stop" is left: nothing more to take
            self._end_cherry()

    def _end_cherry(self) -> None:
        """§6: the cherry reaches the garden only after the draws."""
        seat = self.current
        self.ups[seat][CHERRY] -= 1
        self.garden[CHERRY] += 1
        self._finish_action()

    def _forget(self, seat: int, revealed: list[int]) -> None:
        """Cards of ``seat``'s hidden ones went face up: the known ones may be among them."""
        for k in range(6):
            self.known[seat][k] = max(0, self.known[seat][k] - revealed[k])

    def _draw(self, seat: int, action: Draw) -> None:
        if action["from"] == "deck":
            self._queue_deck_draw(seat, "draw")
            return
        k = KIND_INDEX[action["kind"]]
        self.garden[k] -= 1
        self.hands[seat][k] += 1
        self.known[seat][k] += 1  # everyone saw which card it was
        self.garden_drawn = True
        self._finish_action()

    # ------------------------------------------------------------------ errors

    def _why_illegal(self, seat: int, action: Action) -> tuple[str, str]:
        """Name the rule an illegal action breaks (the message of IllegalAction)."""
        if not isinstance(action, dict) or "type" not in action:
            return "blossom.md §5", f"{action!r} is not a Blossom action (see legal_actions)"
        kind = action["type"]
        hand = sum(self.hands[seat])
        yard = sum(self.ups[seat]) + sum(self.downs[seat])
        if self.phase == _MULLIGAN and kind != "mulligan":
            return "blossom.md §9", "during the mulligan only a mulligan may be played"
        if self.cherry is not None and not str(kind).startswith("cherry"):
            return "blossom.md §6", "finish the cherry's draws first (cherry_draw or cherry_stop)"
        if kind in ("feed_down", "feed_up") and yard >= YARD_LIMIT:
            return "blossom.md §5", "Feed A/B is not allowed with 5 cards in the yard"
        cards = action.get("cards")
        if kind == "feed_down" and isinstance(cards, list) and yard + len(cards) > YARD_LIMIT:
            return "blossom.md §3", "the yard may never hold more than 5 cards"
        if kind == "draw" and hand >= HAND_LIMIT:
            return "blossom.md §5", "Draw is not allowed with 5 cards in hand"
        if kind == "draw" and action.get("from") == "garden":
            if self.garden_drawn:
                return "blossom.md §5", "at most one garden draw per turn"
            if (
                action.get("kind") in KIND_INDEX
                and KIND_INDEX[action["kind"]] == self.first_arranged
            ):
                return (
                    "blossom.md §5",
                    "the second action may not garden-draw the kind just arranged",
                )
        if kind == "arrange" and action.get("kind") == "cherry" and "count" in action:
            return "blossom.md §6", "an Arrange moves exactly one cherry (mode points or draw)"
        return "blossom.md §5", f"{action!r} is not legal now (cards not available or wrong step)"


def _not_an_outcome(action: Action) -> tuple[str, str]:
    return "blossom.md §4, §7", f"{action!r} is not a possible chance outcome"
