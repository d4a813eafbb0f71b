"""What the CLI prints: plain-text tables (leaderboards, bots, matches, bot logs) and
their ``--json`` form, whose shape docs/ladder.md documents."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from niwa.ladder.elo import fmt_elo
from niwa.ladder.views import (
    BotListing,
    BotLogs,
    LadderBot,
    Leaderboard,
    LeaderboardRow,
    MatchView,
    SeasonView,
    SeatAdvantage,
    SeatLog,
    SeatResult,
)
from niwa.referee.failures import SeatStatus
from niwa.referee.stderr_tail import cause_lines
from niwa.referee.text import printable

# Every name, version, owner, reason and error below was written by a bot's owner, a
# bot, or whoever runs the server: escaped (and bounded) before it reaches a terminal.
NAME_SHOWN = 60
REASON_SHOWN = 300
STDERR_SHOWN = 400  # a stderr line as the referee keeps it (cut at 400 characters)
#: JSON output's version: raised only when a field changes meaning or goes away.
JSON_SCHEMA = "niwa-ladder-cli/2"


def _p(text: str, limit: int = NAME_SHOWN) -> str:
    return printable(text, limit)


#: How each rating model is named on the board.
RATING_NAMES = {"plackett-luce": "Plackett-Luce", "pairwise": "pairwise Bradley-Terry"}


def signed(value: float) -> str:
    """An Elo difference to the whole number with its sign (``fmt_elo``: "+0" for
    anything that rounds to 0)."""
    return fmt_elo(value, 0)


def seat_effect(s: SeatAdvantage) -> str:
    """'seat 1 vs seat 0: -23 Elo [-40, -6]' (seats from 0, seat 0 moves first)."""
    low, high = s.elo - s.ci95, s.elo + s.ci95
    return f"seat {s.seat} vs seat 0: {signed(s.elo)} Elo [{signed(low)}, {signed(high)}]"


def leaderboard(board: Leaderboard) -> str:
    season = f" (season {_p(board.season)})" if board.season else ""
    model = f", {RATING_NAMES.get(board.rating, _p(board.rating))}" if board.rating else ""
    lines = [f"{_p(board.game)}: {board.matches} rated matches{season}{model}"]
    if not board.rows:
        lines.append("  no active bots yet")
        return "\n".join(lines)
    counts = sorted({p.players for row in board.rows for p in row.by_players})
    per_count = "".join(f" {f'{n}p Elo':>8}" for n in counts)
    lines.append(f"  {'#':>3}  {'bot':<28} {'Elo':>6} {'± 95%':>7} {'games':>6} {'wins':>5}"
                 + per_count)
    for row in board.rows:
        bot = row.bot
        label = _p(f"{bot.name}@{bot.version}")
        if is_builtin(bot):
            label += " (built-in)"
        if row.provisional:
            label += " (provisional)"
        if math.isinf(row.ci95):
            elo, ci = "new", ""
        else:
            elo, ci = f"{row.elo:.0f}", f"±{row.ci95:.0f}"
        by_count = {p.players: p for p in row.by_players}
        cells = "".join(
            f" {f'{by_count[n].elo:.0f}' if n in by_count else '-':>8}" for n in counts
        )
        lines.append(
            f"  {row.rank:>3}  {label:<28} {elo:>6} {ci:>7} {bot.games:>6} {bot.wins:>5}"
            + cells
        )
    if counts:
        lines.append(f"  ({', '.join(f'{n}p' for n in counts)} Elo: fitted on the matches "
                     "of that many seats alone)")
    if board.seat_effects:
        lines.append("  seat effects (Elo against seat 0, 95 % interval):")
        lines.extend(f"    {s.players} players: {seat_effect(s)}" for s in board.seat_effects)
    return "\n".join(lines)


def _when(seconds: float) -> str:
    if not seconds:
        return "-"
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def seasons(found: Sequence[SeasonView]) -> str:
    """One line per season, newest first: name, span, games and time control."""
    lines = [f"{'season':<33} {'started (UTC)':<19}  {'ended (UTC)':<19}  rules"]
    for s in found:
        ended = "current" if s.current else _when(s.ended_at)
        games = ", ".join(_p(g) for g in s.games) or "every game"
        clock = _p(s.time_control) or "the ladder's own"
        rules = f"{games}; time control {clock}"
        lines.append(f"{_p(s.name):<33} {_when(s.started_at):<19}  {ended:<19}  {rules}")
    return "\n".join(lines)


def season_json(s: SeasonView) -> dict[str, Any]:
    return {
        "name": s.name, "started_at": s.started_at, "ended_at": s.ended_at or None,
        "games": list(s.games), "time_control": s.time_control, "current": s.current,
    }  # fmt: skip


def is_builtin(bot: LadderBot) -> bool:
    return bot.source.startswith("builtin:")


def stderr_lines(tail: Iterable[str], indent: str) -> list[str]:
    """The lines of a bot's stderr tail that show why it died (its error line among
    them, not Node's ``Node.js vNN`` trailer), escaped, under a heading; ``niwa ladder
    logs`` shows the whole tail."""
    lines = [_p(line, STDERR_SHOWN) for line in cause_lines(list(tail))]
    if not lines:
        return []
    return [f"{indent}stderr (why it stopped):", *(f"{indent}  {x}" for x in lines)]


def _failure(r: SeatResult) -> str:
    return r.failure or r.reason.split(":")[0]


def _placing(r: SeatResult) -> str:
    out = f" (out: {_p(_failure(r))})" if r.status != SeatStatus.OK else ""
    return f"{r.place + 1}. {_p(r.bot)}{out}"


def out_lines(m: MatchView) -> list[str]:
    """Under a match: each seat that went out, why, when, and (for its owner) the end
    of its stderr."""
    lines = []
    for r in sorted(m.results, key=lambda r: r.seat):
        if r.status == SeatStatus.OK:
            continue
        when = "at start-up" if r.out_at_start else f"at step {r.out_step}"
        detail = f": {_p(r.detail, REASON_SHOWN)}" if r.detail else ""
        lines.append(f"        seat {r.seat} {_p(r.bot)} OUT {_p(_failure(r))} {when}{detail}")
        lines.extend(stderr_lines(r.stderr_tail, "          "))
    return lines


def matches(listing: Sequence[MatchView], details: bool = False) -> str:
    if not listing:
        return "no matches"
    lines = [f"{'id':>6}  {'game':<8} {'kind':<10} {'state':<8} {'finished (UTC)':<19}  result"]
    for m in listing:
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
        if m.fork_of:
            lines.append(f"        {fork_line(m)}")
        if details:
            lines.extend(out_lines(m))
    return "\n".join(lines)


def fork_line(m: MatchView) -> str:
    """How a forked match is listed: what it replays, from where, which seat changed."""
    return f"fork of #{m.fork_of} at step {m.fork_at} (seat {m.fork_seat} replaced)"


def bots(listing: BotListing) -> str:
    waiting = [f"{_p(g.game)}: {_p(g.waiting, REASON_SHOWN)}" for g in listing.games if g.waiting]
    if not listing.bots:
        return "\n".join(["no bots", *waiting])
    lines = [f"{'id':>5}  {'bot':<28} {'game':<8} {'owner':<12} {'status':<10} reason"]
    for b in listing.bots:
        label = _p(f"{b.name}@{b.version}")
        lines.append(
            f"{b.id:>5}  {label:<28} {_p(b.game):<8} {_p(b.owner):<12} {_p(b.status):<10} "
            f"{_p(b.reason, REASON_SHOWN)}"
        )
        lines.extend(stderr_lines(b.stderr_tail, "       "))
    if waiting:
        lines.extend(["", *waiting])
    return "\n".join(lines)


def bot_logs(logs: BotLogs) -> str:
    lines = []
    for seat in logs.seats:
        status = f"out ({_p(seat.failure)})" if seat.status != SeatStatus.OK else str(SeatStatus.OK)
        lines.append(f"match {logs.match_id}, seat {seat.seat}: {_p(seat.bot)}, {status}")
        lines.extend(f"  {_p(line, STDERR_SHOWN)}" for line in seat.stderr_tail)
        lines.append(f"  ({_tail_note(seat)})")
    return "\n".join(lines)


def _tail_note(seat: SeatLog) -> str:
    """Under a seat's stderr tail: until when it is kept, or why there is none."""
    until = f"{_when(seat.until)} UTC" if seat.until else "later"
    if seat.kept == "expired":
        return (f"expired: removed {until}, after this ladder's retention "
                "(niwa ladder serve --stderr-days)")  # fmt: skip
    if seat.stderr_tail:
        return f"kept until {until}" if seat.kept else "kept"
    if seat.kept == "kept":
        return f"the bot wrote nothing on stderr (kept until {until})"
    if seat.kept == "out_only":
        return ("never kept: this match finished before the ladder kept the stderr of "
                "seats that stayed in")  # fmt: skip
    return "nothing kept: this ladder keeps the stderr of seats that went out only"


