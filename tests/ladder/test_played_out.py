"""A test's bounded ladder run fails, naming the cause, when it can no longer finish."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.ladder import submission
from niwa.ladder.runner import Settings
from niwa.ladder.store import ACTIVE, SUSPENDED, Store
from tests.ladder.played_out import played_out


def test_a_run_whose_bots_are_all_suspended_fails_naming_them_instead_of_waiting(
    tmp_path: Path,
) -> None:
    store = Store.open(str(tmp_path / "ladder.db"), tmp_path)
    try:
        for alias in ("one", "two"):
            bot = submission.builtin_bot(store, "random", "blossom", ACTIVE, alias=alias)
            store.bots.set_bot_status(bot.id, SUSPENDED, "its sandbox could not import niwa")
    finally:
        store.close()
    settings = Settings(str(tmp_path / "ladder.db"), tmp_path, workers=1, max_matches=1,
                        games=("blossom",), log_level="warning")  # fmt: skip
    with pytest.raises(pytest.fail.Exception) as failed:
        played_out(settings)
    assert "blossom: fewer than two active bots, the run cannot finish" in str(failed.value)
    assert "one@" in str(failed.value) and "its sandbox could not import niwa" in str(failed.value)
