"""Ratings: the running Elo each rated match moves, the pairwise totals it adds to,
and the leaderboard's maximum-likelihood fit, kept per game between reads: the
Plackett-Luce fit over whole finishing orders (the default) or the pairwise one over
the totals, as the ladder's rating setting says (:data:`RATING_SETTING`)."""

from __future__ import annotations

import math
import threading
from collections.abc import Collection, Sequence
from typing import TypeVar

from niwa.ladder import elo, skill
from niwa.ladder.db import Database, Row
from niwa.ladder.kept_fit import KeptFit
from niwa.ladder.kept_pl import Match as SeatedMatch
from niwa.ladder.records import SeatResult
from niwa.ladder.store.base import DONE, RATED, Part, StoreError
from niwa.ladder.store.pl_board import PLBoard, PLStanding

#: The store's setting naming the leaderboard's rating model (``niwa ladder serve
#: --rating``); a store where it was never set rates by Plackett-Luce.
RATING_SETTING = "rating"
PLACKETT_LUCE, PAIRWISE = "plackett-luce", "pairwise"
RATINGS = (PLACKETT_LUCE, PAIRWISE)

#: (store URL, season start, season, game) -> the kept Plackett-Luce board every Store
#: of this process on that store shares (the API's pool threads each have a Store: one
#: first fit, seconds at 100,000 matches, instead of one per thread). The season's start
#: tells a store made again at the same URL from the one before.
_SHARED: dict[tuple[str, float, int, str], PLBoard] = {}
_SHARED_LOCKS: dict[tuple[str, float, int, str], threading.Lock] = {}
_SHARING = threading.Lock()

#: The rated matches that count: the current season's (niwa.ladder.seasons), i.e. none
#: of an ended season's (a match queued by a node that predates seasons has no season
#: until it is recorded, or until the season it was queued in ends).
IN_SEASON = (
    "m.id NOT IN (SELECT sm.match_id FROM season_matches sm "
    "JOIN seasons s ON s.id = sm.season_id WHERE s.ended_at IS NOT NULL)"
)


_K = TypeVar("_K", tuple[int, str], tuple[str, float, int, str])


