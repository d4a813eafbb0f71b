"""Replay files: one JSON object per line (JSON Lines), documented in docs/protocol.md.

The first line is the header, then one line per step (a decision of one or more seats,
or a chance outcome) with a hash chained over every recorded action and chance outcome
so far, the hash of the full state after it at checkpoints and after the last step,
and last the result::

    {"kind":"header","schema":"niwa-replay/2","game":"blossom","version":"blossom@2",...}
    {"kind":"chance","index":0,"moves":[{"seat":-1,"action":...}],"chain":"9a1e..."}
    {"kind":"decision","index":63,"moves":[...],"chain":"07bd...","hash":"3f0c..."}
    {"kind":"result","scores":[...],"places":[...],"seats":[{"seat":0,"status":"ok"},...]}

``niwa-replay/1`` files (a full-state hash on every step, no chain) still read and
verify.

The package: :mod:`.model` (the lines as dataclasses, the constants and the hash
chain), :mod:`.writer`, :mod:`.reader` (untrusted files, bounded) and :mod:`.check`
(type checks, and re-simulation: :func:`states` walks a match for ``niwa replay show``
and ``niwa replay ask``, :func:`niwa.referee.replay.check.verify` checks every claim).
This module re-exports the names callers use, so ``from niwa.referee.replay import X``
keeps working.
"""

from niwa.referee.replay.check import (
    NAME_FIELD,
    TEXT_FIELD_CHARS,
    ReplayMismatch,
    _convert,
    _schema,
    apply_step,
    name_problem,
    new_game,
    recorded_joint,
    states,
)
from niwa.referee.replay.model import (
    CHECKPOINT_EVERY,
    FLUSH_INTERVAL_S,
    MAX_PLAYERS,
    MOVE_STATUSES,
    SCHEMA,
    SCHEMAS,
    ForkOrigin,
    Header,
    Isolation,
    Move,
    MoveThinking,
    Replay,
    ReplayError,
    ResultLine,
    SeatInfo,
    SeatOutcome,
    Step,
    StepKind,
    chain_next,
    chain_start,
    chance_chain_next,
    chance_line,
    encode,
    encoded_actions,
    is_checkpoint,
    step_text,
)
from niwa.referee.replay.reader import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_INT_DIGITS,
    MAX_LINE_BYTES,
    MAX_STEPS,
    parse,
    parse_line,
    read,
)
from niwa.referee.replay.writer import ReplayWriter

__all__ = [
    "CHECKPOINT_EVERY",
    "FLUSH_INTERVAL_S",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_INT_DIGITS",
    "MAX_LINE_BYTES",
    "MAX_PLAYERS",
    "MAX_STEPS",
    "MOVE_STATUSES",
    "NAME_FIELD",
    "SCHEMA",
    "SCHEMAS",
    "TEXT_FIELD_CHARS",
    "ForkOrigin",
    "Header",
    "Isolation",
    "Move",
    "MoveThinking",
    "Replay",
    "ReplayError",
    "ReplayMismatch",
    "ReplayWriter",
    "ResultLine",
    "SeatInfo",
    "SeatOutcome",
    "Step",
    "StepKind",
    "_convert",
    "_schema",
    "apply_step",
    "chain_next",
    "chain_start",
    "chance_chain_next",
    "chance_line",
    "encode",
    "encoded_actions",
    "is_checkpoint",
    "name_problem",
    "new_game",
    "parse",
    "parse_line",
    "read",
    "recorded_joint",
    "states",
    "step_text",
]
