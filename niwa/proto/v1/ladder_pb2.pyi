from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LadderBot(_message.Message):
    __slots__ = ("id", "name", "version", "game", "owner", "source", "archive_hash", "status", "reason", "elo", "games", "wins", "stderr_tail")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_HASH_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    STDERR_TAIL_FIELD_NUMBER: _ClassVar[int]
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
    stderr_tail: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[int] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., game: _Optional[str] = ..., owner: _Optional[str] = ..., source: _Optional[str] = ..., archive_hash: _Optional[str] = ..., status: _Optional[str] = ..., reason: _Optional[str] = ..., elo: _Optional[float] = ..., games: _Optional[int] = ..., wins: _Optional[int] = ..., stderr_tail: _Optional[_Iterable[str]] = ...) -> None: ...

class SubmitBotRequest(_message.Message):
    __slots__ = ("archive",)
    ARCHIVE_FIELD_NUMBER: _ClassVar[int]
    archive: bytes
    def __init__(self, archive: _Optional[bytes] = ...) -> None: ...

class SubmitBotResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[LadderBot]
    def __init__(self, bots: _Optional[_Iterable[_Union[LadderBot, _Mapping]]] = ...) -> None: ...

class RetireBotRequest(_message.Message):
    __slots__ = ("bot_id",)
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    bot_id: int
    def __init__(self, bot_id: _Optional[int] = ...) -> None: ...

class AddOwnerRequest(_message.Message):
    __slots__ = ("name", "admin")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ADMIN_FIELD_NUMBER: _ClassVar[int]
    name: str
    admin: bool
    def __init__(self, name: _Optional[str] = ..., admin: _Optional[bool] = ...) -> None: ...

class AddOwnerResponse(_message.Message):
    __slots__ = ("name", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("game", "all")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ALL_FIELD_NUMBER: _ClassVar[int]
    game: str
    all: bool
    def __init__(self, game: _Optional[str] = ..., all: _Optional[bool] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots", "games")
    BOTS_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[LadderBot]
    games: _containers.RepeatedCompositeFieldContainer[GameStatus]
    def __init__(self, bots: _Optional[_Iterable[_Union[LadderBot, _Mapping]]] = ..., games: _Optional[_Iterable[_Union[GameStatus, _Mapping]]] = ...) -> None: ...

class GameStatus(_message.Message):
    __slots__ = ("game", "active", "needed", "waiting")
    GAME_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    NEEDED_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    game: str
    active: int
    needed: int
    waiting: str
    def __init__(self, game: _Optional[str] = ..., active: _Optional[int] = ..., needed: _Optional[int] = ..., waiting: _Optional[str] = ...) -> None: ...

class LeaderboardRequest(_message.Message):
    __slots__ = ("game", "season")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEASON_FIELD_NUMBER: _ClassVar[int]
    game: str
    season: str
    def __init__(self, game: _Optional[str] = ..., season: _Optional[str] = ...) -> None: ...

class LeaderboardRow(_message.Message):
    __slots__ = ("rank", "bot", "elo", "ci95", "league", "next_boss", "next_boss_elo", "provisional", "by_players")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    CI95_FIELD_NUMBER: _ClassVar[int]
    LEAGUE_FIELD_NUMBER: _ClassVar[int]
    NEXT_BOSS_FIELD_NUMBER: _ClassVar[int]
    NEXT_BOSS_ELO_FIELD_NUMBER: _ClassVar[int]
    PROVISIONAL_FIELD_NUMBER: _ClassVar[int]
    BY_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: LadderBot
    elo: float
    ci95: float
    league: str
    next_boss: str
    next_boss_elo: float
    provisional: bool
    by_players: _containers.RepeatedCompositeFieldContainer[PlayerCountElo]
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[_Union[LadderBot, _Mapping]] = ..., elo: _Optional[float] = ..., ci95: _Optional[float] = ..., league: _Optional[str] = ..., next_boss: _Optional[str] = ..., next_boss_elo: _Optional[float] = ..., provisional: _Optional[bool] = ..., by_players: _Optional[_Iterable[_Union[PlayerCountElo, _Mapping]]] = ...) -> None: ...

class PlayerCountElo(_message.Message):
    __slots__ = ("players", "elo", "ci95")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    CI95_FIELD_NUMBER: _ClassVar[int]
    players: int
    elo: float
    ci95: float
    def __init__(self, players: _Optional[int] = ..., elo: _Optional[float] = ..., ci95: _Optional[float] = ...) -> None: ...

class SeatAdvantage(_message.Message):
    __slots__ = ("players", "seat", "elo", "ci95")
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    CI95_FIELD_NUMBER: _ClassVar[int]
    players: int
    seat: int
    elo: float
    ci95: float
    def __init__(self, players: _Optional[int] = ..., seat: _Optional[int] = ..., elo: _Optional[float] = ..., ci95: _Optional[float] = ...) -> None: ...

class Leaderboard(_message.Message):
    __slots__ = ("game", "matches", "rows", "season", "rating", "seat_effects")
    GAME_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    SEASON_FIELD_NUMBER: _ClassVar[int]
    RATING_FIELD_NUMBER: _ClassVar[int]
    SEAT_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    game: str
    matches: int
    rows: _containers.RepeatedCompositeFieldContainer[LeaderboardRow]
    season: str
    rating: str
    seat_effects: _containers.RepeatedCompositeFieldContainer[SeatAdvantage]
    def __init__(self, game: _Optional[str] = ..., matches: _Optional[int] = ..., rows: _Optional[_Iterable[_Union[LeaderboardRow, _Mapping]]] = ..., season: _Optional[str] = ..., rating: _Optional[str] = ..., seat_effects: _Optional[_Iterable[_Union[SeatAdvantage, _Mapping]]] = ...) -> None: ...

class LeaderboardResponse(_message.Message):
    __slots__ = ("boards",)
    BOARDS_FIELD_NUMBER: _ClassVar[int]
    boards: _containers.RepeatedCompositeFieldContainer[Leaderboard]
    def __init__(self, boards: _Optional[_Iterable[_Union[Leaderboard, _Mapping]]] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "bot_id", "bot", "place", "score", "status", "reason", "failure", "out_step", "out_at_start", "detail", "stderr_tail")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    PLACE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    OUT_STEP_FIELD_NUMBER: _ClassVar[int]
    OUT_AT_START_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    STDERR_TAIL_FIELD_NUMBER: _ClassVar[int]
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
    stderr_tail: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., bot_id: _Optional[int] = ..., bot: _Optional[str] = ..., place: _Optional[int] = ..., score: _Optional[float] = ..., status: _Optional[str] = ..., reason: _Optional[str] = ..., failure: _Optional[str] = ..., out_step: _Optional[int] = ..., out_at_start: _Optional[bool] = ..., detail: _Optional[str] = ..., stderr_tail: _Optional[_Iterable[str]] = ...) -> None: ...

