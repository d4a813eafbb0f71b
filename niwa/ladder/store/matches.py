"""Matches and their queue: a match changes state only inside a transaction (see
:mod:`niwa.ladder.store`)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

from niwa.errors import LadderError
from niwa.ladder.db import Database, Row
from niwa.ladder.records import Finished, Match, SeatResult, seat_result
from niwa.ladder.store import tables
from niwa.ladder.store.balance import Balance
from niwa.ladder.store.base import (
    DONE,
    FAILED,
    HUMAN_SOURCE,
    QUEUED,
    RATED,
    RUNNING,
    VALIDATION,
    Part,
    StoreError,
)
from niwa.ladder.store.files import Files
from niwa.ladder.store.ratings import Ratings
from niwa.referee.failures import SeatStatus

#: A match where no seat is a person's (HUMAN_SOURCE is its one parameter).
_NO_PERSON = (
    "id NOT IN (SELECT s.match_id FROM match_seats s JOIN bots b ON b.id = s.bot_id "
    "WHERE b.source = ?)"
)
#: Put a match in the current season, unless it has one already (a match queued by a
#: node that predates seasons gets the season it finishes in).
_JOIN_SEASON = (
    "INSERT INTO season_matches (match_id, season_id) "
    "SELECT ?, id FROM seasons WHERE ended_at IS NULL ON CONFLICT (match_id) DO NOTHING"
)


class _NotRunning(LadderError):
    """Rolls back the commit of a match that is no longer running."""


class Matches(Part):
    """The matches, their seats and results; a finished one's replay goes to ``files``
    and a rated one's outcome to ``ratings``, in the transaction that commits it."""

    def __init__(self, db: Database, files: Files, ratings: Ratings, balance: Balance) -> None:
        super().__init__(db)
        self.files = files
        self.ratings = ratings
        self.balance = balance

    def queue_match(
        self,
        game: str,
        game_version: str,
        seats: Sequence[int],
        seed: int,
        options: dict[str, Any] | None = None,
        kind: str = RATED,
        duplicate_group: int | None = None,
        running: bool = False,
    ) -> int:
        """Queue a match for the runner; ``running``: one this process plays itself (a
        person's challenge), added as running so no runner ever claims it."""
        now = time.time()
        with self.db.transaction() as db:
            row = db.one(
                "INSERT INTO matches (game, game_version, kind, seed, options, players, state,"
                " attempts, duplicate_group, created_at, started_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    game,
                    game_version,
                    kind,
                    seed,
                    json.dumps(options or {}, sort_keys=True),
                    len(seats),
                    RUNNING if running else QUEUED,
                    1 if running else 0,
                    duplicate_group,
                    now,
                    now if running else None,
                ),
            )
            assert row is not None
            match_id = int(row["id"])
            for seat, bot_id in enumerate(seats):
                db.execute(
                    "INSERT INTO match_seats (match_id, seat, bot_id) VALUES (?, ?, ?)",
                    (match_id, seat, bot_id),
                )
                db.execute(
                    "INSERT INTO seat_totals (bot_id, seat, matches) VALUES (?, ?, 1) "
                    "ON CONFLICT (bot_id, seat) DO UPDATE SET matches = seat_totals.matches + 1",
                    (bot_id, seat),
                )
            db.execute(_JOIN_SEASON, (match_id,))
        return match_id

    def claim_next(self) -> Match | None:
        """Move the oldest queued match (validation first) to running, atomically: one
        statement picks and takes it (of two runners racing for it, one gets it, the
        other None this time)."""
        row = self.db.one(
            "UPDATE matches SET state = ?, attempts = attempts + 1, started_at = ? "
            "WHERE id = (SELECT id FROM matches WHERE state = ? "
            "ORDER BY CASE WHEN kind = ? THEN 0 ELSE 1 END, id LIMIT 1) AND state = ? "
            "RETURNING *",
            (RUNNING, time.time(), QUEUED, VALIDATION, QUEUED),
        )
        return None if row is None else self._match(row)

    def requeue_running(self) -> list[int]:
        """After a crash: the matches that were running go back to the queue, except a
        person's challenges (no runner can play a person's seat; their web process
        ends them: :meth:`fail_abandoned_challenges`)."""
        with self.db.transaction() as db:
            rows = db.execute(
                f"SELECT id FROM matches WHERE state = ? AND {_NO_PERSON} ORDER BY id",
                (RUNNING, HUMAN_SOURCE),
            )
            db.execute(
                f"UPDATE matches SET state = ?, started_at = NULL WHERE state = ? AND {_NO_PERSON}",
                (QUEUED, RUNNING, HUMAN_SOURCE),
            )
        return [int(r["id"]) for r in rows]

    def fail_abandoned_challenges(self, error: str) -> list[int]:
        """Mark failed every person's challenge still running: the web process that
        played it stopped before it ended (its seat's page went with it)."""
        rows = self.db.execute(
            f"UPDATE matches SET state = ?, error = ?, finished_at = ? "
            f"WHERE state = ? AND NOT {_NO_PERSON} RETURNING id",
            (FAILED, error[:2000], time.time(), RUNNING, HUMAN_SOURCE),
        )
        return sorted(int(r["id"]) for r in rows)

    def hand_back(self, matches: Iterable[Match]) -> list[int]:
        """Put these claimed matches back in the queue (a draining runner's leftovers),
        each only if it still runs the attempt claimed; return the ids put back."""
        back = []
        for match in matches:
            row = self.db.one(
                "UPDATE matches SET state = ?, started_at = NULL "
                "WHERE id = ? AND state = ? AND attempts = ? RETURNING id",
                (QUEUED, match.id, RUNNING, match.attempts),
            )
            if row is not None:
                back.append(match.id)
        return sorted(back)

    def pending_rated(self) -> int:
        """Rated matches queued or running."""
        return int(
            self.db.scalar(
                "SELECT COUNT(*) FROM matches WHERE kind = ? AND state IN (?, ?)",
                (RATED, QUEUED, RUNNING),
            )
        )

    def queued_count(self) -> int:
        return int(self.db.scalar("SELECT COUNT(*) FROM matches WHERE state = ?", (QUEUED,)))

    def match(self, match_id: int) -> Match:
        row = self.db.one("SELECT * FROM matches WHERE id = ?", (match_id,))
        if row is None:
            raise StoreError(f"no match has id {match_id}: see `niwa ladder matches`")
        return self._match(row)

    def _match(self, row: Row) -> Match:
        seats = self.db.execute(
            "SELECT bot_id FROM match_seats WHERE match_id = ? ORDER BY seat", (row["id"],)
        )
        fields = {**row, "options": json.loads(row["options"])}
        return Match(**fields, seats=tuple(int(s["bot_id"]) for s in seats))

    def matches(
        self,
        game: str | None = None,
        bot_id: int | None = None,
        state: str | None = None,
        limit: int = 20,
        bot_ids: Sequence[int] | None = None,
        after_seq: int | None = None,
        before_id: int | None = None,
    ) -> list[Match]:
        """Newest first (with ``before_id``, those older than it); with ``after_seq``, the
        finished ones after it, oldest first."""
        where, params = ["1 = 1"], list[Any]()
        if game:
            where.append("m.game = ?")
            params.append(game)
        if state:
            where.append("m.state = ?")
            params.append(state)
        if bot_id is not None:
            where.append("m.id IN (SELECT match_id FROM match_seats WHERE bot_id = ?)")
            params.append(bot_id)
        if bot_ids is not None:  # any of these bots (none: no match)
            marks = ", ".join("?" for _ in bot_ids) or "NULL"
            where.append(f"m.id IN (SELECT match_id FROM match_seats WHERE bot_id IN ({marks}))")
            params.extend(bot_ids)
        order = "m.id DESC"
        if before_id is not None:
            where.append("m.id < ?")
            params.append(before_id)
        if after_seq is not None:
            where.append("m.seq > ?")
            params.append(after_seq)
            order = "m.seq"
        rows = self.db.execute(
            f"SELECT m.* FROM matches m WHERE {' AND '.join(where)} ORDER BY {order} LIMIT ?",
            [*params, limit],
        )
        return [self._match(r) for r in rows]

    def results(self, match_id: int) -> list[SeatResult]:
        rows = self.db.execute(
            "SELECT seat, bot_id, place, score, status, reason, out_step, detail, stderr_tail "
            "FROM results WHERE match_id = ? ORDER BY seat",
            (match_id,),
        )
        return [seat_result(r) for r in rows]

    def validation_match(self, bot_id: int) -> int | None:
        """The id of the bot's latest validation match (None: it has none)."""
        value = self.db.scalar(
            "SELECT MAX(m.id) FROM matches m JOIN match_seats s ON s.match_id = m.id "
            "WHERE s.bot_id = ? AND m.kind = ?",
            (bot_id, VALIDATION),
        )
        return None if value is None else int(value)

    def validation_tail(self, bot_id: int) -> tuple[str, ...]:
        """The stderr tail of the bot's last finished validation match, if it went out."""
        row = self.db.one(
            "SELECT r.match_id FROM results r JOIN matches m ON m.id = r.match_id "
            f"WHERE r.bot_id = ? AND m.kind = ? AND r.status <> '{SeatStatus.OK}' "
            "ORDER BY m.id DESC LIMIT 1",
            (bot_id, VALIDATION),
        )
        if row is None:
            return ()
        for r in self.results(int(row["match_id"])):
            if r.bot_id == bot_id and r.stderr_tail:
                return r.stderr_tail
        return ()

    def finish_match(
        self,
        match_id: int,
        finished: Finished,
        replay: bytes | None = None,
        attempt: int | None = None,
    ) -> bool:
        """Commit a finished match: results, replay hash (and the ``replay`` itself, for
        every node to read), ratings, all or nothing.

        Returns False (and changes nothing) if the match is not running, or, given its
        ``attempt`` (``Match.attempts`` when claimed), if it is running a later attempt
        (claimed again by the runner that took the lease over): a result that arrives
        twice is counted once, and only from the attempt still running."""
        attempt_check, params = ("", ()) if attempt is None else (" AND attempts = ?", (attempt,))
        try:
            with self.db.transaction() as db:
                # Numbers are handed out one commit at a time (Dialect.seq_lock).
                db.execute(db.dialect.seq_lock)
                # The state is checked by the write itself: of two commits of one match
                # (a runner that lost its lease and its successor), one changes it.
                row = db.one(
                    "UPDATE matches SET state = ?, finished_at = ?, wall_s = ?, decisions = ?,"
                    " replay_sha256 = ?, seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM matches),"
                    f" error = '' WHERE id = ? AND state = ?{attempt_check} RETURNING kind, game",
                    (
                        DONE, time.time(), finished.wall_s, finished.decisions,
                        finished.replay_sha256, match_id, RUNNING, *params,
                    ),
                )  # fmt: skip
                if row is None:
                    raise _NotRunning
                if replay is not None:
                    self.files.put_blob("replay", replay)
                db.execute(_JOIN_SEASON, (match_id,))
                # Queued before the current season started: recorded, never rated (its
                # season's standings are frozen, and the new one did not schedule it).
                ended = db.one(
                    "SELECT 1 AS yes FROM season_matches sm JOIN seasons s ON s.id = sm.season_id"
                    " WHERE sm.match_id = ? AND s.ended_at IS NOT NULL",
                    (match_id,),
                )
                self._commit_results(
                    match_id, str(row["kind"]), str(row["game"]), finished, ended is None
                )
        except _NotRunning:
            return False
        return True

    def _commit_results(
        self, match_id: int, kind: str, game: str, finished: Finished, rate: bool
    ) -> None:
        self.db.execute_many(
            "INSERT INTO results (match_id, seat, bot_id, place, score, status, reason,"
            " out_step, detail, stderr_tail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    match_id, r.seat, r.bot_id, r.place, r.score, r.status, r.reason,
                    r.out_step, r.detail, json.dumps(list(r.stderr_tail)),
                )
                for r in finished.results
            ],
        )  # fmt: skip
        if finished.stderr_kept:
            self.db.execute(
                "INSERT INTO stderr_kept (match_id, every_seat) VALUES (?, 1)", (match_id,)
            )
        if kind == RATED and rate:
            self.ratings.record(match_id, game, finished.results)
            if finished.balance is None:
                self.balance.wait_for_backfill(match_id)
            else:
                self.balance.record(match_id, game, finished.balance)
            tables.record(self.db, finished.results)

    def fail_match(self, match_id: int, error: str, retries: int = 2) -> str:
        """A match the referee could not run (not a bot's fault): retry, then give up."""
        with self.db.transaction() as db:
            row = db.one("SELECT attempts, state FROM matches WHERE id = ?", (match_id,))
            if row is None or row["state"] != RUNNING:
                return "" if row is None else str(row["state"])
            state = QUEUED if int(row["attempts"]) <= retries else FAILED
            db.execute(
                "UPDATE matches SET state = ?, error = ?, finished_at = ? WHERE id = ?",
                (state, error[:2000], time.time(), match_id),
            )
        return state

    def seat_counts(self, bot_ids: Iterable[int]) -> dict[tuple[int, int], int]:
        """How often each bot sat in each seat (matches of every kind and state)."""
        ids = list(bot_ids)
        if not ids:
            return {}
        rows = self.db.execute(
            "SELECT bot_id, seat, matches FROM seat_totals "
            f"WHERE bot_id IN ({', '.join('?' for _ in ids)})",
            ids,
        )
        return {(int(r["bot_id"]), int(r["seat"])): int(r["matches"]) for r in rows}

    def counts(self) -> dict[str, int]:
        rows = self.db.execute("SELECT state, COUNT(*) AS n FROM matches GROUP BY state")
        return {str(r["state"]): int(r["n"]) for r in rows}

    def scheduled_counts(self, game: str) -> dict[int, int]:
        """Per bot: matches of ``game`` queued or running (not yet in its game count)."""
        # From the few queued and running matches (matches_state), never every seat row.
        rows = self.db.execute(
            "SELECT bot_id, COUNT(*) AS n FROM match_seats WHERE match_id IN "
            "(SELECT id FROM matches WHERE state IN (?, ?) AND game = ?) GROUP BY bot_id",
            (QUEUED, RUNNING, game),
        )
        return {int(r["bot_id"]): int(r["n"]) for r in rows}

    def next_duplicate_group(self) -> int:
        return int(self.db.scalar("SELECT COALESCE(MAX(duplicate_group), 0) + 1 FROM matches"))
