"""Information-set Monte Carlo tree search over the engine contract (any game).

One tree per decision, for the searching seat. Each iteration samples the hidden
information with ``game.determinize`` (so the search only uses what the seat saw), walks
the tree choosing actions by UCB, and stops at the first new node. From there a short
random rollout is played and the position is valued by the game's heuristic
(``niwa.bots.heuristics``), or played out to the end where a game has none.

* Different determinizations allow different actions, so a node keeps, per action, how
  often it was *available* and uses that in place of the parent's visit count
  (subset-armed bandit, as in Cowling, Powley and Whitehouse's ISMCTS).
* Chance outcomes are sampled with their probabilities and become tree edges, except
  those the searching seat will not see (a card dealt into another seat's hand, listed
  per game in ``niwa.bots.redeal``): they all lead to one node, as the seat's information
  sets do. Branching on them made a new node at every such draw, so past a round's
  draws no node was ever visited twice (Sakura 3-6p) and the seeding there was spent
  on nodes visited once.
* Simultaneous decisions are decoupled: every pending seat picks its own action by its
  own statistics at that node; the joint move is the edge.
* Rewards are per seat, in [0, 1]; each seat maximises its own (paranoia-free "max^n").
* Exploration is small (0.2): the evaluations' values of sibling moves differ by a few
  hundredths, and with 0.7 the visits spread almost evenly, so the most visited move
  was close to a random one (Miyabi, mcts 0.05 s vs greedy over 20-30 games: 0.33 at
  0.7, 0.80 at 0.25, 0.78 at 0.1).
* With a heuristic, the first time the search decides at a node, each action there
  starts with ``prior_visits`` virtual visits at the heuristic's value of the position
  right after it (progressive bias): a short search then plays at least like the
  one-step greedy bot, and a longer one corrects it. Seeding every node, not only the
  root, keeps a move's value from being the average of random replies below it.
* A game without hidden information is determinized once, and each node keeps its state
  (up to ``KEPT_STATES`` a search): the walk applies moves only where it leaves the tree.
"""

from __future__ import annotations

import gc
import math
import operator
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from niwa import engine
from niwa.bots import draws, redeal
from niwa.bots.heuristics import BatchEvaluation, Evaluation, blind_to_chance
from niwa.engine import CHANCE, Action, Game, Result, State


def terminal_values(result: Result) -> list[float]:
    """Rewards at the end: 1 for first place, 0 for last, shared places share; one
    player alone (solo games) is valued by its score."""
    n = len(result.places)
    if n == 1:
        return [1 - 1 / (1 + max(result.scores[0], 0) / 50)]
    return [1 - p / (n - 1) for p in result.places]


class _Arm:
    """One action's statistics at a node, for one seat (slots: read in the UCB loop)."""

    __slots__ = ("available", "total", "visits")

    def __init__(self, visits: int = 0, total: float = 0.0) -> None:
        self.visits = visits
        self.total = total
        self.available = 0


_K = TypeVar("_K")
_V = TypeVar("_V")

#: The legal actions a seat had at a node, their keys, and their arms in the same order.
_Listing = tuple[list[Action], list[str], list[_Arm]]


class _Node:
    __slots__ = ("arms", "children", "known", "objects", "seats", "seen", "state")

    def __init__(self) -> None:
        # Most nodes are leaves, or chance nodes walked through, and a search makes
        # thousands: their containers are made when first needed (each made and freed
        # with every node cost a Sakura search about 3 %).
        self.children: dict[str, _Node] | None = None
        #: seat -> action key -> statistics; where seeding is on, a seat has arms here
        #: exactly when it has been seeded here (seeding makes them first)
        self.arms: dict[int, dict[str, _Arm]] | None = None
        #: seat -> its last listing here, with the keys and the arms found for it: the
        #: next visit whose legal actions equal it (always, without hidden information)
        #: skips the keys and the look-ups
        self.seen: dict[int, _Listing] | None = None
        #: action key -> the seeding's value right after it, while that child is not
        #: made (only where it is exactly what expanding the child would compute)
        self.known: dict[str, list[float]] | None = None
        #: at the root: seat -> id of an action object listed here -> (the object, its
        #: arm), where a seat's listings change (:meth:`ISMCTS._by_object`)
        self.objects: dict[int, dict[int, tuple[Action, _Arm]]] | None = None
        #: without hidden information: the state here, the same at every visit (never
        #: changed once kept), and who moves in it (() once the game is over)
        self.state: State | None = None
        self.seats: tuple[int, ...] | None = None


