from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TimeControl(_message.Message):
    __slots__ = ("per_decision_ms", "bank_ms")
    PER_DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    per_decision_ms: int
    bank_ms: int
    def __init__(self, per_decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class StartRequest(_message.Message):
    __slots__ = ("game", "version", "seat", "players", "options_json", "time_control", "seed", "match_id")
    GAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    game: str
    version: str
    seat: int
    players: int
    options_json: str
    time_control: TimeControl
    seed: int
    match_id: str
    def __init__(self, game: _Optional[str] = ..., version: _Optional[str] = ..., seat: _Optional[int] = ..., players: _Optional[int] = ..., options_json: _Optional[str] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., seed: _Optional[int] = ..., match_id: _Optional[str] = ...) -> None: ...

class StartReply(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("time_left_ms", "per_decision_ms", "bank_ms")
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    PER_DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    time_left_ms: int
    per_decision_ms: int
    bank_ms: int
    def __init__(self, time_left_ms: _Optional[int] = ..., per_decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("decision", "seat", "observation_json", "legal_actions_json", "clock")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_JSON_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    decision: int
    seat: int
    observation_json: str
    legal_actions_json: _containers.RepeatedScalarFieldContainer[str]
    clock: Clock
    def __init__(self, decision: _Optional[int] = ..., seat: _Optional[int] = ..., observation_json: _Optional[str] = ..., legal_actions_json: _Optional[_Iterable[str]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class ActReply(_message.Message):
    __slots__ = ("index", "action_json", "note", "debug", "thinking")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_JSON_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    DEBUG_FIELD_NUMBER: _ClassVar[int]
    THINKING_FIELD_NUMBER: _ClassVar[int]
    index: int
    action_json: str
    note: str
    debug: str
    thinking: Thinking
    def __init__(self, index: _Optional[int] = ..., action_json: _Optional[str] = ..., note: _Optional[str] = ..., debug: _Optional[str] = ..., thinking: _Optional[_Union[Thinking, _Mapping]] = ...) -> None: ...

class Thinking(_message.Message):
    __slots__ = ("shares", "values", "pv_json")
    SHARES_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    PV_JSON_FIELD_NUMBER: _ClassVar[int]
    shares: _containers.RepeatedScalarFieldContainer[float]
    values: _containers.RepeatedScalarFieldContainer[float]
    pv_json: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, shares: _Optional[_Iterable[float]] = ..., values: _Optional[_Iterable[float]] = ..., pv_json: _Optional[_Iterable[str]] = ...) -> None: ...

class FinishRequest(_message.Message):
    __slots__ = ("scores", "places", "seat")
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[float]
    places: _containers.RepeatedScalarFieldContainer[int]
    seat: int
    def __init__(self, scores: _Optional[_Iterable[float]] = ..., places: _Optional[_Iterable[int]] = ..., seat: _Optional[int] = ...) -> None: ...

class FinishReply(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
