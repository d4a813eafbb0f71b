"""The conformance suite as pytest tests, for any game, in or out of this repository.

pytest is imported only when :func:`conformance_tests` is called, so importing
``niwa.engine.testing`` needs no test tooling (the engine stays sans-IO and dependency-free).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from niwa.engine import Game
from niwa.engine.testing.cases import Case, as_game, default_cases, option_cases
from niwa.engine.testing.checks import ALL_CHECKS

#: The cheapest check, run at many seeds.
TERMINATION = "terminates_with_consistent_result"
#: The checks that only matter for a game with hidden information.
LEAK_CHECKS = frozenset({"no_leak", "hidden_views_agree"})


def conformance_cases(
    *games: Game | str, seeds: Sequence[int] = (1, 2), termination_seeds: int = 40
) -> list[tuple[Case, str, int]]:
    """(case, check name, seed) for every check of :data:`ALL_CHECKS`.

    Default options, at every player count: every check at each of ``seeds``, and the
    termination check at seeds ``0 .. termination_seeds - 1``. Each option variant of
    :func:`option_cases`: every check at the first seed (the leak checks only if the
    game has hidden information)."""
    out: list[tuple[Case, str, int]] = []
    for game in map(as_game, games):
        for case in default_cases(game):
            out += [(case, TERMINATION, seed) for seed in range(termination_seeds)]
            out += [(case, c, s) for c in ALL_CHECKS if c != TERMINATION for s in seeds]
        # where nothing is hidden the leak checks only re-test determinize = from the
        # observation, which the default cases already do: keep variants cheap
        variant_checks = [
            c for c in ALL_CHECKS if game.info.hidden_information or c not in LEAK_CHECKS
        ]
        for case in option_cases(game):
            out += [(case, c, seeds[0]) for c in variant_checks]
    return out


def conformance_tests(
    *games: Game | str, seeds: Sequence[int] = (1, 2), termination_seeds: int = 40
) -> Callable[..., None]:
    """A pytest test function that runs every conformance check on ``games``.

    Each game is a registered name (``"mygame"``) or a Game object (no registration
    needed). Bind the result to a ``test_`` name in a test module::

        from niwa.engine.testing import conformance_tests

        test_mygame_conformance = conformance_tests("mygame")

    and run ``pytest that_file.py``: one test per game, player count, option set, check
    and seed, with ids like ``mygame-3p-no_leak-seed1``."""
    if not games:
        raise ValueError("conformance_tests needs at least one game (a name or a Game)")
    import pytest  # only here: the engine itself never needs pytest

    cases = conformance_cases(*games, seeds=seeds, termination_seeds=termination_seeds)
    ids = [f"{case.label}-{check}-seed{seed}" for case, check, seed in cases]

    @pytest.mark.parametrize(("case", "check", "seed"), cases, ids=ids)
    def test_conformance(case: Case, check: str, seed: int) -> None:
        ALL_CHECKS[check](case.game, case.players, seed, case.options or None)

    return test_conformance
