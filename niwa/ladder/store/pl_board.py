"""The Plackett-Luce leaderboard of one game, kept per season between reads: the pooled
fit (every player count, a strength per bot, a seat effect per count and seat) and one
fit per player count, each a :class:`niwa.ladder.kept_pl.KeptPL` that the next read
after a rated match moves by that match alone."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from niwa.ladder.elo import Estimate
from niwa.ladder.kept_pl import KeptPL, Match, SeatEffect


@dataclass(frozen=True)
class PLStanding:
    """What the board shows: pooled ratings, each player count's, the seat effects."""

    ratings: dict[int, Estimate]
    by_players: dict[int, dict[int, Estimate]]
    seats: tuple[SeatEffect, ...]


@dataclass
class PLBoard:
    """A game's kept fits over its first ``matches`` rated matches (the newest of them
    numbered ``seq``)."""

    matches: int
    seq: int
    pooled: KeptPL
    by_players: dict[int, KeptPL] = field(default_factory=dict)
    #: The last standing shown, with the fits' versions and the bots it was made for.
    _shown: tuple[tuple[int, ...], frozenset[int], PLStanding] | None = None

    @classmethod
    def fitted(cls, matches: int, seq: int, rated: list[Match], auto: bool = True) -> PLBoard:
        groups: dict[int, list[Match]] = {}
        for match in rated:
            groups.setdefault(len(match), []).append(match)
        pooled = KeptPL.fitted(rated, auto)
        # Each player count's fit starts from the pooled one: a step or two fewer.
        start = dict(zip(pooled.keys, pooled.theta.tolist(), strict=True))
        return cls(
            matches, seq, pooled,
            {n: KeptPL.fitted(group, auto, start) for n, group in sorted(groups.items())},
        )  # fmt: skip

    def add(self, seq: int, match: Match) -> None:
        """One more rated match, stepped into the pooled fit and its player count's."""
        self.pooled.add(match)
        players = self.by_players.get(len(match))
        if players is None:
            self.by_players[len(match)] = KeptPL.fitted([match], self.pooled.auto)
        else:
            players.add(match)
        self.matches += 1
        self.seq = max(self.seq, seq)

    def standing(self, shown: Collection[int]) -> PLStanding:
        """The board for the ``shown`` bots; the last one again while no fit moved."""
        versions = (self.pooled.version, *(k.version for _, k in sorted(self.by_players.items())))
        wanted = frozenset(shown)
        if self._shown is not None and self._shown[:2] == (versions, wanted):
            return self._shown[2]
        standing = PLStanding(
            self.pooled.ratings(wanted),
            {n: kept.ratings(wanted) for n, kept in sorted(self.by_players.items())},
            self.pooled.seat_effects(),
        )
        self._shown = (versions, wanted, standing)
        return standing
