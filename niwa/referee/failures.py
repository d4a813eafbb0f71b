"""The four ways a bot can fail a decision, classified once at the boundary
(docs/protocol.md, "Failures")."""

from __future__ import annotations

from enum import StrEnum

from niwa.errors import RefereeError


class Failure(StrEnum):
    TIMEOUT = "TIMEOUT"  # no answer within the seat's time left
    ILLEGAL = "ILLEGAL"  # an answer that is not one of the legal actions, or malformed
    CRASHED = "CRASHED"  # the bot's process died (or never got to READY)
    DISCONNECTED = "DISCONNECTED"  # the process lives but its socket stopped answering


class SeatStatus(StrEnum):
    """How a seat ended a match (a replay's result line, the ladder's results)."""

    OK = "ok"  # it played to the end
    OUT = "out"  # it was put out (a fatal failure, or too many): defaults played for it


class MoveStatus(StrEnum):
    """A recorded move's status, besides the :class:`Failure` that made the referee
    play a default move instead of the bot's."""

    OK = "OK"  # the bot's own answer
    OUT = "OUT"  # the seat was already out: a default move


#: Failures after which the referee cannot talk to the bot any more: the seat is out.
FATAL = frozenset({Failure.CRASHED, Failure.DISCONNECTED})


class BotFailure(RefereeError):
    """Raised by a player when a call fails; ``detail`` is one line for the replay."""

    def __init__(self, kind: Failure, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


#: Longest detail line taken from bot-controlled text (gRPC status details, JSON).
DETAIL_CHARS = 160


def clip(text: str, limit: int = DETAIL_CHARS) -> str:
    """Bot-controlled text cut to ``limit`` characters and made encodable: lone
    surrogates (which UTF-8 cannot carry) become ``?``. (Escaping it for a terminal is
    the printer's job.)"""
    return text[:limit].encode("utf-8", "replace").decode("utf-8")


def raised(call: str, details: str) -> BotFailure:
    """The failure of a call whose handler threw (status UNKNOWN, what gRPC servers
    send then, and the SDK for an exception in ``act``/``start``): the bot's code
    crashed, so CRASHED, not ILLEGAL (docs/protocol.md, "Failures"). ``details`` is
    the status message (``ValueError: bad index`` from the SDK; the traceback is on
    the bot's stderr)."""
    return BotFailure(Failure.CRASHED, f"{call}: your code raised {details or 'an exception'}")
