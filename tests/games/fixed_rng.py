"""An rng that always returns one number: which chance outcome a given draw yields."""

from __future__ import annotations


class FixedRng:
    """``random()`` always returns ``x``; sampling chance must use nothing else."""

    def __init__(self, x: float) -> None:
        self.x = x

    def random(self) -> float:
        return self.x

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        raise AssertionError("sampling chance uses random() only")

    def shuffle(self, x: list[object]) -> None:
        raise AssertionError("sampling chance uses random() only")