class Match(_message.Message):
    __slots__ = ("id", "game", "game_version", "kind", "seed", "options_json", "state", "seats", "results", "created_at", "started_at", "finished_at", "wall_s", "decisions", "error", "seq", "replay_sha256", "duplicate_group", "fork_of", "fork_at", "fork_seat")
    ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_VERSION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    WALL_S_FIELD_NUMBER: _ClassVar[int]
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    REPLAY_SHA256_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_GROUP_FIELD_NUMBER: _ClassVar[int]
    FORK_OF_FIELD_NUMBER: _ClassVar[int]
    FORK_AT_FIELD_NUMBER: _ClassVar[int]
    FORK_SEAT_FIELD_NUMBER: _ClassVar[int]
    id: int
    game: str
    game_version: str
    kind: str
    seed: int
    options_json: str
    state: str
    seats: _containers.RepeatedScalarFieldContainer[int]
    results: _containers.RepeatedCompositeFieldContainer[SeatResult]
    created_at: float
    started_at: float
    finished_at: float
    wall_s: float
    decisions: int
    error: str
    seq: int
    replay_sha256: str
    duplicate_group: int
    fork_of: int
    fork_at: int
    fork_seat: int
    def __init__(self, id: _Optional[int] = ..., game: _Optional[str] = ..., game_version: _Optional[str] = ..., kind: _Optional[str] = ..., seed: _Optional[int] = ..., options_json: _Optional[str] = ..., state: _Optional[str] = ..., seats: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., created_at: _Optional[float] = ..., started_at: _Optional[float] = ..., finished_at: _Optional[float] = ..., wall_s: _Optional[float] = ..., decisions: _Optional[int] = ..., error: _Optional[str] = ..., seq: _Optional[int] = ..., replay_sha256: _Optional[str] = ..., duplicate_group: _Optional[int] = ..., fork_of: _Optional[int] = ..., fork_at: _Optional[int] = ..., fork_seat: _Optional[int] = ...) -> None: ...

class ListMatchesRequest(_message.Message):
    __slots__ = ("game", "bot_id", "state", "limit", "before_id", "bot")
    GAME_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    BEFORE_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    game: str
    bot_id: int
    state: str
    limit: int
    before_id: int
    bot: str
    def __init__(self, game: _Optional[str] = ..., bot_id: _Optional[int] = ..., state: _Optional[str] = ..., limit: _Optional[int] = ..., before_id: _Optional[int] = ..., bot: _Optional[str] = ...) -> None: ...

class ListMatchesResponse(_message.Message):
    __slots__ = ("matches",)
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[Match]
    def __init__(self, matches: _Optional[_Iterable[_Union[Match, _Mapping]]] = ...) -> None: ...

class GetReplayRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: int
    def __init__(self, match_id: _Optional[int] = ...) -> None: ...