def _seat_arms(node: _Node, seat: int) -> dict[str, _Arm]:
    """``seat``'s arms at ``node`` by action key, made on first use."""
    by_seat = node.arms
    if by_seat is None:
        by_seat = node.arms = {}
    return _inner(by_seat, seat)


def _inner(outer: dict[int, dict[_K, _V]], seat: int) -> dict[_K, _V]:
    """``outer[seat]``, made empty on first use."""
    inner = outer.get(seat)
    if inner is None:
        inner = outer[seat] = {}
    return inner


def _new_arm(arms: dict[str, _Arm], key: str) -> _Arm:
    arm = arms[key] = _Arm()
    return arm


def _any(rng: random.Random, actions: list[Action]) -> Action:
    return actions[draws.below(rng, len(actions))]


def _movers(state: State) -> tuple[int, ...]:
    """Who moves in ``state``, ``()`` once it is over (a node keeps this with its state)."""
    return () if state.is_over() else state.to_move()


#: ``math.log(a)`` at index ``a``: UCB takes the log of an arm's availability, which never
#: exceeds the iterations made so far; a list look-up is cheaper than the call.
_LOGS: list[float] = [0.0, *map(math.log, range(1, 1024))]


def _more_logs() -> None:
    _LOGS.extend(map(math.log, range(len(_LOGS), 2 * len(_LOGS))))


#: Actions of the principal variation a search reports at most.
PV_LENGTH = 8

#: States a search keeps in its nodes at most (a few kB each): a long think stays bounded.
KEPT_STATES = 4096


@dataclass(frozen=True)
class SearchLimits:
    """When to stop: after ``iterations``, or when ``seconds`` have passed."""

    iterations: int | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class RootView:
    """What the last search saw at its root: each legal action's share of the visits
    (in legal's order), each seat's mean value over the walks, and the principal
    variation as action keys (canonical JSON); then, per legal action, its visits and
    its mean value for the searching seat (seeding's virtual visits included; 0 where
    never visited)."""

    shares: list[float]
    values: list[float]
    pv: list[str]
    visits: list[int] = field(default_factory=list)
    action_values: list[float] = field(default_factory=list)


