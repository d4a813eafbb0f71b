"""Plain-text tables for the CLI: leaderboards and match lists."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from niwa.v1 import ladder_pb2 as pb
from referee.text import printable

# Every name, version, owner, reason and error below was written by a bot's owner, a
# bot, or whoever runs the server: escaped (and bounded) before it reaches a terminal.
NAME_SHOWN = 60
REASON_SHOWN = 300


def _p(text: str, limit: int = NAME_SHOWN) -> str:
    return printable(text, limit)


def leaderboard(board: pb.Leaderboard) -> str:
    lines = [f"{_p(board.game)}: {board.matches} rated matches"]
    if not board.rows:
        lines.append("  no active bots yet")
        return "\n".join(lines)
    lines.append(f"  {'#':>3}  {'bot':<28} {'Elo':>6} {'± 95%':>7} {'games':>6} {'wins':>5}")
    for row in board.rows:
        bot = row.bot
        label = _p(f"{bot.name}@{bot.version}")
        if math.isinf(row.ci95):
            elo, ci = "new", ""
        else:
            elo, ci = f"{row.elo:.0f}", f"±{row.ci95:.0f}"
        lines.append(
            f"  {row.rank:>3}  {label:<28} {elo:>6} {ci:>7} {bot.games:>6} {bot.wins:>5}"
        )
    return "\n".join(lines)


def _when(seconds: float) -> str:
    if not seconds:
        return "-"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _placing(r: pb.SeatResult) -> str:
    out = f" (out: {_p(r.reason.split(':')[0])})" if r.status != "ok" else ""
    return f"{r.place + 1}. {_p(r.bot)}{out}"


def matches(listing: pb.ListMatchesResponse) -> str:
    if not listing.matches:
        return "no matches"
    lines = [f"{'id':>6}  {'game':<8} {'kind':<10} {'state':<8} {'finished (UTC)':<19}  result"]
    for m in listing.matches:
        if m.results:
            result = ", ".join(
                _placing(r) for r in sorted(m.results, key=lambda r: (r.place, r.seat))
            )
        else:
            result = _p(m.error, REASON_SHOWN) or "seats: " + ", ".join(str(s) for s in m.seats)
        lines.append(
            f"{m.id:>6}  {_p(m.game):<8} {_p(m.kind):<10} {_p(m.state):<8} "
            f"{_when(m.finished_at):<19}  {result}"
        )
    return "\n".join(lines)


def bots(listing: pb.ListBotsResponse) -> str:
    if not listing.bots:
        return "no bots"
    lines = [f"{'id':>5}  {'bot':<28} {'game':<8} {'owner':<12} {'status':<10} reason"]
    for b in listing.bots:
        label = _p(f"{b.name}@{b.version}")
        lines.append(
            f"{b.id:>5}  {label:<28} {_p(b.game):<8} {_p(b.owner):<12} {_p(b.status):<10} "
            f"{_p(b.reason, REASON_SHOWN)}"
        )
    return "\n".join(lines)
