"""The tests' walk of the cgroup hierarchy (tests/referee/sandboxing.py), which other
matches' groups leave and enter while it runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.referee.sandboxing import cgroups_named


def test_a_group_removed_while_walked_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for group in ("a/niwa-m-0-x", "gone/niwa-m-2-z", "niwa-m-1-y"):
        (tmp_path / group).mkdir(parents=True)
    listed = os.scandir

    def removed_once_listed(path: str) -> object:  # what a group removed just now gives
        if Path(path) == tmp_path / "gone":
            raise FileNotFoundError(2, "No such file or directory", path)
        return listed(path)

    monkeypatch.setattr(os, "scandir", removed_once_listed)
    found = cgroups_named("niwa-m-*", tmp_path)
    assert sorted(found) == [tmp_path / "a" / "niwa-m-0-x", tmp_path / "niwa-m-1-y"]
