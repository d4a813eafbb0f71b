"""Uniform draws for the search and the games' re-deals, from one ``rng.random()`` each.

``random.Random``'s ``randrange``, ``shuffle`` and ``sample`` draw each index through a
Python-level rejection loop over ``getrandbits``; a search makes tens of such draws an
iteration (a Sakura redeal deals 20-odd hidden cards), and the loop was 6-8 % of a
six-player search. ``int(rng.random() * n)`` is one C call and a multiply, uniform to
within n / 2**53, far below anything a search of thousands of iterations can tell
apart. The engines draw their chance outcomes the same way (``sample_chance``).

The results differ from ``random.Random``'s own methods at the same seed, so the
search's choices at a fixed seed moved when it switched (see CHANGES.md); each
function keeps its distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from niwa.engine.api import Rng

T = TypeVar("T")


def below(rng: Rng, n: int) -> int:
    """A uniform index in ``range(n)``, ``n >= 1``."""
    i = int(rng.random() * n)
    return i if i < n else n - 1  # x * n can round up to n


def shuffle(rng: Rng, items: list[T]) -> None:
    """Shuffle ``items`` in place (Fisher-Yates), every order equally likely."""
    draw = rng.random
    for i in range(len(items) - 1, 0, -1):
        j = int(draw() * (i + 1))
        if j > i:
            j = i
        items[i], items[j] = items[j], items[i]


def sample(rng: Rng, population: Sequence[T], k: int) -> list[T]:
    """``k`` distinct items of ``population`` in random order, every selection and
    order equally likely (a partial Fisher-Yates over a copy)."""
    pool = list(population)
    n = len(pool)
    if not 0 <= k <= n:
        raise ValueError(f"cannot draw {k} of {n} items")
    draw = rng.random
    out = []
    for i in range(k):
        left = n - i
        j = int(draw() * left)
        if j >= left:
            j = left - 1
        out.append(pool[j])
        pool[j] = pool[left - 1]
    return out
