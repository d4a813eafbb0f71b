"""Matchmaking for provisional bots: the runner plays a provisional bot first against
the opponents that teach most about it (a store whose online ratings are scripted), and
that pairing settles a newcomer in fewer matches than drawing its opponents uniformly
(a simulation: matches counted, never timed)."""

from __future__ import annotations

import random
import statistics

from niwa.ladder import skill, submission
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.scheduler import Candidate, pick_group
from niwa.ladder.skill import NEW, PROVISIONAL_SIGMA, Skill
from niwa.ladder.store import ACTIVE, Store

SETTLED = 80.0  # a settled bot's sigma


def script_skill(store: Store, bot_id: int, online: Skill, games: int) -> None:
    """Give ``bot_id`` an online rating and a count of rated matches, as if played."""
    store.db.execute(
        "INSERT INTO skills (bot_id, game, mu, sigma_sq, matches) VALUES (?, ?, ?, ?, ?)",
        (bot_id, "blossom", online.mu, online.sigma**2, online.matches),
    )
    store.db.execute("UPDATE ratings SET games = ? WHERE bot_id = ?", (games, bot_id))


def test_the_runner_queues_the_provisional_bot_against_its_most_informative_opponents(
    store: Store,
) -> None:
    ids = [
        submission.builtin_bot(store, "random", "blossom", ACTIVE, alias=f"random-{k}").id
        for k in range(12)
    ]
    newcomer, near, far = ids[0], ids[1:7], ids[7:]
    # it has played the most: only being provisional puts it first
    script_skill(store, newcomer, Skill(1500, 300, 6), games=30)
    for k, bot_id in enumerate(near):  # within 60 of its mu: near-even games
        script_skill(store, bot_id, Skill(1470 + 10 * k, SETTLED, 40), games=5)
    for k, bot_id in enumerate(far):  # 500 or more away: lopsided games
        script_skill(store, bot_id, Skill(2000 + 100 * k, SETTLED, 40), games=5)
    runner = Runner(Settings(db_url="unused", games=("blossom",), seed=11))
    for _ in range(10):
        assert runner._schedule_one(store) == 1
    queued = store.matches.matches(state="queued", limit=20)
    assert len(queued) == 10
    for match in queued:
        assert newcomer in match.seats
        assert set(match.seats) - {newcomer} <= set(near)


def test_once_settled_the_bot_that_played_least_leads_again(store: Store) -> None:
    ids = [
        submission.builtin_bot(store, "random", "blossom", ACTIVE, alias=f"random-{k}").id
        for k in range(3)
    ]
    script_skill(store, ids[0], Skill(1500, PROVISIONAL_SIGMA - 1, 20), games=30)
    script_skill(store, ids[1], Skill(1500, SETTLED, 40), games=2)
    script_skill(store, ids[2], Skill(1500, SETTLED, 40), games=9)
    runner = Runner(Settings(db_url="unused", games=("blossom",), seed=2))
    runner._schedule_one(store)
    (match,) = store.matches.matches(state="queued", limit=5)
    assert ids[1] in match.seats


# The simulation: a field of settled bots whose online ratings are their true ones, and
# a newcomer whose true Elo is 1800; two seats a match, results drawn from the true Elo
# expectation. Counted: the matches until the newcomer is no longer provisional.
FIELD = [1000.0 + 50 * k for k in range(21)]  # 1000 to 2000
NEWCOMER_ELO = 1800.0


def matches_to_settle(choose: str, seed: int) -> int:
    rng = random.Random(seed)
    field = {k + 1: Skill(elo, SETTLED, 50) for k, elo in enumerate(FIELD)}
    truth = {k + 1: elo for k, elo in enumerate(FIELD)} | {0: NEWCOMER_ELO}
    newcomer = NEW
    played = 0
    while newcomer.provisional:
        if choose == "informative":
            candidates = [Candidate(0, 1500, played, skill=newcomer)] + [
                Candidate(i, s.mu, 50, skill=s) for i, s in field.items()
            ]
            first, second = pick_group(candidates, 2, rng)
            assert first.bot_id == 0  # the provisional bot leads
            opponent = second.bot_id
        else:
            opponent = rng.choice(list(field))
        expected = 1 / (1 + 10 ** ((truth[opponent] - NEWCOMER_ELO) / 400))
        won = rng.random() < expected
        newcomer, field[opponent] = skill.update(
            [newcomer, field[opponent]], [0, 1] if won else [1, 0]
        )
        played += 1
        assert played < 1000, "a newcomer settles long before 1,000 matches"
    return played


def test_informative_pairing_settles_a_newcomer_in_fewer_matches_than_uniform_pairing() -> None:
    informative = [matches_to_settle("informative", seed) for seed in range(40)]
    uniform = [matches_to_settle("uniform", seed) for seed in range(40)]
    # 40 seeds each: about 16 matches against 23 (docs/ladder.md), and no informative
    # run as long as the shortest uniform one
    assert statistics.mean(informative) < statistics.mean(uniform)
    assert max(informative) < min(uniform)
