"""Time controls and per-seat clocks (docs/protocol.md, "Clocks").

A time control is a per-decision allowance plus a bank: a decision may use its
allowance for free, and whatever it uses beyond that is drawn from the bank. A
decision that needs more than allowance + bank has timed out, and the bank is then
empty for the rest of the match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: On the CPU clock, a call may take this many times its time left in wall time.
WALL_FACTOR = 2
#: Extra time past a bot's deadline before the referee stops waiting (transport slack).
GRACE_S = 0.05

#: A person's time control when none is given (``niwa play --human``): two minutes a
#: move and twenty in the bank, so a slow thought never times out while a walk away
#: from the table still ends the match.
HUMAN_TIME_MS = (120_000, 1_200_000)

_PART = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")
_UNIT_MS = {"ms": 1.0, "s": 1000.0, "m": 60_000.0}


def parse_duration_ms(text: str) -> int:
    """``"500ms"``, ``"1s"``, ``"1.5s"``, ``"2m"`` or a bare number of seconds, in ms."""
    m = _PART.match(text)
    if m is None:
        raise ValueError(f"bad duration {text!r}: write it like 500ms, 1s or 2m")
    return round(float(m.group(1)) * _UNIT_MS[m.group(2) or "s"])


@dataclass(frozen=True)
class TimeControl:
    """Per-decision time plus a bank, both in milliseconds."""

    per_decision_ms: int
    bank_ms: int = 0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Parse ``"1s+30s"`` (per decision + bank) or ``"1s"`` (no bank)."""
        per, _, bank = text.partition("+")
        try:
            tc = cls(parse_duration_ms(per), parse_duration_ms(bank) if bank else 0)
        except ValueError as e:
            raise ValueError(f"bad time control {text!r}: {e}; e.g. 1s+30s") from None
        if tc.per_decision_ms <= 0:
            raise ValueError(
                f"bad time control {text!r}: the per-decision time must be above 0, e.g. 1s+30s"
            )
        return tc

    def __str__(self) -> str:
        return f"{_fmt(self.per_decision_ms)}+{_fmt(self.bank_ms)}"

    def to_json(self) -> dict[str, int]:
        return {"per_decision_ms": self.per_decision_ms, "bank_ms": self.bank_ms}


def _fmt(ms: int) -> str:
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


class Clock:
    """One seat's clock: how long the next decision may take, and the bank left."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_ms: float = control.bank_ms

    def time_left_ms(self) -> float:
        """The longest the next decision may take: its allowance plus the bank."""
        return self.control.per_decision_ms + self.bank_ms

    def expire(self) -> None:
        """A TIMEOUT: the bank is empty for the rest of the match."""
        self.bank_ms = 0.0

    def charge(self, used_ms: float) -> bool:
        """Account one decision that took ``used_ms``; False if it ran out of time."""
        over = used_ms - self.control.per_decision_ms
        if over <= 0:
            return True
        if over > self.bank_ms:
            self.bank_ms = 0.0
            return False
        self.bank_ms -= over
        return True


def wall_cap_s(time_left_ms: float, cpu: bool) -> float:
    """The gRPC deadline of a call: the wall time it may take, in seconds."""
    if cpu:
        return WALL_FACTOR * time_left_ms / 1000 + GRACE_S
    return time_left_ms / 1000
