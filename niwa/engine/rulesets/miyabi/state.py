"""The Miyabi game state: round set-up by chance, the turn as two small decisions
(take a tile from the middle or pass; then place it), scoring and the round end."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import compress

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
from niwa.engine.rulesets.miyabi import codec, moves, render, views, views_json
from niwa.engine.rulesets.miyabi.garden import Garden, Placement
from niwa.engine.rulesets.miyabi.rules import (
    CLOCKWISE,
    FIRST_START_PLAYER,
    KIND_SHAPE,
    KIND_TYPE,
    NKINDS,
    PHASES,
    SHAPE_KINDS,
    SHAPES,
    TILE_SET,
    TYPES,
    Rules,
    kind_of,
)
from niwa.engine.rulesets.miyabi.scoring import earns_bonus, end_scoring, placement_points

DEAL, CHOOSE, PLACE, OVER = PHASES
SHAPE_INDICES = range(len(SHAPES))


class MiyabiState(State):
    __slots__ = (
        "_legal",
        "_owned",
        "bonus_left",
        "chosen",
        "current",
        "display",
        "gardens",
        "phase",
        "players",
        "removed",
        "round",
        "rules",
        "start",
        "supply",
        "to_deal",
    )

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.players = players
        self.round = 1
        self.start = FIRST_START_PLAYER % players  # the youngest, miyabi.md §4
        self.phase = DEAL
        self.current = -1  # the seat taking its turn, -1 while dealing or over
        self.chosen = -1  # the kind taken from the middle, during PLACE
        self.to_deal = [0] * len(SHAPES)  # tiles still to lay out this round, per shape
        self.supply = list(TILE_SET)  # face down in the box lid, miyabi.md §2.2
        self.display = [0] * NKINDS  # face up in the middle
        self.removed = [0] * NKINDS  # leftovers of past rounds, out of the game
        self.bonus_left = [True] * len(TYPES)  # layer-5 bonus tiles still beside the board
        self.gardens = [Garden() for _ in range(players)]
        #: per garden: whether only this state holds it. A copy shares its gardens, and
        #: whichever state changes one first copies it then (:meth:`_garden`): a move
        #: changes one garden at most, so copying every garden with the state was
        #: mostly wasted (a tenth of a three-player search).
        self._owned = [True] * players
        self._legal: LegalActions | None = None  # the current decision's, once listed

    def _garden(self, seat: int) -> Garden:
        """``seat``'s garden, to be changed: copied first if another state shares it."""
        if not self._owned[seat]:
            self.gardens[seat] = self.gardens[seat].clone()
            self._owned[seat] = True
        return self.gardens[seat]

    def _decision(self) -> LegalActions:
        """The current decision's legal actions, listed once and kept until the next
        apply; the actions are the shared ones of moves.py."""
        legal = self._legal
        if legal is None:
            if self.phase == PLACE:
                by_col = moves.PLACE[KIND_TYPE[self.chosen]]
                listed: list[Action] = [
                    by_col[col][orientation.rotation]
                    for col, orientation, _, _ in self.gardens[self.current].open_spots(
                        self.rules, self.chosen
                    )
                ]
            else:
                take = moves.TAKE
                listed = [take[k] for k in self.takeable(self.current)]
                if not listed or self.rules.voluntary_pass:  # miyabi.md §5.2
                    listed.append(moves.PASS)
            legal = self._legal = LegalActions(listed)
        return legal

    # turn structure (miyabi.md §5.1)
    def start_round(self) -> None:
        """Lanterns back, the info card's tiles to lay out (miyabi.md §5.1)."""
        for seat in range(self.players):
            g = self._garden(seat)
            g.lanterns = [False] * len(g.lanterns)
            g.passed = False
        for s in range(len(SHAPES)):
            in_box = sum(self.supply[kind_of(s, t)] for t in range(len(TYPES)))
            self.to_deal[s] = min(self.rules.tiles_per_round[s], in_box)
        self.phase = DEAL
        self.current = -1
        if not any(self.to_deal):
            self._begin_turns()

    def _begin_turns(self) -> None:
        self.phase = CHOOSE
        self.current = self.start

    def _advance(self) -> None:
        """Next seat clockwise that is still in the round, else the round ends."""
        players, current, gardens = self.players, self.current, self.gardens
        for step in range(CLOCKWISE, CLOCKWISE * (players + 1), CLOCKWISE):
            seat = (current + step) % players
            g = gardens[seat]
            if not (g.passed or all(g.lanterns)):  # Garden.done, inlined: asked every turn
                self.phase, self.current, self.chosen = CHOOSE, seat, -1
                return
        self._end_round()

    def _end_round(self) -> None:
        """Leftovers leave the game; the bonsai moves on (miyabi.md §5.1, §7)."""
        for k, n in enumerate(self.display):
            self.removed[k] += n
        self.display = [0] * NKINDS
        self.chosen = -1
        if self.round >= self.rules.rounds:
            self.phase, self.current = OVER, -1
            for seat, points in enumerate(end_scoring(self.rules, self.gardens)):
                g = self._garden(seat)
                g.end = points
                g.score += sum(points.values())
            return
        self.round += 1
        self.start = (self.start + CLOCKWISE) % self.players
        self.start_round()

    def dealing_shape(self) -> int:
        for s in compress(SHAPE_INDICES, self.to_deal):  # the first with tiles to deal
            return s
        raise StopIteration("no tile is left to deal this round")

    # the contract
    def to_move(self) -> tuple[int, ...]:
        if self.phase == DEAL:
            return (CHANCE,)
        if self.phase == OVER:
            return ()
        return (self.current,)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase != DEAL:
            return []
        kinds, odds = self._deal_odds()
        return [(moves.DEAL[k], p) for k, p in zip(kinds, odds, strict=True)]

    def _deal_odds(self) -> tuple[list[int], list[float]]:
        """The kinds the next tile dealt may be, and the chance of each."""
        supply, kinds, counts = self.supply, [], []
        for k in SHAPE_KINDS[self.dealing_shape()]:
            if n := supply[k]:
                kinds.append(k)
                counts.append(n)
        total = sum(counts)
        return kinds, [n / total for n in counts]

    def sample_chance(self, rng: Rng) -> Action:
        """The tile State.sample_chance would deal for the same ``rng`` (the same sums
        in the same order), without listing the outcomes."""
        if self.phase != DEAL:
            raise ValueError("no chance outcome is pending")
        kinds, odds = self._deal_odds()
        x = rng.random() * sum(odds)
        for k, p in zip(kinds, odds, strict=True):
            x -= p
            if x < 0:
                return moves.DEAL[k]
        return moves.DEAL[kinds[-1]]

    def takeable(self, seat: int) -> list[int]:
        """Kinds in the middle that ``seat`` can place somewhere."""
        return self.gardens[seat].placeable(self.rules, self.display)

    def legal_actions(self, seat: int) -> list[Action]:
        if self.phase not in (CHOOSE, PLACE) or seat != self.current:
            return []
        return self._decision().listing()

    def apply(self, joint: Mapping[int, Action]) -> None:
        phase = self.phase
        mover = CHANCE if phase == DEAL else self.current
        # the common case (a one-entry dict for the one mover) is checked without sets
        if not (type(joint) is dict and len(joint) == 1 and mover in joint and phase != OVER):
            seats = self.to_move()
            if not isinstance(joint, Mapping) or set(joint) != set(seats):
                wanted = f"a move for seat {seats[0]}" if seats else "no move (the game is over)"
                given = list(joint) if isinstance(joint, Mapping) else joint
                raise IllegalAction("miyabi.md §5.1", f"expected {wanted}, got moves for {given!r}")
        if phase == DEAL:
            kind = moves.parse_deal(self, joint[CHANCE])
            self._legal = None
            self._deal(kind)
            return
        action = joint[mover]
        if phase == PLACE and (placement := moves.shared_placement(self, action)) is not None:
            self._legal = None  # a listed placement, known without searching the listing
            self._place(placement)
            return
        # a legal action is read from the table; anything else is parsed for the rule it
        # breaks
        found = self._decision().match(action)
        if phase == CHOOSE:
            kind = (
                moves.parse_choice(self, mover, action)
                if found is None
                else moves.chosen_kind(found)
            )
            self._legal = None
            if kind < 0:
                self._garden(mover).passed = True
                self._advance()
            else:
                self.display[kind] -= 1
                self.chosen, self.phase = kind, PLACE
        else:
            spot = (
                moves.parse_placement(self, mover, action)
                if found is None
                else moves.listed_placement(self, found)
            )
            self._legal = None
            self._place(spot)

    def _deal(self, kind: int) -> None:
        self.supply[kind] -= 1
        self.display[kind] += 1
        self.to_deal[KIND_SHAPE[kind]] -= 1
        if not any(self.to_deal):
            self._begin_turns()

    def _place(self, placement: Placement) -> None:
        """Place, lantern, score, bonus (miyabi.md §5.2, §6.1, §6.2)."""
        g, kind = self._garden(self.current), self.chosen
        g.place(kind, placement)
        g.score += placement_points(kind, placement.layer)
        obj = KIND_TYPE[kind]
        if self.bonus_left[obj] and earns_bonus(self.rules, placement.layer):
            self.bonus_left[obj] = False
            g.bonuses.append(obj)
            g.score += self.rules.bonus_points[obj]
        self._advance()

    def result(self) -> Result:
        scores = tuple(float(g.score) for g in self.gardens)
        return Result(scores=scores, places=places_from_keys(scores))  # finalTie: shared

    def clone(self) -> MiyabiState:
        c = MiyabiState.__new__(MiyabiState)
        c.rules, c.players, c.round, c.start = self.rules, self.players, self.round, self.start
        c.phase, c.current, c.chosen = self.phase, self.current, self.chosen
        c.to_deal = self.to_deal[:]
        c.supply = self.supply[:]
        c.display = self.display[:]
        c.removed = self.removed[:]
        c.bonus_left = self.bonus_left[:]
        c.gardens = self.gardens.copy()  # shared until one side changes one (_garden)
        c._owned = [False] * self.players
        self._owned = [False] * self.players
        c._legal = self._legal  # never changed in place, so the copy may share it
        return c

    def to_json(self) -> dict[str, JSON]:
        return codec.to_json(self)

    def snapshot_text(self) -> str:
        return codec.to_text(self)

    @classmethod
    def from_json(cls, snapshot: Mapping[str, JSON]) -> MiyabiState:
        return codec.from_json(snapshot, cls)

    def observe(self, seat: int | None) -> dict[str, JSON]:
        return views.observe(self, seat)

    def observe_json(self, seat: int | None) -> str:
        return views_json.observation_json(self, seat)

    def render(self, seat: int | None = None) -> str:
        return render.table(self, seat)

    def describe(self, seat: int, action: Action) -> str:
        return render.describe(self, seat, action)
