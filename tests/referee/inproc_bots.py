"""Misbehaving bots run in process (registered as built-ins by the tests that use them)."""

from __future__ import annotations

import time

from niwa.bots.sdk import Reply, Thinking, Turn


class OutOfRange:
    version = "0"

    def act(self, turn: Turn) -> int:
        return len(turn.legal_actions) + 5


class NamesAnAction:
    """Answers with the action itself (the last legal one) and a note."""

    version = "0"

    def act(self, turn: Turn) -> Reply:
        return Reply(action=turn.legal_actions[-1], note="last one")


class Slow:
    """Answers after 20 ms: past a 1 ms allowance with no bank, however fast the machine."""

    version = "0"

    def act(self, turn: Turn) -> int:
        time.sleep(0.02)
        return 0


class Raises:
    version = "0"

    def act(self, turn: Turn) -> int:
        raise RuntimeError("boom")


class Unserialisable:
    """Answers an action the referee cannot even write as JSON (a set), with a lone
    surrogate in its note: handling the answer raises inside the referee."""

    version = "0"

    def act(self, turn: Turn) -> Reply:
        return Reply(action={1, 2}, note="odd \ud800")  # type: ignore[arg-type]


class OddThinking:
    """Answers the first action with thinking the referee cannot read (shares as a
    generator, which has no length)."""

    version = "0"

    def act(self, turn: Turn) -> Reply:
        shares = (1.0 for _ in turn.legal_actions)
        return Reply(index=0, thinking=Thinking(shares=shares))  # type: ignore[arg-type]
