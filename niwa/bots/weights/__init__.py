"""The built-in games' learned values (``GAME.npz``) and their provenance (``GAME.json``),
made by ``niwa train value GAME``: see niwa.bots.learned."""