class ISMCTS:
    """Search one decision of ``seat`` from its observation."""

    def __init__(
        self,
        game: Game,
        evaluate: Evaluation | None,
        *,
        exploration: float = 0.2,
        rollout_depth: int = 0,
        prior_visits: int = 4,
        seed_everywhere: bool = True,
        rng: random.Random | None = None,
    ) -> None:
        self.game = game
        self.evaluate = evaluate
        self.exploration = exploration
        # Without a heuristic, rollouts must reach the end of the game.
        self.rollout_depth = rollout_depth if evaluate is not None else 1_000_000
        #: values a node's seeding in one call, where the evaluation can (and no rollout
        #: comes between): a learned value's numpy calls then cost once per node
        self.many = (
            evaluate.many
            if isinstance(evaluate, BatchEvaluation) and not self.rollout_depth
            else None
        )
        self.prior_visits = prior_visits if evaluate is not None else 0
        self.rng = rng or random.Random(0)
        self.seed_everywhere = seed_everywhere
        self.iterations = 0
        self.root_view = RootView([], [], [])
        # Without hidden information a node's state is the same at every visit, so the
        # value seeding computed right after an action is the value of that child when
        # it is expanded: kept, it saves the expansion's apply and evaluation.
        self.reuse_values = not game.info.hidden_information
        #: repr of an action -> its canonical JSON, the key of its arms and edges: the
        #: same action built by different code paths may differ in key order, so the
        #: canonical form is the identity; a ``repr`` is much cheaper to make, and an
        #: engine hands out equal actions again and again. Owned by this search, so it
        #: lives as long as the bot that made it and no longer.
        self._keys: dict[str, str] = {}
        self._objects: dict[int, tuple[Action, str]] = {}
        # Without hidden information nodes keep their states (:meth:`_enter`).
        self.keep_states = not game.info.hidden_information
        self._kept = 0
        self.unseen: redeal.Unseen | None = None
        # Pending chance the evaluation cannot see is left undrawn (heuristic alone).
        self.blind = blind_to_chance(game.info.name, evaluate) if not self.rollout_depth else None

    def choose(
        self,
        observation: dict[str, Any],
        seat: int,
        legal: list[Action],
        limits: SearchLimits,
    ) -> tuple[int, dict[str, Any]]:
        """The index into ``legal`` to play, and statistics for a note."""
        if len(legal) == 1:
            self.root_view = RootView(shares=[1.0], values=[], pv=[], visits=[0])
            return 0, {"iterations": 0}
        root = _Node()
        deadline = None if limits.seconds is None else time.monotonic() + limits.seconds
        self.iterations = 0
        # Without hidden information every determinization is the same state: build it
        # once and copy it (a copy is ~40x cheaper than rebuilding from the observation).
        # With it, a game listed in niwa.bots.redeal copies one and deals its hidden cards again.
        base = self.game.determinize(observation, seat, self.rng)
        if self.game.info.hidden_information:
            deal = redeal.dealer(self.game.info.name, base, seat)
            self.unseen = redeal.unseen_chance(self.game.info.name, seat)
            fresh: Callable[[], State] = (
                (lambda: deal(self.rng)) if deal is not None
                else lambda: self.game.determinize(observation, seat, self.rng)
            )
        else:
            fresh = base.clone
            if self.keep_states:
                root.state = base
                self._kept = 1
        # The collector stays on, but what existed before the search (the modules, the
        # game, the caller's data) is set aside from its passes while the search runs:
        # a pass over the oldest generation walked all of it to free nothing (6-15 ms in
        # five Bonsai or Miyabi searches of 300 iterations). The search's own objects
        # are collected as ever. Undone after, unless the process had frozen objects
        # already (then they are the caller's to manage).
        freezing = gc.get_freeze_count() == 0
        if freezing:
            gc.freeze()
        totals: list[float] = []  # per seat, the values of every walk added up
        try:
            while True:
                if limits.iterations is not None and self.iterations >= limits.iterations:
                    break
                if self.iterations + 1 >= len(_LOGS):  # an arm is available once a walk
                    _more_logs()
                if deadline is not None and time.monotonic() >= deadline:
                    break
                kept = root.state
                values = self._walk(root, fresh() if kept is None else kept, kept is None)
                totals = list(map(operator.add, totals, values)) if totals else list(values)
                self.iterations += 1
        finally:
            if freezing:
                gc.unfreeze()
        arms = (root.arms or {}).get(seat, {})
        stats = [arms.get(self._key(a)) for a in legal]
        visits = [0 if arm is None else arm.visits for arm in stats]
        best = max(range(len(legal)), key=lambda i: (visits[i], -i))
        arm = stats[best]
        value = arm.total / arm.visits if arm is not None and arm.visits else 0.0
        all_visits = sum(visits)
        self.root_view = RootView(
            shares=[v / all_visits for v in visits] if all_visits else [],
            values=[t / self.iterations for t in totals],
            pv=self._line(root, self._key(legal[best])),
            visits=visits,
            action_values=[
                arm.total / arm.visits if arm is not None and arm.visits else 0.0
                for arm in stats
            ],
        )
        return best, {"iterations": self.iterations, "visits": visits[best], "value": value}

    def _line(self, root: _Node, first: str) -> list[str]:
        """The principal variation from ``root`` (action keys), ``first`` its first
        move: then at each node where one seat decides, its most visited action, while
        that one was visited past its seeding; it stops at chance and at joint moves
        (whose edge names several seats' actions)."""
        line = [first]
        node = root.children.get(first) if root.children and len(root.arms or ()) == 1 \
            else None
        while node is not None and len(line) < PV_LENGTH:
            if not node.arms or len(node.arms) != 1 or not node.children:
                break
            (arms,) = node.arms.values()
            key = max(arms, key=lambda k: arms[k].visits)
            if arms[key].visits <= self.prior_visits:
                break
            line.append(key)
            node = node.children.get(key)
        return line

    def _seed(
        self,
        node: _Node,
        state: State,
        seats: tuple[int, ...],
        legal: list[list[Action]],
        keys: list[list[str]],
        todo: list[int],
    ) -> None:
        """Progressive bias: each action of a seat in ``todo`` at ``node`` starts with
        ``prior_visits`` virtual visits at the heuristic's value right after it. Done the
        first time the search decides at a node, so a node is only seeded once it has
        been reached twice.

        Simultaneous seats are seeded together: the k-th joint move pairs the k-th
        action of every seat being seeded (in a random order, so each seat's action
        meets uniformly random actions of the others, as it would alone) and one
        evaluation values it for all of them; a seat with fewer actions, or already
        seeded, plays at random.

        One seat moving alone is seeded by :meth:`_seed_alone`, which keeps each value
        for the child's expansion (:attr:`_Node.known`) where no chance follows the
        action (its sampling would draw from the generator): with ``reuse_values`` for
        good, else for the walk that seeded (the next one deals another world)."""
        prior = self.prior_visits
        if len(seats) == 1:  # most decisions: no pairing, no draws
            self._seed_alone(node, state, seats[0], legal[0], keys[0])
            return
        rng = self.rng
        pending: dict[int, list[tuple[Action, str]]] = {}
        seeding = []
        for s in todo:
            arms = _seat_arms(node, s)
            at = seats.index(s)
            fresh = [(a, k) for a, k in zip(legal[at], keys[at], strict=True) if k not in arms]
            if len(seats) > 1:
                draws.shuffle(rng, fresh)
            pending[s] = fresh
            seeding.append((s, arms, fresh))
        rounds = max(len(fresh) for fresh in pending.values())
        columns = [pending.get(s) for s in seats]  # per seat in order: its fresh actions
        afters: list[State] = []
        found: list[list[float] | None] = []
        for i in range(rounds):
            joint: dict[int, Action] = {}
            for s, actions, column in zip(seats, legal, columns, strict=True):
                if column is not None and i < len(column):
                    joint[s] = column[i][0]
                else:
                    joint[s] = actions[draws.below(rng, len(actions))]
            after = state.clone()
            after.apply(joint)
            afters.append(after)
            found.append(self._value_now(after))
        for i, values in enumerate(self._evaluated(afters, found)):
            for s, arms, fresh in seeding:
                if i < len(fresh):
                    arms[fresh[i][1]] = _Arm(prior, values[s] * prior)

    def _seed_alone(
        self, node: _Node, state: State, seat: int, legal: list[Action], keys: list[str]
    ) -> None:
        """:meth:`_seed` of one seat moving alone, keeping the values for the children's
        expansion where that is exact."""
        arms = _seat_arms(node, seat)
        fresh = [(a, k) for a, k in zip(legal, keys, strict=True) if k not in arms]
        prior = self.prior_visits
        known: dict[str, list[float]] = {}
        afters: list[State] = []
        found: list[list[float] | None] = []
        exact = []
        for action, _key in fresh:
            after = state.clone()
            after.apply({seat: action})
            exact.append(after.to_move() != (CHANCE,))
            afters.append(after)
            found.append(self._value_now(after))
        values_after = self._evaluated(afters, found)
        for (_action, key), values, kept in zip(fresh, values_after, exact, strict=True):
            arms[key] = _Arm(prior, values[seat] * prior)
            if kept:
                known[key] = values
        if known:
            node.known = known

    def _key(self, action: Action) -> str:
        """The canonical JSON of ``action``: looked up by the object's identity first
        (engines hand out the same action objects again: Sakura's cards, shared chance
        outcomes; the memo holds each object, so no other can take its ``id``), then
        by its ``repr`` (:attr:`_keys`)."""
        hit = self._objects.get(id(action))
        if hit is not None and hit[0] is action:
            return hit[1]
        r = repr(action)
        k = self._keys.get(r)
        if k is None:
            if len(self._keys) > 200_000:
                self._keys.clear()
            k = self._keys[r] = engine.canonical_json(action)
        if len(self._objects) > 20_000:
            self._objects.clear()
        self._objects[id(action)] = (action, k)
        return k

    def _walk(self, root: _Node, state: State, owned: bool) -> list[float]:
        """One iteration: down the tree by UCB (seeding a node the first time the search
        decides there), through chance by sampling, until the first new node; then its
        value (rollout and heuristic) is backed up along the path, and returned.

        ``state`` is the root's: a kept one (``owned`` False; nodes then keep theirs,
        :meth:`_enter`) or this walk's own determinization, applied in place."""
        node = root
        # the arms picked on the way down and whose they are, for the back-up
        picked: list[_Arm] = []
        movers: list[int] = []
        seeding = self.prior_visits > 0
        seed_everywhere = self.seed_everywhere
        rng = self.rng
        unseen = self.unseen
        keep = self.keep_states
        select = self._select
        keys_of = self._keys_of
        values: list[float] | None = None
        while True:
            seats = node.seats if keep else None
            if seats is None:
                seats = () if state.is_over() else state.to_move()
                if keep:
                    node.seats = seats
            if not seats:
                break
            if seats == (CHANCE,):
                outcome = engine.sample_chance(state, rng)
                # an outcome the searching seat will not see leads to one node for all
                secret = unseen is not None and unseen(state)
                key = "c?" if secret else "c" + self._key(outcome)
                children = node.children
                if children is None:
                    children = node.children = {}
                child = children.get(key)
                if child is None:
                    child = children[key] = _Node()
                if owned and child.state is None:  # every step of a determinized walk
                    state.apply({CHANCE: outcome})
                else:
                    state, owned = self._enter(child, state, owned, {CHANCE: outcome})
                node = child
                continue
            todo: list[int] = []
            if seeding and (seed_everywhere or node is root):
                seeded = node.arms
                if seeded is None:
                    todo = list(seats)
                elif len(seats) == 1:  # most decisions
                    if seats[0] not in seeded:
                        todo = list(seats)
                else:
                    todo = [s for s in seats if s not in seeded]
            seen = node.seen
            if seen is None:
                seen = node.seen = {}
            if todo:  # the first decision here: listed, seeded, then the arms found
                self._seed_listed(node, state, seats, keep, todo)
            joint: dict[int, Action] = {}
            picks: list[str] = []
            for s in seats:
                listing = seen.get(s)
                if listing is not None and keep:  # a kept state's never changes
                    actions, named, arms = listing
                    i = select(arms)
                    key = named[i]
                else:
                    actions = state.legal_actions(s)
                    # Equal lists compare item by item in C (first by identity): far
                    # cheaper than a key per action.
                    if listing is not None and listing[0] == actions:
                        actions, named, arms = listing
                        i = select(arms)
                        key = named[i]
                    elif node is root and listing is not None:  # another world's
                        arms = self._by_object(node, s, actions)
                        i = select(arms)
                        key = self._key(actions[i])
                    else:
                        named = keys_of(actions)
                        arms = self._found(node, s, actions, named)
                        i = select(arms)
                        key = named[i]
                joint[s] = actions[i]
                picks.append(key)
                picked.append(arms[i])
                movers.append(s)
            edge = "|".join(picks)  # one seat's: its key itself
            known = node.known
            if known is not None and not self.reuse_values:
                node.known = None  # values in this walk's world: for this walk only
            children = node.children
            if children is None:
                children = node.children = {}
            child = children.get(edge)
            if child is None:
                child = children[edge] = _Node()
                values = None if known is None else known.pop(edge, None)
                if values is None:
                    state = self._expand(child, state, owned, joint)
                break
            if owned and child.state is None:
                state.apply(joint)
            else:
                state, owned = self._enter(child, state, owned, joint)
            node = child
        if values is None:
            values = self._value(state)
        # each arm picked counts the visit and its seat's value
        for arm, s in zip(picked, movers, strict=True):
            arm.visits += 1
            arm.total += values[s]
        return values

    def _seed_listed(
        self, node: _Node, state: State, seats: tuple[int, ...], kept: bool, todo: list[int]
    ) -> None:
        """Seeds the seats in ``todo`` at ``node`` (:meth:`_seed`), then makes every
        seat's listing there current, with its arms (seeding makes the seeded ones)."""
        seen = node.seen
        assert seen is not None
        legal: list[list[Action]] = []
        keys: list[list[str]] = []
        for s in seats:
            listing = seen.get(s)
            actions = listing[0] if listing is not None and kept else state.legal_actions(s)
            legal.append(actions)
            if listing is not None and listing[0] == actions:
                keys.append(listing[1])
            else:
                keys.append(self._keys_of(actions))
        self._seed(node, state, seats, legal, keys, todo)
        for s, actions, named in zip(seats, legal, keys, strict=True):
            self._found(node, s, actions, named)

    def _by_object(self, node: _Node, seat: int, actions: list[Action]) -> list[_Arm]:
        """The arms of ``actions`` for ``seat`` at the root, where the seat's listing
        changed: with hidden information it changes from one world to the next, in new
        combinations of the same objects (Sakura's hands), and the root is listed every
        walk, so it remembers each object's arm (holding the object, so no other takes
        its ``id``) and only the picked action's key is made. Deeper nodes are listed
        too seldom for that to pay (in Sakura 4p half their look-ups missed)."""
        tables = node.objects
        if tables is None:
            tables = node.objects = {}
        table = _inner(tables, seat)
        get = table.get
        arms = _seat_arms(node, seat)
        found = []
        for action in actions:
            row = get(id(action))
            if row is None or row[0] is not action:
                key = self._key(action)
                row = table[id(action)] = (action, arms.get(key) or _new_arm(arms, key))
            found.append(row[1])
        return found

    def _keys_of(self, actions: list[Action]) -> list[str]:
        """:meth:`_key` of each action, its identity memo read inline (a new listing,
        with hidden information, comes every step or two)."""
        memo = self._objects.get
        key = self._key
        return [
            hit[1] if (hit := memo(id(a))) is not None and hit[0] is a else key(a)
            for a in actions
        ]

    @staticmethod
    def _found(node: _Node, seat: int, actions: list[Action], named: list[str]) -> list[_Arm]:
        """The arms of ``named`` for ``seat`` at ``node``, in their order (made if new),
        remembered with the listing as the node's last one."""
        arms = _seat_arms(node, seat)
        get = arms.get
        found = [get(key) or _new_arm(arms, key) for key in named]
        seen = node.seen
        assert seen is not None
        seen[seat] = (actions, named, found)
        return found

    def _enter(
        self, child: _Node, state: State, owned: bool, move: dict[int, Action]
    ) -> tuple[State, bool]:
        """The state at ``child``, reached from ``state`` by ``move``: the one it keeps,
        else made (and kept, within the budget), and whether it is the walk's own."""
        kept = child.state
        if kept is not None:
            return kept, False
        if owned:
            state.apply(move)
            return state, True
        after = state.clone()
        after.apply(move)
        if self._kept < KEPT_STATES:
            child.state = after
            self._kept += 1
            return after, False
        return after, True

    def _expand(self, child: _Node, state: State, owned: bool, move: dict[int, Action]) -> State:
        """The state at a new ``child``, to be valued: kept too where valuing it changes
        nothing (the heuristic alone, no rollout, and no chance pending, which
        :meth:`_value` would sample into it)."""
        after = state if owned else state.clone()
        after.apply(move)
        read_only = not self.rollout_depth and self.evaluate is not None
        if read_only and not owned and self._kept < KEPT_STATES:
            seats = _movers(after)
            if seats != (CHANCE,):
                child.state = after
                child.seats = seats
                self._kept += 1
        return after

    def _select(self, arms: list[_Arm]) -> int:
        """UCB over the actions available now (``arms``, in legal's order), counting
        each arm's availability; the index of the one chosen."""
        untried: list[int] | None = None  # made only when one is (most calls: none)
        best = -1
        best_score = -math.inf
        c = self.exploration
        logs, sqrt = _LOGS, math.sqrt
        for i, arm in enumerate(arms):
            available = arm.available + 1
            arm.available = available
            visits = arm.visits
            if visits == 0:
                if untried is None:
                    untried = [i]
                else:
                    untried.append(i)
            elif untried is None:  # once one is untried, the scores decide nothing
                score = arm.total / visits + c * sqrt(logs[available] / visits)
                if score > best_score:
                    best_score, best = score, i
        if untried is not None:
            return untried[draws.below(self.rng, len(untried))]
        return best

    def _value_now(self, state: State) -> list[float] | None:
        """For seeding: :meth:`_value`, or, where the evaluation values many states at
        once, only its pending chance sampled (:meth:`_settle`) and None while the
        state is still to be evaluated, by :meth:`_evaluated` with its siblings. The
        draws are the same, in the same order."""
        return self._value(state) if self.many is None else self._settle(state)

    def _evaluated(
        self, states: list[State], values: list[list[float] | None]
    ) -> list[list[float]]:
        """``values`` (:meth:`_value_now` of ``states``) with each None filled by the
        evaluation, all in one call."""
        todo = [i for i, v in enumerate(values) if v is None]
        if todo:
            assert self.many is not None
            for i, found in zip(todo, self.many([states[i] for i in todo]), strict=True):
                values[i] = found
        return values  # type: ignore[return-value]  # every None was filled above

    def _settle(self, state: State) -> list[float] | None:
        """Samples ``state``'s pending chance (but what the evaluation is blind to);
        the rewards if the game is then over, else None."""
        rng = self.rng
        blind = self.blind
        while state.to_move() == (CHANCE,):
            if blind is not None and blind(state):
                break  # the evaluation reads nothing the outcomes would change
            state.apply({CHANCE: engine.sample_chance(state, rng)})
        return terminal_values(state.result()) if state.is_over() else None

    def _value(self, state: State) -> list[float]:
        """Rollout, then the heuristic (or the result); pending chance is sampled first."""
        over = self._settle(state)
        if over is not None:
            return over
        rng = self.rng
        if not self.rollout_depth and self.evaluate is not None:
            return self.evaluate(state)
        for _ in range(self.rollout_depth):
            if state.is_over():
                break
            seats = state.to_move()
            if seats == (CHANCE,):
                state.apply({CHANCE: engine.sample_chance(state, rng)})
            else:
                state.apply({s: _any(rng, state.legal_actions(s)) for s in seats})
        if state.is_over():
            return terminal_values(state.result())
        assert self.evaluate is not None
        return self.evaluate(state)
