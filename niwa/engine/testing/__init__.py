"""The engine's guarantees as importable checks, for every game, in or out of this repo.

* :mod:`niwa.engine.testing.checks`: the conformance checks, plain functions that raise
  AssertionError naming the step and the broken promise;
* :func:`conformance_tests`: those checks as one parametrised pytest test, for a
  registered game name or a Game object, at every player count and option set;
* :mod:`niwa.engine.testing.playthrough`: golden playthroughs, a fixed-seed match's full log
  (views, legal actions, moves, chance, result) to check in and replay.

Nothing here touches files, clocks or the global random state; pytest is imported only
inside :func:`conformance_tests`.
"""

from niwa.engine.testing.cases import Case, default_cases, option_cases
from niwa.engine.testing.checks import ALL_CHECKS, playout, random_joint
from niwa.engine.testing.suite import conformance_cases, conformance_tests

__all__ = [
    "ALL_CHECKS",
    "Case",
    "conformance_cases",
    "conformance_tests",
    "default_cases",
    "option_cases",
    "playout",
    "random_joint",
]
