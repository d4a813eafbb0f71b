"""``niwa play --human``'s usage errors: each names the fix, exit status 2, and no match
or server starts."""

from __future__ import annotations

import pytest

from niwa.cli import main


def test_a_human_seat_past_the_last_is_refused_naming_the_seats(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "blossom", "--human", "3", "--bot", "builtin:random"]) == 2
    assert "--human 3: with 1 --bot the seats are 0 to 1" in capsys.readouterr().err


def test_a_bad_human_time_control_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["play", "blossom", "--human", "--bot", "builtin:random", "--human-time", "soon"]
    assert main(args) == 2
    assert "--human-time: bad time control 'soon'" in capsys.readouterr().err


def test_a_person_name_that_is_not_a_bot_name_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["play", "blossom", "--human", "--bot", "builtin:random", "--human-name", "a b"]
    assert main(args) == 2
    assert "a person's 'name' must be" in capsys.readouterr().err
