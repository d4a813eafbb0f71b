"""Pairing, seating and duplicate rounds (niwa/ladder/scheduler.py)."""

from __future__ import annotations

import random

from niwa.ladder.scheduler import (
    Candidate,
    LeagueDraw,
    assign_seats,
    pick_group,
    player_count,
    rotations,
)
from niwa.ladder.skill import Skill


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


# Provisional bots (niwa.ladder.skill): first to play, against the most informative opponents
SETTLED = 80.0  # a settled bot's sigma, well below PROVISIONAL_SIGMA


def test_a_provisional_bot_goes_first_though_others_played_less() -> None:
    bots = [
        Candidate(1, 1500, 0, skill=Skill(1500, SETTLED)),
        Candidate(2, 1500, 12, skill=Skill(1500, 300)),
        Candidate(3, 1500, 0, skill=Skill(1500, SETTLED)),
    ]
    for seed in range(20):
        assert pick_group(bots, 2, random.Random(seed))[0].bot_id == 2


def test_among_provisional_bots_the_least_played_goes_first() -> None:
    bots = [
        Candidate(1, 1500, 0, skill=Skill(1500, SETTLED)),
        Candidate(2, 1500, 9, skill=Skill(1500, 300)),
        Candidate(3, 1500, 4, skill=Skill(1500, 200)),
    ]
    for seed in range(20):
        assert pick_group(bots, 2, random.Random(seed))[0].bot_id == 3


def test_a_provisional_bot_meets_the_settled_bots_nearest_its_online_rating() -> None:
    # the Elo column (the running Elo) says nothing here: the online mu decides
    newcomer = Candidate(1, 1500, 3, skill=Skill(1800, 250))
    bots = [
        newcomer,
        Candidate(2, 1500, 5, skill=Skill(1790, SETTLED)),  # even: the most to learn
        Candidate(3, 1500, 5, skill=Skill(1830, SETTLED)),
        Candidate(4, 1500, 5, skill=Skill(1300, SETTLED)),  # lopsided: little to learn
        Candidate(5, 1500, 5, skill=Skill(2300, SETTLED)),
        Candidate(6, 1500, 5, skill=Skill(1500, SETTLED)),
    ]
    for seed in range(30):
        group = pick_group(bots, 2, random.Random(seed))
        assert group[0] == newcomer
        assert group[1].bot_id in {2, 3}


def test_a_provisional_bot_prefers_a_known_opponent_to_another_newcomer() -> None:
    bots = [
        Candidate(1, 1500, 0, skill=Skill(1500, 300)),
        Candidate(2, 1500, 1, skill=Skill(1500, 350)),  # as even, but as unknown
        Candidate(3, 1500, 1, skill=Skill(1550, SETTLED)),
        Candidate(4, 1500, 1, skill=Skill(1450, SETTLED)),
    ]
    for seed in range(30):
        assert pick_group(bots, 2, random.Random(seed))[1].bot_id in {3, 4}


def test_a_provisional_sparring_partner_still_never_leads() -> None:
    bots = [
        Candidate(1, 1500, 0, partner=True, skill=Skill(1500, 350)),
        Candidate(2, 1500, 7, skill=Skill(1500, SETTLED)),
        Candidate(3, 1500, 7, skill=Skill(1500, SETTLED)),
    ]
    for seed in range(20):
        assert pick_group(bots, 2, random.Random(seed))[0].bot_id in {2, 3}


def test_a_provisional_bot_s_opponents_stay_in_its_league() -> None:
    newcomer = Candidate(1, 1500, 0, skill=Skill(1500, 350))
    bots = [
        newcomer,
        Candidate(2, 1500, 5, skill=Skill(1900, SETTLED)),  # its league, but far
        Candidate(3, 1500, 5, skill=Skill(1950, SETTLED)),
        Candidate(4, 1500, 5, skill=Skill(1500, SETTLED)),  # the league above, even
        Candidate(5, 1500, 5, skill=Skill(1500, SETTLED)),
    ]
    draw = LeagueDraw({1: 0, 2: 0, 3: 0, 4: 1, 5: 1}, share_above=0.0)
    for seed in range(30):
        group = pick_group(bots, 3, random.Random(seed), leagues=draw)
        assert {c.bot_id for c in group} == {1, 2, 3}


def test_without_online_ratings_the_least_played_bot_leads_as_before() -> None:
    bots = [Candidate(1, 1500, 4), Candidate(2, 1500, 1), Candidate(3, 1700, 4)]
    for seed in range(20):
        group = pick_group(bots, 2, random.Random(seed))
        assert group[0].bot_id == 2 and not group[0].provisional
