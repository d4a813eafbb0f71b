"""Provisional ratings: an online Weng–Lin update of each bot's (mu, sigma) per game.

The leaderboard's rating stays the batch fit (niwa.ladder.mle); this one exists for
matchmaking only: it says how little is known of a bot yet (``sigma``), so the scheduler
can play a new bot first and against the opponents that teach the most about it.

The update is the Plackett–Luce one of R. C. Weng and C.-J. Lin, "A Bayesian
approximation method for online ranking", JMLR 12 (2011) 267–300, Algorithm 4, one
player per team, with tied places handled as OpenSkill does (each term over a tied
group divided by the group's size). It runs on the Elo scale: ``BETA`` is chosen so
that two bots with certain ratings (sigma 0) expect the Elo score,
1 / (1 + 10^(-d/400)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: A new bot's rating and uncertainty, in Elo points (Glicko's starting deviation).
MU0 = 1500.0
SIGMA0 = 350.0
#: The performance noise of one match: c = sqrt(2) * BETA = 400 / ln 10 between two
#: certain bots, which makes exp(mu_i/c) / (exp(mu_i/c) + exp(mu_j/c)) the Elo expectation.
BETA = 400.0 / (math.log(10.0) * math.sqrt(2.0))
#: The least share of its variance a bot keeps after one match (the paper's kappa), so
#: sigma never collapses to 0 on a surprising result.
KAPPA = 1e-4
#: A bot is provisional while its sigma is above this: its 95 % interval (±1.96 sigma)
#: still wider than about ±300 Elo (a new bot's is ±686). Even games against settled
#: bots take a new bot there in 15 matches.
PROVISIONAL_SIGMA = 150.0
#: ... and while it has played fewer rated matches than this: a bot that loses (or
#: wins) every game teaches little per match, so its sigma may stay wide for long, and
#: the priority provisional bots get must end.
PROVISIONAL_MATCHES = 40


@dataclass(frozen=True)
class Skill:
    """What the online update knows of a bot in one game."""

    mu: float = MU0
    sigma: float = SIGMA0
    matches: int = 0  # rated matches that moved it

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA and self.matches < PROVISIONAL_MATCHES


NEW = Skill()


def update(skills: Sequence[Skill], places: Sequence[int]) -> list[Skill]:
    """Each seat's skill after a match where seat i finished at ``places[i]`` (0 first,
    equal places tied). Seats must be two or more."""
    if len(skills) != len(places) or len(skills) < 2:
        raise ValueError("a match needs two or more seats, one place each")
    c = math.sqrt(sum(s.sigma**2 + BETA**2 for s in skills))
    top = max(s.mu for s in skills)
    strength = [math.exp((s.mu - top) / c) for s in skills]  # shifted: same ratios, no overflow
    # C_q: the strengths of every seat placed no better than q; A_q: q's tied group size
    below = [
        sum(e for e, p in zip(strength, places, strict=True) if p >= place) for place in places
    ]
    tied = [sum(1 for p in places if p == place) for place in places]
    after = []
    for i, s in enumerate(skills):
        omega = delta = 0.0
        for q, place in enumerate(places):
            if place > places[i]:
                continue  # i was still in the running only while places up to its own went
            share = strength[i] / below[q]
            omega += ((1.0 if q == i else 0.0) - share) / tied[q]
            delta += share * (1.0 - share) / tied[q]
        variance = s.sigma**2
        gamma = s.sigma / c  # the paper's default, which keeps sigma from shrinking too fast
        after.append(Skill(
            mu=s.mu + variance / c * omega,
            sigma=math.sqrt(variance * max(1.0 - gamma * variance / c**2 * delta, KAPPA)),
            matches=s.matches + 1,
        ))  # fmt: skip
    return after


def information(a: Skill, b: Skill) -> float:
    """How much one game against ``b`` is expected to teach about ``a``: the variance
    the update removes from ``a``'s rating, sigma_a^4 * p(1-p) / c^2 with the paper's
    gamma = 1 (p the chance that ``a`` wins, c^2 = sigma_a^2 + sigma_b^2 + 2 BETA^2).
    Largest for an even game (p near 1/2) against a well-known opponent (small
    sigma_b): an uncertain opponent blurs what the result says about ``a``."""
    c2 = a.sigma**2 + b.sigma**2 + 2 * BETA**2
    p = 1.0 / (1.0 + math.exp(-(a.mu - b.mu) / math.sqrt(c2)))
    return a.sigma**4 * p * (1.0 - p) / c2
