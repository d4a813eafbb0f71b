"""A bot's thinking (``ActReply.thinking``), checked before the replay keeps it.

Thinking is never rated and never a failure: a decision stands whatever its thinking
says. One that breaks a rule (a share per legal action or none, a value per seat or
none, every number finite and in [0, 1], shares adding up to at most 1, principal
variation actions that are JSON) is dropped whole, and the move's debug text gets one
line saying why, where the bot's owner reads it (``niwa replay show``, ``niwa play
--debug``). A principal variation past PV_LIMIT actions or PV_BYTES bytes is cut, as
long debug text is. Numbers are kept to 4 decimals: the viewer draws bars, not digits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from niwa.bots.sdk import DEBUG_LIMIT, PV_BYTES, PV_LIMIT, SHARES_SLACK, Thinking, cut_debug
from niwa.engine import canonical_json
from niwa.referee.replay.model import MoveThinking

#: Legal actions past which shares are not kept (a replay line stays small).
MAX_SHARES = 1024
#: Decimals kept of a share or a value.
DIGITS = 4


@dataclass(frozen=True)
class Unreadable(Thinking):
    """Thinking from the wire whose principal variation did not decode: ``problem``
    says why, and :func:`record` drops it."""

    problem: str = ""


def record(thinking: Thinking, legal: int, players: int) -> MoveThinking | str | None:
    """``thinking`` as the replay keeps it, for a decision among ``legal`` actions in
    a match of ``players`` seats; None if it says nothing; or, if it breaks a rule,
    the one line saying why."""
    if isinstance(thinking, Unreadable):
        return thinking.problem
    shares = _numbers("shares", thinking.shares, (legal,), "legal actions")
    if isinstance(shares, str):
        return shares
    if legal > MAX_SHARES and shares:
        return f"shares for {legal} legal actions: at most {MAX_SHARES} are kept"
    if math.fsum(shares) > 1 + SHARES_SLACK:
        return f"shares add up to {math.fsum(shares):.6g}, above 1"
    values = _numbers("values", thinking.values, (players,), "seats")
    if isinstance(values, str):
        return values
    pv = _pv(thinking.pv)
    if isinstance(pv, str):
        return pv
    if not (shares or values or pv):
        return None
    return MoveThinking(
        shares=[round(x, DIGITS) for x in shares],
        values=[round(x, DIGITS) for x in values],
        pv=pv,
    )


def _numbers(
    name: str, numbers: Sequence[Any], lengths: tuple[int, ...], what: str
) -> list[float] | str:
    """``numbers`` as floats if there are none or one per ``what``, each finite and in
    [0, 1]; else why not."""
    if not numbers:
        return []
    if len(numbers) not in lengths:
        return f"{name} has {len(numbers)} numbers for {lengths[0]} {what}"
    out: list[float] = []
    for i, x in enumerate(numbers):
        if not isinstance(x, int | float) or isinstance(x, bool) or not 0 <= x <= 1:
            # (NaN fails both bounds)
            return f"{name}[{i}] is {str(x)[:20]}, not a number in [0, 1]"
        out.append(float(x))
    return out


def _pv(actions: Sequence[Any]) -> list[Any] | str:
    """The principal variation cut to PV_LIMIT actions and PV_BYTES bytes of JSON, or
    why it cannot be kept (an action that is not JSON)."""
    kept: list[Any] = []
    size = 0
    for i, action in enumerate(actions[:PV_LIMIT]):
        try:
            size += len(canonical_json(action).encode("utf-8"))
        except (TypeError, ValueError) as e:
            return f"pv[{i}] is not a JSON value ({type(e).__name__})"
        if size > PV_BYTES:
            break
        kept.append(action)
    return kept


def dropped_debug(debug: str, problem: str) -> str:
    """``debug`` with the line saying why the decision's thinking was dropped, within
    the debug bound."""
    line = f"[thinking dropped: {problem}]"
    if not debug:
        return cut_debug(line)
    room = DEBUG_LIMIT - len(line.encode("utf-8")) - 1
    return f"{cut_debug(debug, room)}\n{line}"

