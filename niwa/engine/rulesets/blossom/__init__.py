"""Blossom (Tarte Games, 2025): 2-4 players move flowers between hand, yard and garden.

Rules summary (rules reference: docs/games/blossom.md):

* 33 cards: 3 cherries and 6 each of chrysanth, camellia, rose, lily of the valley and
  anemone. With 2 players 2 cards are removed unseen, with 3 players 1 (§2). Each player is
  dealt 3 cards; 5 go face up to the garden; the rest is the deck (§4).
* A turn is two actions, in any order, the same one twice allowed (§5): **Feed** (A: any
  hand cards face down into the yard; B: one hand card face up; C: turn face-down yard
  cards up), **Arrange** (score one face-up kind of your yard and move 1+ of them to the
  garden) or **Draw** (deck top or one garden card; one garden draw per turn; not the kind
  just arranged). Hand and yard hold at most 5 cards each at every moment (§3).
* Flower values are computed before anything moves; points are value × cards moved,
  rounded up to a multiple of 3 (§6). A cherry is arranged alone: 6 points, or 0 points and
  up to 3 deck draws (it reaches the garden after them).
* When the deck runs out the garden becomes the new deck, even mid-action (§7, §8).
* When anyone reaches 66 the round is finished; most points wins, then fewer cards in hand
  and yard (§9). The mulligan is an option.

Hidden: hands, face-down yard cards (counts public), removed cards and the deck. Chance:
every card dealt or drawn from the deck is a chance outcome; the dealer is drawn at random
unless the ``dealer`` option names a seat.

Where things are: ``game.py`` info, options and new games; ``state.py`` the rules' state
machine (set-up, turns, one method per action type); ``views.py`` observe and
determinize; ``codec.py`` to_json/from_json in the engine's snapshot envelope;
``render.py`` the text table and move sentences; ``rules.py`` the rules data as
constants; ``scoring.py`` flower values; ``data/rules.json`` the numbers, with their
provenance.
"""

from niwa.engine.rulesets.blossom.game import BlossomGame
from niwa.engine.rulesets.blossom.state import BlossomState

GAME = BlossomGame()

__all__ = ["GAME", "BlossomGame", "BlossomState"]