class Ratings(Part):
    """The ratings, the rated totals, and the last fit of each game."""

    def __init__(self, db: Database, identity: str = "") -> None:
        super().__init__(db)
        self.identity = identity  # the store's URL: share its kept boards ("": do not)
        #: (season, game) -> its last leaderboard fit: see :meth:`rated_fit`
        self._fits: dict[tuple[int, str], KeptFit] = {}
        #: (season, game) -> its kept Plackett-Luce fits: see :meth:`pl_standing`
        self._pl: dict[tuple[int, str], PLBoard] = {}
        #: Re-converge the Plackett-Luce fits in a thread when due (tests: by hand).
        self.refit_in_thread = True

    def rating(self) -> str:
        """The leaderboard's rating model: :data:`PLACKETT_LUCE` unless set otherwise."""
        value = self.db.scalar("SELECT value FROM settings WHERE key = ?", (RATING_SETTING,))
        return PLACKETT_LUCE if value is None else str(value)

    def set_rating(self, rating: str) -> None:
        """Keep the leaderboard's rating model in the store (every node reads it)."""
        if rating not in RATINGS:
            raise ValueError(f"--rating is one of {', '.join(RATINGS)}, not {rating!r}")
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (RATING_SETTING, rating),
        )

    def record(self, match_id: int, game: str, results: Sequence[SeatResult]) -> None:
        """Rate a finished rated match and add it to its game's totals (inside the
        transaction that commits it)."""
        self._rate(match_id, results)
        self._count_rated(game, results)
        self._update_skills(game, results)

    def _update_skills(self, game: str, results: Sequence[SeatResult]) -> None:
        """Move the seated bots' provisional ratings (inside the commit's transaction)."""
        ids = [r.bot_id for r in results]
        known = self._skills_of(ids)
        after = skill.update([known.get(i, skill.NEW) for i in ids], [r.place for r in results])
        self.db.execute_many(
            "INSERT INTO skills (bot_id, game, mu, sigma_sq, matches) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (bot_id) DO UPDATE SET mu = excluded.mu, sigma_sq = excluded.sigma_sq, "
            "matches = excluded.matches",
            [(i, game, s.mu, s.sigma**2, s.matches) for i, s in zip(ids, after, strict=True)],
        )

    def _skills_of(self, bot_ids: Sequence[int]) -> dict[int, skill.Skill]:
        marks = ", ".join("?" for _ in bot_ids)
        rows = self.db.execute(
            f"SELECT bot_id, mu, sigma_sq, matches FROM skills WHERE bot_id IN ({marks})",
            list(bot_ids),
        )
        return {int(r["bot_id"]): _skill(r) for r in rows}

    def skills(self, game: str) -> dict[int, skill.Skill]:
        """The provisional ratings of ``game``'s bots that have played a rated match this
        season (any other bot's is :data:`niwa.ladder.skill.NEW`)."""
        rows = self.db.execute(
            "SELECT bot_id, mu, sigma_sq, matches FROM skills WHERE game = ?", (game,)
        )
        return {int(r["bot_id"]): _skill(r) for r in rows}

    def settled(self, game: str) -> set[int]:
        """The bots of ``game`` that are no longer provisional (the leaderboard's mark:
        one column of one indexed query, however many bots)."""
        rows = self.db.execute(
            "SELECT bot_id FROM skills WHERE game = ? AND (sigma_sq <= ? OR matches >= ?)",
            (game, skill.PROVISIONAL_SIGMA**2, skill.PROVISIONAL_MATCHES),
        )
        return {int(r["bot_id"]) for r in rows}

    def _count_rated(self, game: str, results: Sequence[SeatResult]) -> None:
        """Add a rated match to its game's totals (inside the commit's transaction)."""
        self.db.execute(
            "INSERT INTO rated_totals (game, matches) VALUES (?, 1) "
            "ON CONFLICT (game) DO UPDATE SET matches = rated_totals.matches + 1",
            (game,),
        )
        placings = [(r.bot_id, r.place) for r in sorted(results, key=lambda r: r.seat)]
        self.db.execute_many(
            "INSERT INTO pair_totals (game, bot_id, other_id, meetings, games, score) "
            "VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (game, bot_id, other_id) DO UPDATE SET "
            "meetings = pair_totals.meetings + 1, games = pair_totals.games + ?, "
            "score = pair_totals.score + ?",
            [(game, a, b, g, w, g, w) for a, b, g, w in elo.match_pairs(placings)],
        )

    def _rate(self, match_id: int, results: Sequence[SeatResult]) -> None:
        ids = sorted({r.bot_id for r in results})
        rows = self.db.execute(
            f"SELECT bot_id, elo FROM ratings WHERE bot_id IN ({', '.join('?' for _ in ids)})",
            ids,
        )
        rating = {int(r["bot_id"]): float(r["elo"]) for r in rows}
        for r in results:
            if r.bot_id not in rating:
                raise StoreError(f"bot {r.bot_id} has no rating: it is not active")
        before = [rating[r.bot_id] for r in results]
        after = elo.update(before, [r.place for r in results])
        changes = list(zip(results, before, after, strict=True))
        self.db.execute_many(
            "UPDATE ratings SET elo = ?, games = games + 1, wins = wins + ? WHERE bot_id = ?",
            [(new, int(r.place == 0), r.bot_id) for r, _, new in changes],
        )
        self.db.execute_many(
            "INSERT INTO rating_history (match_id, bot_id, elo_before, elo_after) "
            "VALUES (?, ?, ?, ?)",
            [(match_id, r.bot_id, old, new) for r, old, new in changes],
        )

    def rated_placings(self, game: str) -> list[list[tuple[int, int]]]:
        """Every finished rated match of ``game`` in the current season as (bot, place)
        per seat, in order."""
        rows = self.db.execute(
            "SELECT r.match_id, r.bot_id, r.place FROM results r "
            "JOIN matches m ON m.id = r.match_id "
            f"WHERE m.game = ? AND m.kind = ? AND m.state = ? AND {IN_SEASON} "
            "ORDER BY m.seq, r.seat",
            (game, RATED, DONE),
        )
        matches: dict[int, list[tuple[int, int]]] = {}
        for r in rows:
            matches.setdefault(int(r["match_id"]), []).append((int(r["bot_id"]), int(r["place"])))
        return list(matches.values())

    def rated_count(self, game: str) -> int:
        """Finished rated matches of ``game``."""
        return int(self.db.scalar("SELECT matches FROM rated_totals WHERE game = ?", (game,)) or 0)

    def shown_totals(self, game: str, shown: Collection[int]) -> elo.PairTotals[int]:
        """The pairwise totals of ``game`` between the bots in ``shown``, as
        :func:`niwa.ladder.elo.pair_totals` would make them from the placings cut down to the
        shown seats (``niwa.ladder.reads.shown_placings``).

        The stored totals weigh each pair of an n-seat match 1/(n-1); a match that also
        seated a bot not shown (superseded, retired) counts among the shown ones with
        fewer seats, so those matches alone are read again and their pairs re-weighed."""
        totals: dict[tuple[int, int], list[float]] = {}
        others: set[int] = set()
        for r in self.db.execute(
            "SELECT bot_id, other_id, meetings, games, score FROM pair_totals WHERE game = ?",
            (game,),
        ):
            a, b = int(r["bot_id"]), int(r["other_id"])
            if a in shown and b in shown:
                totals[a, b] = [float(r["meetings"]), float(r["games"]), float(r["score"])]
            else:
                others.update(x for x in (a, b) if x not in shown)
        if others:
            for match in self._placings_with(game, sorted(others)):
                for a, b, g, w in elo.match_pairs(match):
                    if a in shown and b in shown:
                        entry = totals[a, b]
                        entry[0] -= 1
                        entry[1] -= g
                        entry[2] -= w
                kept = [(bot, place) for bot, place in match if bot in shown]
                for a, b, g, w in elo.match_pairs(kept) if len(kept) >= 2 else []:
                    entry = totals.setdefault((a, b), [0.0, 0.0, 0.0])
                    entry[0] += 1
                    entry[1] += g
                    entry[2] += w
        return {pair: (g, w) for pair, (n, g, w) in totals.items() if n > 0.5}

    def _placings_with(self, game: str, bot_ids: Sequence[int]) -> list[list[tuple[int, int]]]:
        """The finished rated matches of ``game`` that seated any of ``bot_ids``."""
        marks = ", ".join("?" for _ in bot_ids)
        rows = self.db.execute(
            "SELECT r.match_id, r.bot_id, r.place FROM results r "
            "JOIN matches m ON m.id = r.match_id "
            f"WHERE m.game = ? AND m.kind = ? AND m.state = ? AND {IN_SEASON} AND r.match_id IN "
            f"(SELECT match_id FROM match_seats WHERE bot_id IN ({marks})) "
            "ORDER BY m.seq, r.seat",
            (game, RATED, DONE, *bot_ids),
        )
        matches: dict[int, list[tuple[int, int]]] = {}
        for r in rows:
            matches.setdefault(int(r["match_id"]), []).append((int(r["bot_id"]), int(r["place"])))
        return list(matches.values())

    def rated_fit(self, game: str, shown: Collection[int]) -> dict[int, elo.Estimate]:
        """The leaderboard's maximum-likelihood Elo of ``game`` over the ``shown`` bots.

        Remembered per season and game until a rated match of it is committed (by any process: the
        stored count moves) or the set of bots shown changes. After a commit only the
        matches since the last fit are read and added to its totals, and the fit starts
        from the last ratings: the optimum has moved little (:func:`niwa.ladder.mle.fit_from`).
        A new set of bots shown reads every total again, still starting from the last
        ratings."""
        wanted = frozenset(shown)
        season = int(self.db.scalar("SELECT id FROM seasons WHERE ended_at IS NULL") or 0)
        key = (season, game)
        count = self.rated_count(game)
        kept = self._fits.get(key)
        if kept is not None and kept.shown == wanted and kept.matches >= 0:
            if kept.matches == count:
                return kept.fit.estimates
            for seq, placings in self._rated_since(game, kept.seq):
                kept.add(seq, placings)
        else:
            fresh = self._kept_fit(game, wanted)
            if kept is not None:
                fresh.fit = kept.fit
            kept = fresh
        self._fits.pop(key, None)  # kept again only once its totals and fit agree
        estimates = kept.refit()
        self._fits[key] = kept
        return estimates

    def pl_standing(self, game: str, shown: Collection[int]) -> PLStanding:
        """The Plackett-Luce leaderboard of ``game``: ``shown`` bots' ratings (their
        mean 1500), pooled and per player count, and the seat effects.

        The fit takes every rated match with all its seats (a bot not shown is still a
        parameter: dropping its seat would change the table's size and the seats'
        meaning); only the ratings shown are centred on their own mean. Kept per
        season and game: after a commit only the matches since are read, each moving
        the kept fits by one Newton step (:mod:`niwa.ladder.kept_pl`)."""
        row = self.db.one("SELECT id, started_at FROM seasons WHERE ended_at IS NULL")
        season = 0 if row is None else int(row["id"])
        if not self.identity:
            return self._kept_board(self._pl, (season, game), game).standing(shown)
        started = 0.0 if row is None else float(row["started_at"])
        key = (self.identity, started, season, game)
        with _SHARING:
            lock = _SHARED_LOCKS.setdefault(key, threading.Lock())
        with lock:  # one thread reads the new matches and steps them in; others wait
            return self._kept_board(_SHARED, key, game).standing(shown)

    def _kept_board(self, kept: dict[_K, PLBoard], key: _K, game: str) -> PLBoard:
        """The board kept in ``kept`` under ``key``, brought up to the store's count of
        rated matches (read again from zero when it cannot follow, or is not there)."""
        count = self.rated_count(game)
        board = kept.get(key)
        if board is not None and board.matches >= 0 and board.matches != count:
            for seq, match in self._seated_since(game, board.seq):
                board.add(seq, match)
            if board.matches != count:  # a count we cannot follow (a season started)
                board = None
        if board is None:
            # an ended season's board goes too (the shared ones: this store's only)
            for old in [k for k in kept if k[-1] == game and k[:-3] == key[:-3]]:
                del kept[old]
            board = self._pl_board(game)
        if board.matches >= 0:
            kept[key] = board
        return board

    def refits(self, game: str) -> int:
        """Full Plackett-Luce fits this process made of ``game``'s kept fits (pooled
        and per player count, the first ones included): what a benchmark reports."""
        boards = [b for k, b in [*self._pl.items(), *_SHARED.items()] if k[-1] == game]
        return sum(
            board.pooled.refits + sum(k.refits for k in board.by_players.values())
            for board in boards
        )

    def _pl_board(self, game: str) -> PLBoard:
        """Every rated match of ``game`` fitted from zero, with the rated count and the
        newest seq it holds (count -1 when a commit kept moving it: read again next time)."""
        for _ in range(3):
            count = self.rated_count(game)
            seated = self._seated_since(game, 0)
            if self.rated_count(game) == count:
                break
        else:
            count = -1
        seq = max((s for s, _ in seated), default=0)
        return PLBoard.fitted(count, seq, [m for _, m in seated], self.refit_in_thread)

    def _seated_since(self, game: str, seq: int) -> list[tuple[int, SeatedMatch]]:
        """The finished rated matches of ``game`` numbered after ``seq``, in order, as
        (seq, [(bot, seat, place) per seat]); those of two seats or more (an order)."""
        return [(s, m) for s, m in self._since(game, seq) if len(m) >= 2]

    def _since(self, game: str, seq: int) -> list[tuple[int, SeatedMatch]]:
        """Every finished rated match of ``game`` numbered after ``seq``, in order, as
        (seq, [(bot, seat, place) per seat])."""
        rows = self.db.execute(
            "SELECT m.seq, r.bot_id, r.seat, r.place FROM matches m "
            "JOIN results r ON r.match_id = m.id "
            "WHERE m.game = ? AND m.seq > ? AND m.kind = ? AND m.state = ? "
            f"AND {IN_SEASON} ORDER BY m.seq, r.seat",
            (game, seq, RATED, DONE),
        )
        matches: dict[int, list[tuple[int, int, int]]] = {}
        for r in rows:
            matches.setdefault(int(r["seq"]), []).append(
                (int(r["bot_id"]), int(r["seat"]), int(r["place"])))
        return list(matches.items())

    def _kept_fit(self, game: str, shown: frozenset[int]) -> KeptFit:
        """The totals of ``game`` over ``shown`` with the rated count and newest seq
        they hold, read again if a rated match was committed meanwhile; after three
        tries, marked as holding an unknown count (``matches`` -1: read again next time)."""
        for _ in range(3):
            count = self.rated_count(game)
            seq = int(
                self.db.scalar("SELECT COALESCE(MAX(seq), 0) FROM matches WHERE game = ?",
                               (game,))
            )  # fmt: skip
            totals = self.shown_totals(game, shown)
            if self.rated_count(game) == count:
                break
        else:
            count = -1
        pairs = elo.Pairs.of(sorted({a for a, _ in totals}), totals)
        return KeptFit(shown, count, seq, pairs)

    def _rated_since(self, game: str, seq: int) -> list[tuple[int, list[tuple[int, int]]]]:
        """The finished rated matches of ``game`` numbered after ``seq``, in order, as
        (seq, [(bot, place) per seat])."""
        return [(s, [(bot, place) for bot, _, place in m]) for s, m in self._since(game, seq)]


def _skill(row: Row) -> skill.Skill:
    return skill.Skill(
        float(row["mu"]), math.sqrt(float(row["sigma_sq"])), int(row["matches"])
    )