# JSON ---------------------------------------------------------------------------------
# Plain values, the same names as the text columns; ids are numbers, times seconds since
# the Unix epoch (null: not yet), places count from 1. A seed is a decimal string: it
# has up to 62 bits, and a reader whose numbers are doubles (JavaScript) would round it.


def print_json(value: dict[str, Any]) -> None:
    # ASCII only: a bot's stderr or an owner's text cannot reach the terminal raw
    # (bidi and C1 controls come out as \u escapes, which every JSON reader decodes).
    json.dump({"schema": JSON_SCHEMA, **value}, sys.stdout, indent=2, ensure_ascii=True)
    sys.stdout.write("\n")


def _bot_json(b: LadderBot) -> dict[str, Any]:
    return {
        "id": b.id, "bot": f"{b.name}@{b.version}", "name": b.name, "version": b.version,
        "game": b.game, "owner": b.owner, "builtin": is_builtin(b), "status": b.status,
        "reason": b.reason, "games": b.games, "wins": b.wins,
        "stderr_tail": list(b.stderr_tail),
    }  # fmt: skip


def leaderboard_json(boards: Sequence[Leaderboard]) -> dict[str, Any]:
    return {"boards": [
        {
            "game": board.game,
            "season": board.season,
            "matches": board.matches,
            "rating": board.rating or None,
            "seat_effects": [
                {"players": s.players, "seat": s.seat, "against_seat": 0,
                 "elo": round(s.elo, 1), "ci95": round(s.ci95, 1), "text": seat_effect(s)}
                for s in board.seat_effects
            ],
            "rows": [
                {
                    "rank": row.rank,
                    **{k: v for k, v in _bot_json(row.bot).items() if k != "stderr_tail"},
                    "elo": None if math.isinf(row.ci95) else round(row.elo, 1),
                    "ci95": None if math.isinf(row.ci95) else round(row.ci95, 1),
                    "provisional": row.provisional,
                    **_league_json(row),
                    **({"by_players": {
                        str(p.players): {"elo": round(p.elo, 1), "ci95": round(p.ci95, 1)}
                        for p in row.by_players
                    }} if row.by_players else {}),
                }
                for row in board.rows
            ],
        }
        for board in boards
    ]}  # fmt: skip


