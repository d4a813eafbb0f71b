"""Sakura (Reiner Knizia, Osprey Games 2018) for 2-6 players; rules in docs/games/sakura.md.

A round: every seat secretly picks one card from a hand of five and all are revealed at
once (one joint move). Cards carry a unique order number 1-60, a garden action (move the
Emperor forward 1/2, back 1, forward-or-back 1, the closest painter back 2 or the furthest
painter forward 2) and a painter action (own painter forward 1-3, forward-or-back 1-3,
jump past the next painter ahead, or forward one space per painter ahead). They resolve
in order-number order, garden action first; a forward/back choice is asked of the card's
owner when the card resolves. Painters count only empty spaces; walking into the Emperor
(or being stepped on by him) is a disgrace: lose a token and go back three empty spaces.

Scoring: the first time the Emperor steps forward onto each of the three sakura spaces he
halts; the card's painter action still runs, the round's other cards are discarded, and
the painters nearest him earn 3/2/1 tokens (4 for the first at the last sakura, and 1 for
the fourth with 5-6 players), then line up behind the first. The game ends right after
the last sakura scores: most tokens wins, ties go to the tied painter nearest the Emperor.

Hidden: the other hands and the deck. Chance: the deal, every draw and (with two players)
the court painter's card, each a lazy draw from the unordered deck; an empty deck is
refilled from the discard pile. Two players add a court painter that always picks
forward and cannot win unless ``courtCanWin``; ``trickyVariant`` lets the human further
from the Emperor choose its card.

Where things are: ``game.py`` info, options and new games; ``state.py`` the round's state
machine; ``garden.py`` the path, the pieces and their moves (and the set-up);
``views.py`` observe and determinize; ``codec.py`` to_json/from_json in the engine's
snapshot envelope; ``render.py`` the text table and move sentences; ``rules.py`` the
rules data as typed constants; ``scoring.py`` rewards and final places; ``data/`` the
board, cards and numbers, each file with its provenance.
"""

from niwa.engine.rulesets.sakura.game import SakuraGame

GAME = SakuraGame()

__all__ = ["GAME", "SakuraGame"]
