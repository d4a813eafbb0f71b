"""Elo differences in the ladder's text and pages carry their sign; none reads "-0"."""

from __future__ import annotations

import pytest

from niwa.ladder.report import signed


@pytest.mark.parametrize(
    ("value", "shown"), [(-23.4, "-23"), (17.6, "+18"), (0.0, "+0"), (-0.4, "+0"), (0.4, "+0")]
)
def test_an_elo_difference_shows_its_sign_and_nothing_rounding_to_0_reads_minus(
    value: float, shown: str
) -> None:
    assert signed(value) == shown
