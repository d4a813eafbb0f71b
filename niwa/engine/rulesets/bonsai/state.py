"""The Bonsai game state and its turn flow, one small decision at a time.

Phases (``state.phase``):

* ``goal_setup`` (chance): three goal colours are drawn (bonsai.md §4.2);
* ``reveal`` (chance): a card is revealed from the deck into the rightmost empty slot,
  or, in solo, burned into the discard pile (§8); set-up reveals run here too;
* ``choose``: the player meditates on a slot or cultivates (§7.1); before that, a stuck
  tree may shed one tile (§7.1) and, with ``allowPotFlip``, a bare pot may be flipped;
* ``master``: pick the type of each wild tile of a Master card (§2.3);
* ``helper`` / ``cultivate``: place one tile at a time, then ``end_placing`` (§2.3, §2.4);
* ``claim``: claim or renounce each goal met, one at a time (§4.3);
* ``discard``: drop one tile at a time down to capacity (§7.1);
* ``over``.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any, Final

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
from niwa.engine.rulesets.bonsai import codec, moves, render, views
from niwa.engine.rulesets.bonsai.actions import BonsaiAction, BonsaiChance, Goal, Meditate, Phase
from niwa.engine.rulesets.bonsai.deck import can_draw, draw, draw_odds, take
from niwa.engine.rulesets.bonsai.moves import CHOOSE_TILE, DISCARD, GOAL_DECISIONS, REVEAL, rule
from niwa.engine.rulesets.bonsai.rules import (
    ANY,
    CARD_KINDS,
    COLOURS,
    EMPEROR_GOAL_LEVEL,
    EMPEROR_TARGET,
    GOAL_COLOURS_IN_PLAY,
    GOAL_ORDER,
    GOALS,
    SLOTS,
    SOLO_LEVELS,
    SOLO_STARTING_TILES,
    STARTING_TILES,
    TILE_CODE,
    deck_for,
    key,
)
from niwa.engine.rulesets.bonsai.scoring import breakdown, goals_met_by
from niwa.engine.rulesets.bonsai.seat import Seat, new_seat

# The phases as module constants: ``Phase.X`` is an enum class lookup, several times
# slower than a global, and the state compares its phase on every move.
_GOAL_SETUP: Final = Phase.GOAL_SETUP
_REVEAL: Final = Phase.REVEAL
_CHOOSE: Final = Phase.CHOOSE
_MASTER: Final = Phase.MASTER
_HELPER: Final = Phase.HELPER
_CULTIVATE: Final = Phase.CULTIVATE
_CLAIM: Final = Phase.CLAIM
_DISCARD: Final = Phase.DISCARD
_OVER: Final = Phase.OVER

CHANCE_PHASES = frozenset({_GOAL_SETUP, _REVEAL})
PLACING_PHASES = frozenset({_HELPER, _CULTIVATE})
#: The goal-colour draws of the set-up (bonsai.md §4.2), each equally likely.
COLOUR_COMBOS = [list(c) for c in combinations(COLOURS, GOAL_COLOURS_IN_PLAY)]


class BonsaiState(State):
    """A game of Bonsai for 1 to 4 players (1 = solo, bonsai.md §8)."""

    def __init__(self, players: int, options: dict[str, Any]) -> None:
        self.players = players
        self.options = options
        self.phase: Phase = _REVEAL
        self.current = 0
        self.goal_colours: list[str] = []
        self.goals_open: list[str] = []
        self.board: list[str | None] = [None, None, None, None]
        # Lazy deck (deck.py): a top pile (Tokonoma: the Parchments plus
        # ``top_others`` cards drawn at random from ``pool``) over the ``pool`` multiset.
        self.top_parchments: dict[str, int] = {}
        self.top_others = 0
        self.pool: dict[str, int] = {}
        self.discards: list[str] = []  # solo discard pile (face up)
        self.burn = False  # solo: the top card is to be revealed and discarded
        self.end_triggered = False
        self.turns_left = 0
        self.action: str | None = None  # "meditate" | "cultivate" this turn
        self.card: str | None = None  # card taken this turn, resolved after the refill
        self.allowance = [0, 0, 0, 0, 0]  # placements left per tile code, then wild
        self.wild_tiles = 0  # Master wild tiles still to choose
        self.pending_goals: list[str] = []
        self.seats: list[Seat] = []
        # The current decision's legal actions, kept until the next apply: a player
        # move is checked against them, so the list is built once per decision.
        self._legal: list[BonsaiAction] | None = None

    @classmethod
    def set_up(cls, players: int, options: dict[str, Any]) -> BonsaiState:
        """A new game for validated options, before the set-up chance (bonsai.md §4.2,
        §8.1, §9): the deck, the seats with their starting tiles, the first phase."""
        s = cls(players, options)
        deck = deck_for(players)
        if options["tokonoma"]:
            # Parchments go on top with the smaller half of the rest (bonsai.md §9).
            s.top_parchments = {k: n for k, n in deck.items() if CARD_KINDS[k].type == "parchment"}
            s.pool = {k: n for k, n in deck.items() if CARD_KINDS[k].type != "parchment"}
            s.top_others = sum(s.pool.values()) // 2
        else:
            s.pool = deck
        if s.emperor:
            # Two pots and every intermediate goal, no colour draw (bonsai.md §8.1).
            s.seats = [new_seat(SOLO_STARTING_TILES, bonsai=2)]
            s.goals_open = [g for g in GOAL_ORDER if GOALS[g].level == EMPEROR_GOAL_LEVEL]
            s.goal_colours = [GOALS[g].colour for g in s.goals_open]
            return s
        s.seats = [
            new_seat(SOLO_STARTING_TILES if players == 1 else STARTING_TILES[seat])
            for seat in range(players)
        ]
        # Goals are compulsory in solo (bonsai.md §4.2, §8): useGoals only applies to
        # 2-4 players, as soloLevel and soloScenario only apply to 1 (all kept valid
        # everywhere so one option set can serve every player count).
        s.phase = _GOAL_SETUP if options["useGoals"] or players == 1 else _REVEAL
        return s

    @classmethod
    def from_json(cls, snapshot: Mapping[str, JSON]) -> BonsaiState:
        return codec.from_json(snapshot, cls)

    # --- queries ----------------------------------------------------------------------
    @property
    def solo(self) -> bool:
        return self.players == 1

    @property
    def emperor(self) -> bool:
        """The Emperor challenge solo scenario (bonsai.md §8.1)."""
        return self.players == 1 and self.options["soloScenario"] == "emperor"

    def deck_size(self) -> int:
        top = self.top_parchments
        return (sum(top.values()) if top else 0) + sum(self.pool.values())

    def _deck_left(self) -> bool:
        """``deck_size() > 0`` without the sums (counts are never negative)."""
        return any(self.pool.values()) or any(self.top_parchments.values())

    def to_move(self) -> tuple[int, ...]:
        if self.phase == _OVER:
            return ()
        if self.phase in CHANCE_PHASES:
            return (CHANCE,)
        return (self.current,)

    def chance_outcomes(self) -> list[tuple[BonsaiChance, float]]:
        if self.phase == _GOAL_SETUP:
            combos = COLOUR_COMBOS
            return [({"type": "goals", "colours": c}, 1 / len(combos)) for c in combos]
        if self.phase != _REVEAL:
            return []
        if not self.top_others and not self.top_parchments:
            # no Tokonoma top pile, the common case: draw_odds' plain multiset draw,
            # without the intermediate list (the pool is kept in KIND_ORDER)
            pool = self.pool
            total = sum(pool.values())
            return [(REVEAL[k], n / total) for k, n in pool.items()]
        return [(REVEAL[k], p) for k, p in self._draw_odds()]

    def sample_chance(self, rng: Rng) -> BonsaiChance:
        """The card State.sample_chance would pick for the same ``rng`` (deck.draw),
        without listing the outcomes."""
        pool = self.pool
        if self.phase != _REVEAL or self.top_others or self.top_parchments or not pool:
            sampled: BonsaiChance = super().sample_chance(rng)
            return sampled
        return REVEAL[draw(pool, rng.random())]

    def _draw_odds(self) -> list[tuple[str, float]]:
        return draw_odds(self.top_parchments, self.top_others, self.pool)

    def legal_actions(self, seat: int) -> list[BonsaiAction]:
        if seat != self.current or self.phase == _OVER or self.phase in CHANCE_PHASES:
            return []
        return list(self._decision())  # a copy: a caller sorting it changes nothing

    def _decision(self) -> list[BonsaiAction]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._list_actions(self.seats[self.current])
        return legal

    def _parse(self, action: object) -> BonsaiAction:
        """The listed action ``action`` spells (niwa.engine.actions), else IllegalAction."""
        legal = self._decision()
        for listed in legal:
            if listed is action:  # the common case: a listed action handed back
                return listed
        parsed: BonsaiAction = LegalActions(legal).parse(action, self._refusal)
        return parsed

    def _list_actions(self, me: Seat) -> list[BonsaiAction]:
        phase = self.phase
        if phase == _CHOOSE:
            return moves.choose_actions(self, me)
        if phase == _MASTER:
            return list(CHOOSE_TILE)
        if phase in PLACING_PHASES:
            return moves.placing_actions(self, me)
        if phase == _CLAIM:
            g = self.pending_goals[0]
            claim = GOAL_DECISIONS.get(g)  # None for a goal id no rules data knows
            if claim is None:
                return [{"type": "claim", "goal": g}, {"type": "renounce", "goal": g}]
            return list(claim)
        supply = me.supply
        return [DISCARD[t] for t in range(4) if supply[t]]

    def eligible(self, seat: Seat, goal: str) -> bool:
        """A goal still on the table, not renounced, in a colour not yet held (§4.3)."""
        colour = GOALS[goal].colour
        return (
            goal in self.goals_open
            and goal not in seat.renounced
            and all(GOALS[g].colour != colour for g in seat.claimed)
        )

    def scores(self) -> list[dict[str, int]]:
        return [breakdown(s.trees, s.cards, s.claimed) for s in self.seats]

    def solo_won(self) -> bool:
        """Solo win: three goals claimed and the level's points reached (bonsai.md §8);
        the Emperor challenge: 140 points and all five goals, 3 + 2 on the two bonsai."""
        me = self.seats[0]
        total = self.scores()[0]["total"]
        if self.emperor:
            split = sorted(me.claimed_on.count(b) for b in (0, 1))
            return total >= EMPEROR_TARGET and split == [2, 3]
        target = SOLO_LEVELS[self.options["soloLevel"]]
        return len(me.claimed) >= GOAL_COLOURS_IN_PLAY and total >= target

    def result(self) -> Result:
        totals = [s["total"] for s in self.scores()]
        # Ties go to the player seated latest in turn order (bonsai.md §5).
        keys = [(t, seat) for seat, t in enumerate(totals)]
        return Result(scores=tuple(float(t) for t in totals), places=places_from_keys(keys))

    # --- applying moves ---------------------------------------------------------------
    def apply(self, joint: Mapping[int, Action]) -> None:
        phase = self.phase
        if phase == _OVER:
            raise IllegalAction(rule("§7.2"), "the game is over")
        mover = CHANCE if phase in CHANCE_PHASES else self.current
        # the common case (a one-entry dict) is checked without building sets
        if not (type(joint) is dict and len(joint) == 1 and mover in joint) and (
            not isinstance(joint, Mapping) or set(joint) != {mover}
        ):
            who = "chance" if mover == CHANCE else f"seat {mover}"
            raise IllegalAction(rule("§7.1"), f"exactly one move is expected, from {who}")
        action = joint[mover]
        if mover == CHANCE:
            self._apply_chance(action)
        else:
            self._apply_player(action)
        self._legal = None  # only reached when the move was legal and is now applied

    def _apply_chance(self, action: Action) -> None:
        pool = self.pool
        kind = action.get("card") if type(action) is dict else None
        # The common case: a reveal sampled here (REVEAL's own object) of a card the
        # deck holds, with no Tokonoma top pile; anything else is checked in full.
        if not (
            type(kind) is str
            and action is REVEAL.get(kind)
            and self.phase == _REVEAL
            and pool.get(kind)
            and not self.top_others
            and not self.top_parchments
        ):
            self._apply_chance_checked(action)
            return
        left = pool[kind] - 1  # deck.take inlined
        if left:
            pool[kind] = left
        else:
            del pool[kind]
        self._revealed(kind)

    def _apply_chance_checked(self, action: Action) -> None:
        outcome = self._outcome(action)
        if outcome is None:
            raise IllegalAction(rule("§3"), f"{action!r} is not a possible chance outcome")
        if outcome["type"] == "goals":
            self._lay_out_goals(outcome["colours"])
            self._continue_reveals()
            return
        kind = outcome["card"]
        if self.top_others or (self.top_parchments and sum(self.top_parchments.values())):
            if self.top_parchments.get(kind, 0):
                take(self.top_parchments, kind)
            else:
                self.top_others -= 1
                take(self.pool, kind)
        else:
            take(self.pool, kind)
        self._revealed(kind)

    def _revealed(self, kind: str) -> None:
        """The card just drawn goes to the board, or to the discards when burnt."""
        if self.burn:
            self.burn = False
            self.discards.append(kind)
        else:
            board = self.board
            # the gap next to the deck: the last empty slot (ValueError if none)
            board[len(board) - 1 - board[::-1].index(None)] = kind
        left = self._deck_left()
        if not left and self.action is not None:
            # The last card is revealed: everyone, the trigger player last, gets one
            # more turn (bonsai.md §7.2; solo §8).
            self.end_triggered = True
            self.turns_left = self.players
        if self.burn or (left and None in self.board):  # _needs_reveal, the deck known
            self.phase = _REVEAL
        else:
            self._go_on()

    def _outcome(self, action: Action) -> BonsaiChance | None:
        """The chance outcome ``action`` spells if it is possible now, else None."""
        if self.phase == _GOAL_SETUP:
            return next((a for a, _ in self.chance_outcomes() if a == action), None)
        # exactly {type, card}, checked without building sets
        if not isinstance(action, dict) or len(action) != 2 or "card" not in action:
            return None
        card = action["card"]
        if action.get("type") != "reveal" or not can_draw(
            self.top_parchments, self.top_others, self.pool, card
        ):
            return None
        return REVEAL.get(card)  # can_draw found it in the deck: a card kind's name

    def _lay_out_goals(self, colours: list[str]) -> None:
        """3 colours, all 3 tiles each; 1-2 players leave out the middle tile (§4.2)."""
        self.goal_colours = list(colours)
        self.goals_open = [
            g
            for g in GOAL_ORDER
            if GOALS[g].colour in colours and not (self.players <= 2 and GOALS[g].level == "mid")
        ]

    def _needs_reveal(self) -> bool:
        return self.burn or (None in self.board and self._deck_left())

    def _continue_reveals(self) -> None:
        """Reveal until the row is full or the deck is out, then go on with the turn."""
        if self._needs_reveal():
            self.phase = _REVEAL
        else:
            self._go_on()

    def _go_on(self) -> None:
        """The turn after the row is refilled: its start, the placements or the card."""
        if self.action is None:
            self._start_turn(0)
        elif self.action == "cultivate":
            self.allowance = self.seats[self.current].cultivate_allowance()
            self.phase = _CULTIVATE
        else:
            self._resolve_card()

    def _resolve_card(self) -> None:
        """The card's effect, after the refill (bonsai.md §7.1, DECIDED order)."""
        me = self.seats[self.current]
        assert self.card is not None
        card = CARD_KINDS[self.card]
        me.cards.append(self.card)
        if card.type == "master":
            for t in card.tiles:
                if t is None:
                    self.wild_tiles += 1
                else:
                    me.supply[t] += 1
            if self.wild_tiles:
                self.phase = _MASTER
                return
        elif card.type == "helper" and card.tile is not None:
            self.allowance = [0, 0, 0, 0, 1]
            self.allowance[card.tile] += 1
            self.phase = _HELPER
            return
        self._check_goals()

    def _apply_player(self, action: Action) -> None:
        me = self.seats[self.current]
        kind = action.get("type") if isinstance(action, dict) else None
        if self.phase in PLACING_PHASES and kind == "place":
            t, k = moves.placement(self, me, action)
            self._place(me, t, k)
            return
        listed = self._parse(action)
        # the most frequent kinds first; each test narrows ``listed`` to one kind
        if listed["type"] == "meditate":
            self._meditate(me, listed)
        elif listed["type"] == "discard":
            me.supply[TILE_CODE[listed["tile"]]] -= 1
            if sum(me.supply) <= me.capacity():
                self._end_turn()
        elif listed["type"] == "end_placing":
            self.allowance = [0, 0, 0, 0, 0]
            self._check_goals()
        elif listed["type"] == "cultivate":
            self._cultivate()
        elif listed["type"] == "choose_tile":
            me.supply[TILE_CODE[listed["tile"]]] += 1
            self.wild_tiles -= 1
            if not self.wild_tiles:
                self._check_goals()
        elif listed["type"] == "claim" or listed["type"] == "renounce":
            self._decide_goal(me, listed)
        elif listed["type"] == "remove":
            u, v = listed["cell"]
            me.remove(key(u, v))
        else:  # flip_pot
            me.flipped = True

    def _refusal(self, action: Action) -> tuple[str, str]:
        types = sorted({a["type"] for a in self._decision()})
        return (
            moves.phase_rule(self.phase),
            f"{action!r} is not legal in phase {str(self.phase)!r}; pick one of the legal"
            f" actions (types now: {', '.join(types)})",
        )

    def _place(self, me: Seat, t: int, k: int) -> None:
        """Tile ``t`` on cell key ``k``, a placement moves.placement found legal."""
        me.supply[t] -= 1
        me.place(k, t)
        # A tile uses a slot of its own type first, then a wild slot (bonsai.md §2.4).
        self.allowance[t if self.allowance[t] else ANY] -= 1

    def _meditate(self, me: Seat, action: Meditate) -> None:
        """Take the card and its slot tiles, then slide the row (bonsai.md §3, §8)."""
        i = action["slot"] - 1
        self.card = self.board[i]
        self.board[i] = None
        for t in SLOTS[i].take:
            me.supply[t] += 1
        if SLOTS[i].choice:
            me.supply[TILE_CODE[action["tile"]]] += 1
        if self.solo:
            # Solo: discard the card left of the one taken, or burn the top deck card.
            if i == 0:
                self.burn = self._deck_left()
            elif (left := self.board[i - 1]) is not None:
                self.discards.append(left)
                self.board[i - 1] = None
        self.action = "meditate"
        self._slide()
        self._continue_reveals()

    def _cultivate(self) -> None:
        self.action = "cultivate"
        if self.solo and self.board[3] is not None:
            # Solo: discard the card farthest from the deck (bonsai.md §8).
            self.discards.append(self.board[3])
            self.board[3] = None
            self._slide()
        self._continue_reveals()

    def _slide(self) -> None:
        """Cards slide right to close gaps; empty slots gather next to the deck (§3)."""
        cards = [c for c in self.board if c is not None]
        self.board = [None] * (4 - len(cards)) + cards

    def _check_goals(self) -> None:
        """After the action, each goal met must be claimed or renounced (§4.3)."""
        me = self.seats[self.current]
        self.phase = _CLAIM
        if not self.goals_open:
            self.pending_goals = []
            self._check_capacity()
            return
        met = goals_met_by(self.goals_open, me.growth())
        if met:  # rare: the met goals this seat may still take
            held = {GOALS[g].colour for g in me.claimed}
            renounced = me.renounced
            met = [g for g in met if GOALS[g].colour not in held and g not in renounced]
        self.pending_goals = met
        if not met:
            self._check_capacity()

    def _decide_goal(self, me: Seat, action: Goal) -> None:
        goal = action["goal"]
        if action["type"] == "claim":
            me.claimed.append(goal)
            me.claimed_on.append(me.active)  # the Emperor's goals belong to one bonsai
            self.goals_open.remove(goal)
        else:
            me.renounced.append(goal)
        self.pending_goals = [g for g in self.pending_goals[1:] if self.eligible(me, g)]
        if not self.pending_goals:
            self._check_capacity()

    def _check_capacity(self) -> None:
        me = self.seats[self.current]
        if sum(me.supply) > me.capacity():
            self.phase = _DISCARD
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        if self.emperor and self.action == "cultivate":
            # The marker moves to the other bonsai after each Cultivate, once its goals
            # are settled (bonsai.md §8.1; the timing is DECIDED, docs/games/bonsai.md).
            me = self.seats[self.current]
            me.active = 1 - me.active
        if self.end_triggered:
            if self.turns_left == 0:
                self.phase = _OVER
                return
            self.turns_left -= 1
        self._start_turn((self.current + 1) % self.players)

    def _start_turn(self, seat: int) -> None:
        self.current = seat
        self.phase = _CHOOSE
        self.action = None
        self.card = None
        self.allowance = [0, 0, 0, 0, 0]
        self.wild_tiles = 0
        self.pending_goals = []

    # --- copies, views ----------------------------------------------------------------
    def clone(self) -> BonsaiState:
        c = BonsaiState.__new__(BonsaiState)
        c.__dict__.update(self.__dict__)
        c.goal_colours = list(self.goal_colours)
        c.goals_open = list(self.goals_open)
        c.board = list(self.board)
        c.top_parchments = dict(self.top_parchments)
        c.pool = dict(self.pool)
        c.discards = list(self.discards)
        c.allowance = list(self.allowance)
        c.pending_goals = list(self.pending_goals)
        c.seats = [s.copy() for s in self.seats]
        return c

    def to_json(self) -> dict[str, JSON]:
        return codec.to_json(self)

    def observe(self, seat: int | None) -> dict[str, JSON]:
        return views.observe(self, seat)

    def render(self, seat: int | None = None) -> str:
        return render.render(self, seat)

    def describe(self, seat: int, action: Action) -> str:
        return render.describe(self, seat, action)