def _league_json(row: LeaderboardRow) -> dict[str, Any]:
    """A row's league, in a game with leagues only (so other games' JSON is unchanged)."""
    if not row.league:
        return {}
    return {"league": row.league, "next_boss": row.next_boss or None,
            "next_boss_elo": round(row.next_boss_elo, 1) if row.next_boss else None}  # fmt: skip


def _seat_json(r: SeatResult) -> dict[str, Any]:
    out = r.status != SeatStatus.OK
    return {
        "seat": r.seat, "bot_id": r.bot_id, "bot": r.bot, "place": r.place + 1,
        "score": r.score, "status": r.status,
        "failure": _failure(r) if out else None,
        "out_step": None if not out or r.out_at_start else r.out_step,
        "detail": r.detail if out else None,
        "stderr_tail": list(r.stderr_tail),
    }  # fmt: skip


def matches_json(listing: Sequence[MatchView]) -> dict[str, Any]:
    return {"matches": [
        {
            "id": m.id, "game": m.game, "game_version": m.game_version, "kind": m.kind,
            "state": m.state, "seed": str(m.seed), "seats": list(m.seats),
            "created_at": m.created_at, "started_at": m.started_at or None,
            "finished_at": m.finished_at or None, "wall_s": m.wall_s,
            "decisions": m.decisions, "error": m.error,
            "replay_sha256": m.replay_sha256 or None,
            "duplicate_group": m.duplicate_group or None,
            "fork": {"of": m.fork_of, "at": m.fork_at, "seat": m.fork_seat}
            if m.fork_of else None,
            "results": [_seat_json(r) for r in sorted(m.results, key=lambda r: r.seat)],
        }
        for m in listing
    ]}  # fmt: skip


def bots_json(listing: BotListing) -> dict[str, Any]:
    return {
        "bots": [_bot_json(b) for b in listing.bots],
        "games": [
            {"game": g.game, "active": g.active, "needed": g.needed,
             "waiting": g.waiting or None}
            for g in listing.games
        ],
    }  # fmt: skip
