"""Every registered game, every player count and option set, every promise of the
engine contract: the suite from niwa.engine.testing, as a third-party game would run it."""

from __future__ import annotations

from niwa import engine
from niwa.engine.testing import conformance_cases, conformance_tests

test_registered_games = conformance_tests(*engine.games())


def test_every_registered_game_has_a_conformance_case() -> None:
    assert engine.games(), "no game is registered (is niwa installed?)"
    names = {case.game.info.name for case, _, _ in conformance_cases(*engine.games())}
    assert names == set(engine.games())
