"""Bonsai (DV Games, 2022) for 1 to 4 players; 1 player is the solo mode.

Each player grows a bonsai of hexagonal tiles (wood, leaf, flower, fruit) out of a bud
planted in a pot. A turn is one action, then goals, then the capacity check:

* **Meditate**: take one of the four face-up Zen cards plus the tiles printed under its
  slot (slot 2: wood or leaf; 3: wood and flower; 4: leaf and fruit); the row slides
  right and a new card is revealed; then the card acts: Growth (one more placement of
  its type per Cultivate), Tool (+2 capacity), Master (take tiles, wild ones of your
  choice), Helper (place a wild tile and/or one of its type at once), Parchment (end
  scoring). **Cultivate**: place tiles from your supply, one per slot of the Seishi
  (wild + wood + leaf) and of each Growth card. Wood and leaf grow next to wood, flowers
  next to leaves, fruit between two touching leaves and never next to a fruit.
* Goals: when the bonsai meets an open goal tile the player must claim it (one per
  colour) or renounce it for good. Then the supply is cut down to capacity.

When the last deck card is revealed, everyone gets one more turn, the trigger player
last. Scores: leaf 3, fruit 7, flower 1 per free side, plus Parchments and goals; ties
go to the player seated latest. Solo: cards are discarded as you play, and you win with
three goals claimed and the points of your level (80/100/120/140). The Emperor challenge
(option ``soloScenario``) grows two bonsai in turn for all five intermediate goals.

Chance: the goal colours and every card reveal are chance nodes drawn from the deck
multiset. Nothing else is hidden: cards are taken face up, so the engine remembers them
for everyone (docs/games/bonsai.md).

Files: ``game.py`` the info and options; ``state.py`` the rules' state machine (set-up,
turn flow, chance); ``moves.py`` the legal actions of each decision and the rule each
refused move breaks; ``seat.py`` a player's side of the table; ``tree.py`` placement and
the goal measures of a bonsai; ``deck.py`` the lazy deck; ``scoring.py`` goals and final
scores; ``rules.py`` the rules data as constants and the hex geometry; ``views.py``
observe and determinize; ``codec.py`` snapshots in the shared envelope; ``render.py``
text pictures and narration; ``data/`` the rules data, each file with its provenance.
"""

from niwa.engine.rulesets.bonsai.game import BonsaiGame

GAME = BonsaiGame()

__all__ = ["GAME", "BonsaiGame"]
