"""The CPU watchdog: stops a call as soon as the bot's CPU time passes its time left.

One per seat for the whole match, started in the match's nursery. Arming it for a call
only moves a deadline, which wakes nobody: a call that ends within its budget (nearly
every call) costs no task and no scheduling pass. A nursery with a watcher task per
call cost every sandboxed decision a task, a timer and a wait for the task to end.
"""

from __future__ import annotations

import math

import trio

from niwa.referee.players import Player

#: Shortest wait of the watchdog between two reads of the bot's CPU time.
MIN_POLL_S = 0.001


class CpuWatchdog:
    """Watches one seat's calls, one at a time (a seat has one call in flight).

    Under its cgroup's quota a bot uses at most one CPU-second per second, so waiting
    for the budget left never waits past the moment it runs out (and the first look
    can wait for the whole budget: most calls end before it)."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self._call: trio.CancelScope | None = None
        self._cpu0 = 0.0
        self._budget_s = 0.0
        self._nap = trio.CancelScope()

    def arm(self, cpu0: float, budget_s: float, call: trio.CancelScope) -> None:
        """Cancel ``call`` once the bot's CPU time since ``cpu0`` passes ``budget_s``."""
        self._call, self._cpu0, self._budget_s = call, cpu0, budget_s
        self._nap.deadline = trio.current_time() + max(budget_s, MIN_POLL_S)

    def disarm(self) -> None:
        """The call ended: stop watching it."""
        self._call = None
        self._nap.deadline = math.inf

    async def run(self) -> None:
        """Sleep until a look is due, look, repeat; until cancelled."""
        while True:
            with self._nap:
                await trio.sleep_forever()
            self._nap = trio.CancelScope()
            if self._call is None:  # ended between the deadline and this look
                continue
            now = self.player.cpu_seconds()
            if now is None:  # not measurable (any more): the wall cap stays
                self._call = None
                continue
            left = self._budget_s - (now - self._cpu0)
            if left < 0:
                self._call.cancel()
                self._call = None
            else:
                self._nap.deadline = trio.current_time() + max(left, MIN_POLL_S)
