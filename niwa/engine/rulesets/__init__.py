"""The games that come with niwa, one package each (``niwa/engine/rulesets/<name>/``).

Each registers through the entry-point group ``niwa.games`` (see pyproject.toml), so
``engine.games()`` lists it and ``engine.load(name)`` returns its ``GAME``. They live
here, not in a subpackage named ``games``, because importing such a subpackage would
replace the function ``engine.games`` with the package.
"""
