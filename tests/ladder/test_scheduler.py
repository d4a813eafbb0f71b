"""Pairing, seating and duplicate rounds (niwa/ladder/scheduler.py)."""

from __future__ import annotations

import random

from niwa.ladder.scheduler import Candidate, assign_seats, pick_group, player_count, rotations


def test_the_least_played_bot_is_always_picked() -> None:
    bots = [Candidate(1, 1500, 9), Candidate(2, 1500, 3), Candidate(3, 1500, 9)]
    for seed in range(20):
        assert pick_group(bots, 2, random.Random(seed))[0].bot_id == 2


def test_opponents_come_from_the_nearest_ratings() -> None:
    bots = [
        Candidate(1, 1500, 0),
        Candidate(2, 1510, 5),
        Candidate(3, 1490, 5),
        Candidate(4, 1900, 5),
        Candidate(5, 1100, 5),
    ]
    for seed in range(30):
        group = pick_group(bots, 2, random.Random(seed))
        assert group[1].bot_id in {2, 3}


def test_a_group_never_holds_a_bot_twice() -> None:
    bots = [Candidate(i, 1500 + 10 * i, i) for i in range(6)]
    for seed in range(30):
        group = pick_group(bots, 4, random.Random(seed))
        assert len({c.bot_id for c in group}) == 4


def test_player_count_stays_within_the_game_and_the_bots() -> None:
    counts = {player_count(2, 4, 3, random.Random(s)) for s in range(50)}
    assert counts == {2, 3}


def test_player_count_is_zero_when_too_few_bots() -> None:
    assert player_count(3, 5, 2, random.Random(0)) == 0


def test_a_bot_is_moved_off_the_seat_it_has_used_most() -> None:
    counts = {(7, 0): 5, (8, 1): 5}
    for seed in range(10):
        assert assign_seats([7, 8], counts, random.Random(seed)) == [8, 7]


def test_seat_assignment_balances_three_players() -> None:
    counts: dict[tuple[int, int], int] = {}
    rng = random.Random(1)
    for _ in range(30):
        seated = assign_seats([1, 2, 3], counts, rng)
        for seat, bot in enumerate(seated):
            counts[bot, seat] = counts.get((bot, seat), 0) + 1
    assert set(counts.values()) == {10}


def test_duplicate_round_puts_every_bot_in_every_seat_once() -> None:
    rounds = rotations([4, 5, 6])
    assert rounds == [[4, 5, 6], [5, 6, 4], [6, 4, 5]]
    for seat in range(3):
        assert sorted(r[seat] for r in rounds) == [4, 5, 6]
