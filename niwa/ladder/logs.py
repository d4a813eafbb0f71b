"""Structured logs for the ladder and its workers: the referee's one set-up
(:func:`niwa.referee.logs.configure`; JSON lines when stderr is not a terminal, or in a file
with only warnings and errors on stderr)."""

from __future__ import annotations

from niwa.referee.logs import configure, write_line

__all__ = ["configure", "write_line"]
