"""Sakura evaluation: tokens held, plus the tokens the line of painters is heading for.

What it values and why:
* **Tokens** are the score (sakura.md §8).
* **The next scoring**: each painter is credited the reward its place in the line would
  earn if the next unscored sakura scored now (sakura.md §7: nearest the Emperor first),
  discounted by how far the Emperor still has to walk, because every round's cards
  reshuffle the line; halfway to the sakura the credit is worth half.
* **Standing right behind the Emperor** costs a little: any forward step or the Emperor
  stepping back disgraces that painter (a token and three spaces, sakura.md §6 #6, #7).
* Ties on tokens go to the painter nearest the Emperor (§8), so position breaks ties.
All of it is public (positions, tokens, the scored sakura). The court painter of a
two-player game moves and takes rewards like anyone, so it is in the line, but only the
seats are valued (it cannot win unless ``courtCanWin``, and then it is one more rival).
The difference between seats is turned into [0, 1] values with a logistic of scale 3
tokens (one typical first-place reward).
"""

from __future__ import annotations

from niwa.engine import State
from niwa.engine.evaluation import Memo, relative_values
from niwa.engine.rulesets.sakura.garden import GATE
from niwa.engine.rulesets.sakura.scoring import rewards_for
from niwa.engine.rulesets.sakura.state import DRAWING, SakuraState

#: Emperor steps to the sakura at which its rewards count half.
HALF_DISTANCE = 6.0
#: Tokens a painter is likely to lose from standing right behind the Emperor.
BUMP_RISK = 0.35
#: Tie-break weight of a step along the path (tiny against one token).
POSITION_WEIGHT = 0.01
SCALE = 3.0


def evaluate(state: State) -> list[float]:
    assert isinstance(state, SakuraState)
    g = state.garden
    # players (so the board and the counts that follow), the court's option, then the
    # garden: everything the value reads, all of it public
    key = (state.players, state.options["courtCanWin"], g.emperor, g.supply,
           *g.painters, *g.tokens, *g.scored)
    return _VALUES.get(key, lambda: _evaluate(state)).copy()  # a copy: callers own theirs


def blind_to_chance(state: State) -> bool:
    """Whether the pending chance outcome cannot change :func:`evaluate`: a deal or a
    draw puts a card in a hand, and no draw moves a piece (sakura.md §6 #17); only the
    court card revealed in a two-player game (§9) goes on to move pieces."""
    assert isinstance(state, SakuraState)
    return state.phase in DRAWING



#: Values by everything they depend on: a search meets the same garden again and again
#: (in 300 iterations, about three evaluations in five repeat one already made).
_VALUES: Memo[tuple[object, ...], list[float]] = Memo()


def _evaluate(state: SakuraState) -> list[float]:
    g = state.garden
    painters, tokens = g.painters, g.tokens
    strength = [float(t) for t in tokens]
    scored = g.scored
    if False in scored:
        upcoming = scored.index(False)
        rewards = rewards_for(state.players, upcoming == len(scored) - 1)
        distance = max(g.board.sakura[upcoming] - g.emperor, 0)
        weight = HALF_DISTANCE / (HALF_DISTANCE + distance)
        supply = g.supply
        # painters ranked past the rewards get none; the rewards may outnumber the ranked
        for painter, reward in zip(g.ranking(), rewards, strict=False):
            strength[painter] += weight * (supply if supply < reward else reward)  # min()
    behind = g.emperor - 1
    for p, here in enumerate(painters):
        if here == behind and here != GATE and tokens[p] > 0:
            strength[p] -= BUMP_RISK
        strength[p] += POSITION_WEIGHT * here
    court_competes = state.court is not None and bool(state.options["courtCanWin"])
    valued = len(painters) if court_competes else state.players
    return relative_values(strength[:valued], SCALE)[: state.players]

