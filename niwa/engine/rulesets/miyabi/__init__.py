"""Miyabi (Michael Kiesling, HABA 2019) for 2 to 4 players (rules: docs/games/miyabi.md).

Each player builds a 6 x 6 Japanese garden. Every row is reserved for one object type
(maple, pagoda, fish, azalea, boxwood, stone from the top) and every column has a lantern
field. A game lasts 6 / 5 / 4 building rounds for 2 / 3 / 4 players. At the start of a
round the lantern fields are emptied and 2P singles, 2P doubles, P straight triples and P
corner triples (P = players) are drawn from the box and laid face up in the middle.

A turn is two small decisions. First the player takes a tile from the middle, or passes
and is out for the rest of the round (a pass is forced when no tile fits, voluntary
otherwise). Then the player places the tile: its object cell must lie in the row of its
object type and in a column whose lantern field is still empty, the whole tile must lie
inside the grid, and every cell beneath it must be at one height (the bare board, or tiles
of one level, possibly several of them). The column's lantern field is filled, so a
player places at most six tiles a round. The tile scores at once: objects on it (= its
cells) x the layer it lies on. The first tile of each object type placed on layer 5 also
earns that type's bonus tile. When every player has passed or filled all six lantern
fields the round ends: leftover tiles leave the game and the start player passes
clockwise (seat + 1).

After the last round each object type is scored by majority of the objects still
visible on top: most visible 10 points, second 5 (ties and values are options).
Variants A (the colorful garden: largest connected group of objects) and B (the big
meadow: largest connected group of green cells) are options. Most points wins; tied
players share the place.

Nothing is hidden: the 96 tiles are known and every draw is face up, so the box's
content follows from what has been seen. Chance is the round's layout: one chance
node per tile drawn, shape by shape, over the object types left in the box with
probability proportional to their counts. Every number the two known rulebook pages do
not print is a named option (data/config.json, miyabi.md §0) with a documented default.

Files: ``game.py`` the info, options and new games; ``state.py`` the rules' state
machine (rounds, turns, scoring as tiles are placed); ``moves.py`` each refused move
and the rule it breaks; ``garden.py`` one player's board; ``scoring.py`` placement
points, bonus tiles, end-game majorities and variants; ``rules.py`` the rules data as
constants, the options and the tile geometry; ``views.py`` observe and determinize;
``codec.py`` snapshots in the shared envelope and their canonical text;
``shared_json.py`` the read-only JSON that snapshots share between calls; ``render.py``
text pictures and narration; ``data/`` the rules data, each file with its provenance.
"""

from niwa.engine.rulesets.miyabi.game import MiyabiGame

GAME = MiyabiGame()

__all__ = ["GAME", "MiyabiGame"]
