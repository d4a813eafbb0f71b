"""Promotion past a boss on real sandboxed bots: in Blossom, where greedy beats random
nearly always, builtin:greedy starts in the lowest league, guarded by builtin:random,
and moves up once its rating's lower bound passes random's."""

from __future__ import annotations

import threading
from pathlib import Path

from niwa.ladder import leagues, submission
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, Store

GAME = "blossom"


def test_a_stronger_bot_is_promoted_past_its_boss(tmp_path: Path) -> None:
    url = str(tmp_path / "ladder.db")
    store = Store.open(url, tmp_path)
    try:
        climber = submission.builtin_bot(store, "greedy", GAME, ACTIVE).id
        gold_boss = submission.builtin_bot(store, "greedy", GAME, ACTIVE, alias="gold-boss").id
        setup = leagues.configure(
            store, GAME, ["bronze:builtin:random", f"gold:{gold_boss}"], share=0.0
        )
        random_boss = setup.leagues[0].boss_bot_id
        assert store.leagues.ranks(GAME) == {}  # everyone starts in the lowest
    finally:
        store.close()

    # a bounded run with a fixed seed: it ends after these matches, however slow the machine
    settings = Settings(
        url, tmp_path, workers=1, max_matches=16, seed=3, games=(GAME,), log_level="warning",
        builtins_in_process=False,  # every bot in its sandbox, as a submitted one would be
    )  # fmt: skip
    Runner(settings).run(threading.Event())

    store = Store.open(url, tmp_path)
    try:
        assert store.ratings.rated_count(GAME) == 16
        fit = store.ratings.rated_fit(GAME, [climber, gold_boss, random_boss])
        assert fit[climber].elo - fit[climber].ci95 > fit[random_boss].elo
        assert store.leagues.ranks(GAME) == {climber: 1}  # gold; the bosses never move
        since = store.db.scalar("SELECT since FROM league_members WHERE bot_id = ?", (climber,))
        assert since is not None
    finally:
        store.close()