class Replay(_message.Message):
    __slots__ = ("match_id", "content", "sha256", "redacted")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    REDACTED_FIELD_NUMBER: _ClassVar[int]
    match_id: int
    content: bytes
    sha256: str
    redacted: bool
    def __init__(self, match_id: _Optional[int] = ..., content: _Optional[bytes] = ..., sha256: _Optional[str] = ..., redacted: _Optional[bool] = ...) -> None: ...

class WatchMatchesRequest(_message.Message):
    __slots__ = ("game", "after_seq")
    GAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    game: str
    after_seq: int
    def __init__(self, game: _Optional[str] = ..., after_seq: _Optional[int] = ...) -> None: ...

class GetBotLogsRequest(_message.Message):
    __slots__ = ("match_id", "bot")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    match_id: int
    bot: str
    def __init__(self, match_id: _Optional[int] = ..., bot: _Optional[str] = ...) -> None: ...

class SeatLog(_message.Message):
    __slots__ = ("seat", "bot_id", "bot", "status", "failure", "stderr_tail", "kept", "until")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_ID_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    STDERR_TAIL_FIELD_NUMBER: _ClassVar[int]
    KEPT_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    bot_id: int
    bot: str
    status: str
    failure: str
    stderr_tail: _containers.RepeatedScalarFieldContainer[str]
    kept: str
    until: float
    def __init__(self, seat: _Optional[int] = ..., bot_id: _Optional[int] = ..., bot: _Optional[str] = ..., status: _Optional[str] = ..., failure: _Optional[str] = ..., stderr_tail: _Optional[_Iterable[str]] = ..., kept: _Optional[str] = ..., until: _Optional[float] = ...) -> None: ...

class BotLogs(_message.Message):
    __slots__ = ("match_id", "seats")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match_id: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatLog]
    def __init__(self, match_id: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatLog, _Mapping]]] = ...) -> None: ...

class Season(_message.Message):
    __slots__ = ("name", "started_at", "ended_at", "games", "time_control", "current")
    NAME_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ENDED_AT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    started_at: float
    ended_at: float
    games: _containers.RepeatedScalarFieldContainer[str]
    time_control: str
    current: bool
    def __init__(self, name: _Optional[str] = ..., started_at: _Optional[float] = ..., ended_at: _Optional[float] = ..., games: _Optional[_Iterable[str]] = ..., time_control: _Optional[str] = ..., current: _Optional[bool] = ...) -> None: ...

class ListSeasonsRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListSeasonsResponse(_message.Message):
    __slots__ = ("seasons",)
    SEASONS_FIELD_NUMBER: _ClassVar[int]
    seasons: _containers.RepeatedCompositeFieldContainer[Season]
    def __init__(self, seasons: _Optional[_Iterable[_Union[Season, _Mapping]]] = ...) -> None: ...

class StartSeasonRequest(_message.Message):
    __slots__ = ("name", "games", "time_control")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    name: str
    games: _containers.RepeatedScalarFieldContainer[str]
    time_control: str
    def __init__(self, name: _Optional[str] = ..., games: _Optional[_Iterable[str]] = ..., time_control: _Optional[str] = ...) -> None: ...

class SetLeaguesRequest(_message.Message):
    __slots__ = ("game", "leagues", "share_above")
    GAME_FIELD_NUMBER: _ClassVar[int]
    LEAGUES_FIELD_NUMBER: _ClassVar[int]
    SHARE_ABOVE_FIELD_NUMBER: _ClassVar[int]
    game: str
    leagues: _containers.RepeatedScalarFieldContainer[str]
    share_above: float
    def __init__(self, game: _Optional[str] = ..., leagues: _Optional[_Iterable[str]] = ..., share_above: _Optional[float] = ...) -> None: ...

class League(_message.Message):
    __slots__ = ("name", "boss", "bots")
    NAME_FIELD_NUMBER: _ClassVar[int]
    BOSS_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    boss: str
    bots: int
    def __init__(self, name: _Optional[str] = ..., boss: _Optional[str] = ..., bots: _Optional[int] = ...) -> None: ...

class Leagues(_message.Message):
    __slots__ = ("game", "share_above", "leagues")
    GAME_FIELD_NUMBER: _ClassVar[int]
    SHARE_ABOVE_FIELD_NUMBER: _ClassVar[int]
    LEAGUES_FIELD_NUMBER: _ClassVar[int]
    game: str
    share_above: float
    leagues: _containers.RepeatedCompositeFieldContainer[League]
    def __init__(self, game: _Optional[str] = ..., share_above: _Optional[float] = ..., leagues: _Optional[_Iterable[_Union[League, _Mapping]]] = ...) -> None: ...

class ForkMatchRequest(_message.Message):
    __slots__ = ("match_id", "step", "seat", "bot")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    match_id: int
    step: int
    seat: int
    bot: str
    def __init__(self, match_id: _Optional[int] = ..., step: _Optional[int] = ..., seat: _Optional[int] = ..., bot: _Optional[str] = ...) -> None: ...
