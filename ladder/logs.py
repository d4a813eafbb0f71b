"""Structured logs for the ladder and its workers: the referee's one set-up
(:func:`referee.logs.configure`; JSON lines when stderr is not a terminal)."""

from __future__ import annotations

from referee.logs import configure

__all__ = ["configure"]
