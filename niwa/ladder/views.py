"""What the ladder's reads return: its own types, one per ``niwa.v1`` message it sends.

:class:`niwa.ladder.reads.Reads` builds them from the store; the servicer turns them into
messages and the client turns messages back into them (``niwa.ladder.wire``), so the CLI and
``niwa.ladder.report`` print the same values whether they read a store or a server, and
never see protobuf. Field names are the messages' (a test holds them together); repeated
fields are tuples.
"""

from __future__ import annotations

from dataclasses import dataclass

from niwa.ladder.seat_stats import Kingmaker, Places, TableRecord


@dataclass(frozen=True)
class LadderBot:
    id: int
    name: str
    version: str
    game: str
    owner: str
    source: str
    archive_hash: str
    status: str
    reason: str
    elo: float
    games: int
    wins: int
    stderr_tail: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameStatus:
    """Whether a game can make a match; ``waiting`` says why not ("" when it can)."""

    game: str
    active: int
    needed: int
    waiting: str


@dataclass(frozen=True)
class BotListing:
    bots: tuple[LadderBot, ...]
    games: tuple[GameStatus, ...]


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    bot: LadderBot
    elo: float
    ci95: float  # inf: not rated yet
    league: str = ""  # "": the game has no leagues
    next_boss: str = ""  # name@version of the boss to pass; "": top league, or a boss
    next_boss_elo: float = 0.0  # that boss's fitted Elo
    #: its online rating (niwa.ladder.skill) still uncertain: matchmaking is still
    #: placing it; the Elo above stays the official rating
    provisional: bool = False
    #: Plackett-Luce only: the bot's Elo fitted on the matches of each player count alone.
    by_players: tuple[PlayerCountElo, ...] = ()


@dataclass(frozen=True)
class PlayerCountElo:
    """A bot's Elo and 95 % half-width from the matches of ``players`` seats alone."""

    players: int
    elo: float
    ci95: float


@dataclass(frozen=True)
class SeatAdvantage:
    """Seat ``seat``'s effect against seat 0 in ``players``-seat matches, in Elo (0-based
    seats; positive: an advantage), with its 95 % half-width."""

    players: int
    seat: int
    elo: float
    ci95: float


@dataclass(frozen=True)
class Leaderboard:
    game: str
    matches: int
    rows: tuple[LeaderboardRow, ...]
    season: str = ""  # the season whose standings these are ("": a ladder before seasons)
    rating: str = ""  # the model: "plackett-luce" or "pairwise" ("": an ended season's)
    seat_effects: tuple[SeatAdvantage, ...] = ()  # Plackett-Luce only


@dataclass(frozen=True)
class LeagueView:
    name: str
    boss: str  # name@version
    bots: int  # bots in it, the boss not counted


@dataclass(frozen=True)
class LeaguesView:
    """A game's leagues, lowest first (none: the game has no leagues)."""

    game: str
    share_above: float
    leagues: tuple[LeagueView, ...]


@dataclass(frozen=True)
class SeasonView:
    """A season and its limits; an ended one's standings are frozen."""

    name: str
    started_at: float
    ended_at: float  # 0: not ended (the current season)
    games: tuple[str, ...]  # the games it plays; empty: every game of the ladder
    time_control: str  # "": the ladder's own
    current: bool


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot_id: int
    bot: str
    place: int
    score: float
    status: str
    reason: str
    failure: str
    out_step: int
    out_at_start: bool
    detail: str
    stderr_tail: tuple[str, ...]


@dataclass(frozen=True)
class MatchView:
    """A match as the API shows it (times 0.0 and numbers 0: not yet, or none)."""

    id: int
    game: str
    game_version: str
    kind: str
    seed: int
    options_json: str
    state: str
    seats: tuple[int, ...]
    results: tuple[SeatResult, ...]
    created_at: float
    started_at: float
    finished_at: float
    wall_s: float
    decisions: int
    error: str
    seq: int
    replay_sha256: str
    duplicate_group: int
    fork_of: int = 0  # a fork (kind forked): the match it replays from step fork_at
    fork_at: int = 0
    fork_seat: int = 0


@dataclass(frozen=True)
class MatchQuery:
    """Which matches to list: every filter is off when empty or 0."""

    game: str = ""
    bot_id: int = 0
    state: str = ""
    limit: int = 0
    before_id: int = 0
    bot: str = ""


@dataclass(frozen=True)
class SeatLog:
    seat: int
    bot_id: int
    bot: str
    status: str
    failure: str
    stderr_tail: tuple[str, ...]
    kept: str = ""  # niwa.ladder.tails: KEPT, EXPIRED, OUT_ONLY ("": an older ladder)
    until: float = 0.0  # when the tail is due to go, or went (EXPIRED)


@dataclass(frozen=True)
class BotLogs:
    match_id: int
    seats: tuple[SeatLog, ...]


@dataclass(frozen=True)
class Replay:
    """``redacted``: private text of seats the caller may not read was cut from the
    file, and ``sha256`` is the cut file's (the recorded one was checked first)."""

    match_id: int
    content: bytes
    sha256: str
    redacted: bool = False


# The web pages' reads (no gRPC message: the API does not serve them).


@dataclass(frozen=True)
class RatingPoint:
    """A bot's incremental Elo right after the rated match with finish number ``seq``."""

    seq: int
    elo: float


@dataclass(frozen=True)
class PairRecord:
    """One bot against one opponent in rated matches: ``games`` weighs each n-seat
    match 1/(n-1), ``score`` the pairwise points out of ``games`` (niwa.ladder.elo)."""

    other_id: int
    other: str
    meetings: int
    games: float
    score: float


@dataclass(frozen=True)
class SeatOutcome:
    """A seat of a finished match, as the web's tallies count it (places from 0)."""

    seq: int
    match_id: int
    kind: str
    seat: int
    bot_id: int
    place: int
    status: str
    failure: str  # the failure class when out, else ""
    out_step: int  # 0: at start-up (or not out)


@dataclass(frozen=True)
class SeatTotals:
    """A bot's seats in the matches finished up to some seq: rated ones with the sum of
    their places (from 0), and the seats that went out, by failure class."""

    bot_id: int
    rated: int
    place_sum: int
    failures: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class SeatLine:
    """A bot's rated matches at one seat (from 0) of ``players``-seat tables; ``seat``
    -1: every seat of them (the line by player count)."""

    players: int
    seat: int
    places: Places


@dataclass(frozen=True)
class BotTables:
    """A bot's results by seat, by player count and against the opponents it shared
    most tables with (the current season's rated matches), and its kingmaker check;
    ``labels``: name@version of every bot id these name."""

    by_seat: tuple[SeatLine, ...]
    by_players: tuple[SeatLine, ...]
    opponents: tuple[TableRecord, ...]
    kingmaker: Kingmaker
    labels: dict[int, str]
