"""A bounded ladder run (``max_matches``) played to its end by a test, failing with the
reason instead of waiting for ever when no match can be played any more."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import ACTIVE, SUSPENDED, Store

#: Seconds between looks at the store while the run plays.
LOOK_S = 1.0


def played_out(settings: Settings) -> int:
    """Run a ladder until ``settings.max_matches`` rated matches finished, as
    ``Runner(settings).run`` does; return how many did. A ladder with fewer than two
    active bots in a game waits for more (as it should, serving people); a test's
    would wait for ever, so it is stopped and the test fails naming the suspended bots
    and why (a sandbox that cannot start them, say)."""
    assert settings.max_matches is not None, "an unbounded run never ends by itself"
    stop = threading.Event()
    store = Store.open(settings.db_url, settings.data_dir)
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="ladder-run") as running:
            run = running.submit(Runner(settings).run, stop)
            while not run.done():
                threading.Event().wait(LOOK_S)
                stuck = _unplayable(store, settings.game_names())
                if stuck and not run.done():
                    stop.set()
                    run.result()
                    pytest.fail(stuck)
            return run.result()
    finally:
        store.close()


def _unplayable(store: Store, games: list[str]) -> str:
    """Why no match of ``games`` can be scheduled any more ("" while one can)."""
    for game in games:
        if len(store.bots.bots(game, [ACTIVE])) >= 2:
            continue
        suspended = store.bots.bots(game, [SUSPENDED])
        if suspended:
            why = "; ".join(f"{b.label}: {b.reason}" for b in suspended)
            return f"{game}: fewer than two active bots, the run cannot finish ({why})"
    return ""
