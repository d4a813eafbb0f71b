"""``Move.answered``: the referee's fast spelling of an OK move."""

from __future__ import annotations

from niwa.referee.failures import MoveStatus
from niwa.referee.replay import Move


def test_answered_equals_the_same_move_built_by_its_constructor() -> None:
    fast = Move.answered(2, {"type": "play", "card": 7}, 1.5, 0.25, 900, "hi", "dbg")
    slow = Move(2, {"type": "play", "card": 7}, MoveStatus.OK, 1.5, 0.25, 900, "hi", debug="dbg")
    assert fast == slow
    assert fast.line() == slow.line()
    assert repr(fast) == repr(slow)
