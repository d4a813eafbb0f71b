"""The one structlog set-up, for every process: the command line (events on stderr,
never stdout, which carries the narration; warnings only unless NIWA_LOG=info or
debug), the ladder and its workers (:mod:`niwa.ladder.logs`). JSON lines when the stream is
not a terminal (the ladder), readable lines otherwise; or every event as a JSON line in
a file, with only warnings and errors on stderr (the demo's quiet console)."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import structlog

from niwa.referee.text import printable

#: One event is one line: ``print`` writes the text and its newline apart, and another
#: thread's event could land between them (two events on one line of a ladder's log).
_WRITING = threading.Lock()


#: Clears a terminal's line before an event, so that one drawn over a progress line
#: (``\r`` and no newline) does not run on from the progress text.
CLEAR_LINE = "\r\x1b[K"

#: The levels that still reach stderr when every event goes to a file.
_CONSOLE_LEVELS = frozenset({"warning", "error", "critical", "exception"})


def write_line(message: str) -> None:
    """One whole line on whatever ``sys.stderr`` is now, starting a terminal's line
    afresh (a progress line may be drawn there)."""
    with _WRITING:
        stream = sys.stderr
        stream.write((CLEAR_LINE if stream.isatty() else "") + message + "\n")
        stream.flush()


class _Stderr:
    """Writes each rendered event to whatever ``sys.stderr`` is *now* (it may be
    swapped after configuration, e.g. by a test's capture), whole lines at a time."""

    def msg(self, message: str) -> None:
        write_line(message)

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


def _stderr_logger(*_: Any) -> _Stderr:
    return _Stderr()


class _FileAndConsole:
    """Every event as a JSON line appended to a file (one ``write`` on an ``O_APPEND``
    descriptor, so the ladder and its worker processes can share it line by line);
    warnings and errors on stderr too, where a person is watching."""

    def __init__(self, path: Path, console: Any) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Never closed: loggers bound before a reconfiguration may still write here.
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._json = structlog.processors.JSONRenderer()
        self._console = console

    def msg(self, **event: Any) -> None:
        line = self._json(None, "", dict(event))  # str with the default serializer
        os.write(self._fd, (str(line) + "\n").encode())
        if event.get("level") in _CONSOLE_LEVELS:
            write_line(self._console(None, "", event))

    debug = info = warning = warn = error = critical = exception = fatal = log = msg


def escape_strings(_: Any, __: str, event: MutableMapping[str, Any]) -> dict[str, Any]:
    """structlog processor for renderers that print strings raw (the console one): a
    bot's name, detail or stderr line must not reach the terminal as escape sequences.
    (Other values are rendered with repr, which escapes them already.)"""
    out = {k: printable(v) if isinstance(v, str) else v for k, v in event.items()}
    if isinstance(event.get("exception"), str):  # a traceback keeps its lines
        out["exception"] = "\n".join(printable(line) for line in event["exception"].split("\n"))
    return out


def _render(processors: list[Any], logger: Any, method: str, event: Any) -> str:
    for processor in processors:
        event = processor(logger, method, event)
    return str(event)


def _naming(node: str) -> Any:
    """structlog processor: every event names ``node`` (a worker's or Ray task's own
    bound ``node``, merged from the context first, wins)."""

    def add(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        event.setdefault("node", node)
        return event

    return add


#: Whether this process's events are JSON lines (set by :func:`configure`).
_json_events = False


def json_events() -> bool:
    return _json_events


def configure(
    level: str = "info",
    json: bool | None = None,
    stream: Any = None,
    file: Path | None = None,
    node: str = "",
) -> None:
    """Set up structlog for this process. ``json``: None to decide by whether the stream
    is a terminal. ``stream``: None for whatever ``sys.stderr`` is at each event.
    ``file``: every event at ``level`` goes there as JSON, and only warnings and errors
    to stderr (rendered as ``json`` says). ``node``: named by every event that does
    not name one itself."""
    global _json_events
    use_json = not (stream or sys.stderr).isatty() if json is None else json
    _json_events = use_json
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if use_json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    rendering: list[Any] = [
        *(() if use_json else (escape_strings,)),  # JSON escapes control characters
        renderer,
    ]
    factory: Any = _stderr_logger if stream is None else structlog.PrintLoggerFactory(stream)
    if file is not None:  # the logger gets the event as a dict and renders it twice
        console = list(rendering)
        tee = _FileAndConsole(file, lambda *event: _render(console, *event))
        rendering, factory = [], lambda *_: tee
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            *((_naming(node),) if node else ()),
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            *rendering,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.WARNING)
        ),
        logger_factory=factory,
        cache_logger_on_first_use=False,
    )


def configure_cli_logging() -> None:
    """Readable lines on stderr, at the level NIWA_LOG names (warning by default)."""
    configure(os.environ.get("NIWA_LOG", "warning"), json=False)
