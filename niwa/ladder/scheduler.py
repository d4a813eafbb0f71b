"""Who plays whom: pure functions, so the choices are tested without a database.

* a provisional bot (niwa.ladder.skill: its online rating still uncertain) goes first,
  and its opponents are drawn from those a game against teaches the most
  (:func:`niwa.ladder.skill.information`: even chances, uncertain opponents);
* otherwise the bot that has played least goes first (ties broken at random), and its
  opponents are drawn from the bots nearest its rating;
* in a game with leagues (niwa.ladder.leagues) the opponents come from the first
  bot's league, or with probability ``share_above`` from the league above it;
* a sparring partner (a built-in made active by ``--sparring``) never goes first, so it
  only ever plays at a submitted bot's table, and a game with only partners plays none;
* seats go to the players in the order that has each bot sit least where it sat most;
* a "duplicate" round plays one seed under every rotation of the seats, so the luck of
  the deal is the same for everyone and cancels out of the comparison.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from niwa.ladder.skill import PROVISIONAL_SIGMA, Skill, information


@dataclass(frozen=True)
class Candidate:
    bot_id: int
    elo: float
    games: int
    partner: bool = False  # a sparring partner: plays only at a submitted bot's table
    skill: Skill | None = None  # its provisional rating; None: not consulted

    @property
    def provisional(self) -> bool:
        return self.skill is not None and self.skill.provisional

    def known(self) -> Skill:
        """Its online rating, or one at its Elo as certain as a settled bot's."""
        return self.skill or Skill(self.elo, PROVISIONAL_SIGMA)


def playable(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The bots a table may be drawn from: none while every one is a sparring partner
    (partners are there for submitted bots, not to rate each other)."""
    return list(candidates) if any(not c.partner for c in candidates) else []


def player_count(min_players: int, max_players: int, available: int, rng: random.Random) -> int:
    """A table size the game allows and the available bots can fill (0: none)."""
    top = min(max_players, available)
    if top < max(min_players, 2):
        return 0
    return rng.randint(max(min_players, 2), top)


@dataclass(frozen=True)
class LeagueDraw:
    """Who is in which league (bot id -> rank, 0 the lowest) and the share of tables
    drawn from the league above."""

    league_of: Mapping[int, int]
    share_above: float


def league_opponents(
    first: Candidate, others: Sequence[Candidate], needed: int, draw: LeagueDraw,
    rng: random.Random,
) -> list[Candidate]:
    """The opponents ``first`` may meet: its league's, or (with probability
    ``share_above``) the league above's. A league too small for the table draws from
    the whole game instead, so no game stops for want of a league's bots."""
    rank = draw.league_of.get(first.bot_id, 0)
    if rng.random() < draw.share_above:
        above = [c for c in others if draw.league_of.get(c.bot_id, 0) == rank + 1]
        if len(above) >= needed:
            return above
    own = [c for c in others if draw.league_of.get(c.bot_id, 0) == rank]
    return own if len(own) >= needed else list(others)


def pick_group(
    candidates: Sequence[Candidate], players: int, rng: random.Random, spread: int = 2,
    leagues: LeagueDraw | None = None,
) -> list[Candidate]:
    """The least-played bot that is not a sparring partner, a provisional one if any,
    and ``players - 1`` opponents (partners or not) drawn from the ``spread`` times as
    many bots nearest its rating, or for a provisional bot the most informative ones
    (in a game with ``leagues``, among :func:`league_opponents`)."""
    if players > len(candidates):
        raise ValueError("not enough bots for the table")
    leads = [c for c in candidates if not c.partner]
    if not leads:
        raise ValueError("only sparring partners: they play no table of their own")
    leads = [c for c in leads if c.provisional] or leads
    fewest = min(c.games for c in leads)
    first = rng.choice([c for c in leads if c.games == fewest])
    others = [c for c in candidates if c.bot_id != first.bot_id]
    if leagues is not None:
        others = league_opponents(first, others, players - 1, leagues, rng)
    rng.shuffle(others)  # random order among equally near bots
    if first.provisional:
        others.sort(key=lambda c: -information(first.known(), c.known()))
    else:
        others.sort(key=lambda c: abs(c.elo - first.elo))
    pool = others[: max(players - 1, spread * (players - 1))]
    return [first, *rng.sample(pool, players - 1)]


def assign_seats(
    bot_ids: Sequence[int],
    seat_counts: Mapping[tuple[int, int], int],
    rng: random.Random,
) -> list[int]:
    """Bots in seat order: the arrangement whose players have sat least in their seats.

    ``seat_counts[bot, seat]`` is how often ``bot`` already sat in ``seat``. Up to five
    seats means at most 120 arrangements, so all are tried."""
    order = list(bot_ids)
    rng.shuffle(order)  # among equally good arrangements, pick one at random

    def cost(arrangement: Iterable[int]) -> tuple[int, int]:
        counts = [seat_counts.get((bot, seat), 0) for seat, bot in enumerate(arrangement)]
        return max(counts), sum(counts)

    return list(min(itertools.permutations(order), key=cost))


def rotations(seated: Sequence[int]) -> list[list[int]]:
    """Every cyclic rotation of the seats, starting with the given one."""
    n = len(seated)
    return [[seated[(seat + shift) % n] for seat in range(n)] for shift in range(n)]
