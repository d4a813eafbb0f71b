"""niwa.bots.draws: the search's uniform draws, one ``random()`` each, keep their distributions."""

from __future__ import annotations

import random
from collections import Counter
from itertools import permutations

import pytest

from niwa.bots import draws


class Edge(random.Random):
    """A generator whose ``random()`` returns the largest float below 1."""

    def random(self) -> float:
        return 1.0 - 2.0**-53


def test_an_index_below_n_stays_below_n_even_at_the_top_of_the_unit_interval() -> None:
    assert [draws.below(Edge(), n) for n in (1, 2, 3, 7, 1_000_003)] == [0, 1, 2, 6, 1_000_002]


def test_every_index_below_n_is_drawn_about_equally_often() -> None:
    rng = random.Random(1)
    counts = Counter(draws.below(rng, 5) for _ in range(50_000))
    assert sorted(counts) == [0, 1, 2, 3, 4]
    assert all(abs(c - 10_000) < 400 for c in counts.values())  # ~4 standard deviations


def test_a_shuffle_is_a_permutation_and_every_order_comes_up_about_equally_often() -> None:
    rng = random.Random(2)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(24_000):
        items = [0, 1, 2, 3]
        draws.shuffle(rng, items)
        counts[tuple(items)] += 1
    assert set(counts) == set(permutations(range(4)))
    assert all(abs(c - 1_000) < 130 for c in counts.values())


def test_a_sample_draws_distinct_items_and_every_ordered_pick_about_equally_often() -> None:
    rng = random.Random(3)
    counts: Counter[tuple[str, ...]] = Counter()
    for _ in range(20_000):
        picked = draws.sample(rng, "abcde", 2)
        assert len(set(picked)) == 2
        counts[tuple(picked)] += 1
    assert set(counts) == set(permutations("abcde", 2))
    assert all(abs(c - 1_000) < 130 for c in counts.values())


def test_a_sample_leaves_its_population_alone_and_may_take_all_or_none() -> None:
    population = [3, 1, 2]
    rng = random.Random(4)
    assert sorted(draws.sample(rng, population, 3)) == [1, 2, 3]
    assert draws.sample(rng, population, 0) == []
    assert population == [3, 1, 2]


def test_a_sample_larger_than_its_population_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot draw 4 of 3"):
        draws.sample(random.Random(5), [1, 2, 3], 4)
