"""Reinforcement-learning adapters: niwa's games as PettingZoo and OpenSpiel games.

Install with ``pip install niwa[rl]``. ``niwa.adapters.pettingzoo`` and
``niwa.adapters.openspiel`` import their framework; the modules they share
(:mod:`niwa.adapters.spaces`, :mod:`niwa.adapters.features`,
:mod:`niwa.adapters.outcome`) need only the engine and numpy. See docs/rl.md.
"""
