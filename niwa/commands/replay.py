"""``niwa replay verify|show|ask FILE``: check, read and debug a replay file."""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from niwa import engine
from niwa.bots.sdk import NOTE_LIMIT
from niwa.cli import UsageError
from niwa.commands.replay_fork import register_fork
from niwa.engine import CHANCE, Action, canonical_json, describe_move
from niwa.ladder.client import CallFailed, LadderClient, ReplayMismatch, checked_replay
from niwa.referee import replay as replays
from niwa.referee.ask import ask_again_sync
from niwa.referee.failures import MoveStatus, SeatStatus
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import BotSpec
from niwa.referee.replay import Move, Replay, ReplayError, Step
from niwa.referee.replay.check import check
from niwa.referee.sandbox import SandboxUnavailable
from niwa.referee.stderr_tail import SHOWN_LINES, cause_lines
from niwa.referee.text import printable, printable_lines
from niwa.series.names import shown
from niwa.web.offline import offline_html
from niwa.web.replay_view import MAX_STEPS as MAX_VIEWER_STEPS
from niwa.web.replay_view import replay_payload

#: How much of a bot-written name, failure detail or debug line a line shows.
NAME_SHOWN = 60
DETAIL_SHOWN = 300
#: Lines of a re-asked bot's traceback shown (its stderr tail keeps 40).
TRACEBACK_SHOWN = 30
TRACEBACK = "Traceback (most recent call last):"

VERIFY_EPILOG = """\
exit status:
  0  everything matches
  1  a mismatch: one FAILED line per difference, naming the step or field; with
     --ladder, also a file that is not the ladder's copy of its match
  2  the file cannot be read as a replay (missing, not JSON Lines, out of bounds),
     or with --ladder: no ladder answers, or its match_id is not a ladder match's
"""
SHOW_EPILOG = """\
exit status:
  0  shown
  1  a step cannot be re-played (the file is corrupt or forged): a FAILED line
  2  the file cannot be read as a replay, or a bad --seat/--at
"""
HTML_EPILOG = """\
exit status:
  0  written
  1  a step cannot be re-played (the file is corrupt or forged): a FAILED line
  2  the file cannot be read as a replay, is longer than the viewer shows, or -o
     cannot be written
"""
ASK_EPILOG = """\
exit status:
  0  the bot gave the recorded answer
  1  it answered differently (or failed): both answers are printed
  2  the file cannot be read as a replay, a bad --at/--seat, or a bad bot directory
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="verify, show, re-ask or fork a replay file",
        description="Works on the JSON Lines replays that niwa play --replay and the "
        "ladder write (format: docs/protocol.md).",
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True,
                               help="what to do with the file")

    raw = argparse.RawDescriptionHelpFormatter
    v = actions.add_parser("verify", help="re-simulate and check every state hash",
                           epilog=VERIFY_EPILOG, formatter_class=raw)
    v.add_argument("file", help="a replay file (JSON Lines)")
    v.add_argument("--ladder", metavar="ADDR",
                   help="also compare the file with the ladder's copy of its match (the "
                   "match_id in its header) at ADDR (host:port): what proves where it "
                   "came from")
    v.add_argument("--token", help="with --ladder: your owner token, to compare with your "
                   "bot's full copy (without it the ladder shows the public copy)")
    v.add_argument("--tls-ca", type=Path, help="with --ladder: PEM root certificate: "
                   "connect with TLS")
    v.set_defaults(run=run_verify)

    s = actions.add_parser("show", help="step through the match as a seat (or spectator) saw it",
                           epilog=SHOW_EPILOG, formatter_class=raw)
    s.add_argument("file", help="a replay file (JSON Lines)")
    s.add_argument("--seat", type=int, help="see what this seat saw (default: spectator)")
    s.add_argument("--at", type=int, metavar="N",
                   help="show only step N: the view before it, the question (with each "
                   "action's share when the bot sent thinking), the answer and the bot's "
                   "whole debug text and thinking")
    s.set_defaults(run=run_show)

    w = actions.add_parser(
        "html", help="write the match as one self-contained HTML page (the replay viewer)",
        description="Writes one HTML file that shows the match step by step, as any seat "
        "or the spectator saw it; it needs no server and no network.",
        epilog=HTML_EPILOG, formatter_class=raw,
    )
    w.add_argument("file", help="a replay file (JSON Lines)")
    w.add_argument("-o", "--output", type=Path, required=True, metavar="HTML",
                   help="the HTML file to write")
    w.set_defaults(run=run_html)

    a = actions.add_parser(
        "ask", help="re-ask a bot the question of step N; print its answer and the recorded one",
        epilog=ASK_EPILOG, formatter_class=raw,
    )
    a.add_argument("file", help="a replay file (JSON Lines)")
    a.add_argument("--at", type=int, required=True, metavar="N", help="a decision step")
    a.add_argument("--bot", required=True, metavar="DIR_OR_BUILTIN",
                   help="the bot to ask: a bot directory (with bot.toml) or builtin:NAME")
    a.add_argument("--seat", type=int, help="which seat, when step N is simultaneous")
    a.add_argument("--no-sandbox", action="store_true", help="run the bot unsandboxed")
    a.add_argument("--json", action="store_true",
                   help="show both answers as the JSON actions instead of in words")
    a.set_defaults(run=run_ask)
    register_fork(actions)


def read_replay(path: str, game: bool = True) -> Replay:
    """The replay at ``path`` (and, with ``game``, its game installed at its version);
    UsageError, one line, for anything else: the reader bounds and types every field."""
    configure_cli_logging()
    try:
        replay = replays.read(path)
        if game:
            replay.game()
    except (ReplayError, engine.UnknownGame) as e:
        raise UsageError(str(e).strip("\"'")) from None
    return replay


def run_verify(args: argparse.Namespace) -> int:
    replay = read_replay(args.file, game=False)  # a header naming other rules is a FAILED line
    name = printable(args.file)
    try:
        report = check(replay)
    except ReplayError as e:
        raise UsageError(str(e)) from None
    from_ladder = True if args.ladder is None else _same_as_ladders(args, replay, name)
    if report.problems:
        for problem in report.problems:  # each names its step or field: expected, found
            print(f"{name}: FAILED: {printable(problem)}")
        return 1
    ending = (
        "every hash and the result match"
        if report.complete
        else "every hash matches (no result line: interrupted)"
    )
    fork = replay.header.fork
    follows = (
        "chance, default moves and statuses follow the seed and the rules" if fork is None
        else f"a fork at step {fork.at} of the replay with SHA-256 {fork.replay_sha256[:16]}: "
        "before it, chance and default moves follow that replay's seed; from it, default "
        "moves follow this seed and chance is legal (recorded or drawn: only the original "
        "tells which)"
    )
    print(f"{name}: ok: {report.steps} steps of {replay.header.version}, {ending}; {follows}")
    if args.ladder is None:
        print(f"{name}: {WHAT_OK_PROVES} {_sha256(args.file)}")
    return 0 if from_ladder else 1


def _same_as_ladders(args: argparse.Namespace, replay: Replay, name: str) -> bool:
    """Whether the file is byte for byte the ladder's copy of its match (printed)."""
    match_id = replay.header.match_id
    if not match_id.isdigit():
        raise UsageError(
            f"the header's match_id {match_id!r} is not a ladder match's number: "
            "only a ladder's replay can be compared with --ladder"
        )
    try:
        with LadderClient(args.ladder, args.tls_ca, args.token) as ladder:
            reply = ladder.replay(int(match_id))
        theirs = checked_replay(reply, int(match_id))
    except CallFailed as e:
        if e.unavailable:
            raise UsageError(f"no ladder answers at {args.ladder}: check --ladder") from None
        raise UsageError(f"the ladder at {args.ladder}: {e}") from None
    except ReplayMismatch as e:
        raise UsageError(str(e)) from None
    mine = _sha256(args.file)
    copy = "public copy" if reply.redacted else "copy"
    if mine == hashlib.sha256(theirs).hexdigest():
        print(f"{name}: the ladder at {args.ladder} holds this file as the {copy} of match "
              f"{match_id} (SHA-256 {mine})")
        return True
    hint = " (you were sent the public copy: pass --token if this is your bot's full one)"
    print(f"{name}: FAILED: not the ladder's {copy} of match {match_id}: SHA-256 "
          f"{mine[:16]}, the ladder's {reply.sha256[:16]}{hint if reply.redacted else ''}")
    return False


#: What an ok verdict does and does not prove (docs/security.md, "Verifying a replay").
WHAT_OK_PROVES = (
    "note: re-simulated from the file alone: the chain and hashes are unkeyed, so they "
    "show no edit since the file was written, but anyone can write a consistent file "
    "(change a move, recompute the chain, hashes and places); timings, clock readings "
    "(only their bounds are checked), notes on good moves, details, stderr, match_id and "
    "started are not provable from the file. "
    "For a ladder match, compare with the ladder's copy (--ladder ADDR, or niwa ladder "
    "replay N, which checks its recorded SHA-256); this file's SHA-256:"
)


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _move_line(step: Step, move: Move, before: engine.State, names: list[str]) -> str:
    if move.seat == CHANCE:
        return f"{step.index:>4}  chance: {describe_move(before, CHANCE, move.action)}"
    line = f"{step.index:>4}  seat {move.seat} ({names[move.seat]}): "
    line += describe_move(before, move.seat, move.action)
    if move.status != MoveStatus.OK:
        detail = f": {printable(move.detail, DETAIL_SHOWN)}" if move.detail else ""
        line += f"  [{move.status}{detail}]"
    if move.wall_ms is not None:
        line += f"  {move.wall_ms:.0f} ms"
    if move.note:
        line += f"  # {printable(move.note, NOTE_LIMIT)}"
    return line


def _debug_lines(move: Move, width: int | None = DETAIL_SHOWN) -> list[str]:
    """A move's debug text under it, one escaped line per line."""
    if not move.debug:
        return []
    return [f"        debug| {text}" for text in printable_lines(move.debug, width)]


def thinking_line(move: Move, width: int | None = DETAIL_SHOWN) -> list[str]:
    """A move's thinking under it, in one line: each seat's value and the principal
    variation (the shares are listed with the legal actions, by ``--at``)."""
    t = move.thinking
    if t is None:
        return []
    parts = []
    if t.values:
        parts.append("values " + " ".join(f"{v:.3f}" for v in t.values))
    if t.pv:
        parts.append("pv " + " ".join(canonical_json(a) for a in t.pv))
    if t.shares:
        parts.append(f"shares over {len(t.shares)} actions, top {max(t.shares):.3f}")
    return [f"     thinking| {printable('; '.join(parts), width)}"]


def _check_seat(replay: Replay, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < replay.header.players:
        raise UsageError(f"--seat must be 0 to {replay.header.players - 1}")


def run_show(args: argparse.Namespace) -> int:
    replay = read_replay(args.file)
    _check_seat(replay, args.seat)
    out = sys.stdout
    h = replay.header
    names = [shown(s.bot, NAME_SHOWN) for s in h.seats]
    viewer = "the spectator" if args.seat is None else f"seat {args.seat}"
    print(f"{h.version}, {h.players} players, seed {h.seed}, as seen by {viewer}", file=out)
    if h.fork is not None:
        print(f"a fork: steps 0 to {h.fork.at - 1} are those of the replay with SHA-256 "
              f"{h.fork.replay_sha256} (seed {h.fork.seed})", file=out)
    try:
        if args.at is not None:
            return _show_step(replay, args.at, args.seat, names, out)
        last_to_move: tuple[int, ...] = ()
        for step, before, after in replays.states(replay):
            if before.to_move() != last_to_move and before.to_move() != (CHANCE,):
                print(f"\n{before.render(args.seat)}\n", file=out)
                last_to_move = before.to_move()
            for move in step.moves:
                print(_move_line(step, move, before, names), file=out)
                for text in [*_debug_lines(move), *thinking_line(move)]:
                    print(text, file=out)
            if after.is_over():
                print(f"\n{after.render(args.seat)}\n", file=out)
    except ReplayError as e:
        print(f"{printable(args.file)}: FAILED: {printable(str(e))}", file=out)
        return 1
    if replay.result is not None:
        r = replay.result
        for seat in sorted(range(h.players), key=lambda s: (r.places[s], s)):
            o = r.seats[seat]
            when = "start-up" if o.at is None else f"step {o.at}"
            detail = printable(o.detail, DETAIL_SHOWN)
            reason = printable(o.reason, NAME_SHOWN)
            went_out = o.status == SeatStatus.OUT
            out_note = f"  OUT ({reason} at {when}: {detail})" if went_out else ""
            print(f"  {r.places[seat] + 1}. seat {seat} {names[seat]:<24} "
                  f"score {r.scores[seat]:g}{out_note}", file=out)
            if went_out:  # why it died: its error, from the stderr kept
                for text in cause_lines(o.stderr_tail, SHOWN_LINES):
                    print(f"       | {printable(text, DETAIL_SHOWN)}", file=out)
    return 0


def _show_step(replay: Replay, at: int, seat: int | None, names: list[str], out: TextIO) -> int:
    if not 0 <= at < len(replay.steps):
        raise UsageError(f"no step {at}: the replay has steps 0 to {len(replay.steps) - 1}")
    step, before, _ = next(t for t in replays.states(replay) if t[0].index == at)
    print(f"\n{before.render(seat)}\n", file=out)
    print(f"observation: {canonical_json(before.observe(seat))}", file=out)
    for move in step.moves:
        if move.seat != CHANCE and (seat is None or seat == move.seat):
            legal = before.legal_actions(move.seat)
            shares = move.thinking.shares if move.thinking is not None else []
            print(f"seat {move.seat} chose among {len(legal)}:", file=out)
            for i, action in enumerate(legal):
                mark = "->" if action == move.action else "  "
                share = f"  {shares[i]:6.1%}" if shares else ""
                print(f"  {mark} {i:>3}{share}  {describe_move(before, move.seat, action)}",
                      file=out)
        print(_move_line(step, move, before, names), file=out)
        if move.debug:
            print(f"seat {move.seat} debug:", file=out)
            for text in _debug_lines(move, width=None):
                print(text, file=out)
        for text in thinking_line(move, width=None):
            print(text, file=out)
    return 0


def run_html(args: argparse.Namespace) -> int:
    replay = read_replay(args.file)
    try:
        write_html(replay, args.output)
    except ReplayFailed as e:
        print(f"{printable(args.file)}: FAILED: {printable(str(e))}")
        return 1
    print(f"{printable(str(args.output))}: the viewer for {len(replay.steps)} steps of "
          f"{replay.header.version}")
    return 0


class ReplayFailed(ReplayError):
    """A replay that reads but cannot be re-played step by step."""


def write_html(replay: Replay, path: Path) -> None:
    """The offline viewer of ``replay`` at ``path``; UsageError if the replay is too
    long for the viewer or ``path`` cannot be written, ReplayFailed if a step cannot
    be re-played."""
    if len(replay.steps) > MAX_VIEWER_STEPS:
        raise UsageError(f"the replay has {len(replay.steps)} steps; the viewer shows at most "
                         f"{MAX_VIEWER_STEPS}")
    try:
        page = offline_html(replay_payload(replay))
    except ReplayError as e:
        raise ReplayFailed(str(e)) from None
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {printable(str(path))}: {e.strerror or e}") from None


def error_lines(stderr: Sequence[str]) -> list[str]:
    """What a re-asked bot's stderr says about its failure: its last Python traceback
    whole (at most TRACEBACK_SHOWN lines, the end kept), else the lines that hold the
    error line, as under an OUT line."""
    starts = [i for i, line in enumerate(stderr) if line.startswith(TRACEBACK)]
    if not starts:
        return cause_lines(stderr, SHOWN_LINES)
    return [ln for ln in stderr[starts[-1]:] if ln.strip()][-TRACEBACK_SHOWN:]


def run_ask(args: argparse.Namespace) -> int:
    replay = read_replay(args.file)
    _check_seat(replay, args.seat)
    try:
        bot = BotSpec.parse(args.bot)
        result = ask_again_sync(replay, args.at, bot, seat=args.seat, sandbox=not args.no_sandbox)
    except (ValueError, SandboxUnavailable) as e:  # ReplayError is a ValueError
        raise UsageError(str(e)) from None
    q, rec = result.question, result.recorded
    print(f"step {q.decision}, seat {q.seat}, {len(q.legal_actions)} legal actions, "
          f"{q.time_left_ms} ms on the clock")
    spell: Callable[[Action], str] = canonical_json if args.json else result.describe
    recorded = printable(spell(rec.action))
    rec_note = f"  # {printable(rec.note, NOTE_LIMIT)}" if rec.note else ""
    print(f"recorded: {recorded}  [{rec.status}]{rec_note}")
    if result.failure is not None:
        print(f"now:      {result.failure.kind}: {printable(result.failure.detail, DETAIL_SHOWN)}")
        for text in error_lines(result.stderr_tail):
            print(f"        | {printable(text, DETAIL_SHOWN)}")
    else:
        assert result.reply is not None
        note = f"  # {printable(result.reply.note, NOTE_LIMIT)}" if result.reply.note else ""
        print(f"now:      {printable(spell(result.action))}{note}")
        if result.reply.debug:
            for text in printable_lines(result.reply.debug, DETAIL_SHOWN):
                print(f"        debug| {text}")
    print("same answer" if result.same else "different answer")
    asked = bot.manifest()
    sat = next((s for s in replay.header.seats if s.seat == q.seat), None)
    if sat is not None and sat.name != asked.name:
        print(f"note: step {q.decision} was answered by "
              f"{shown(f'{sat.name}@{sat.version}', NAME_SHOWN)}; you asked "
              f"{shown(f'{asked.name}@{asked.version}', NAME_SHOWN)}")
    return 0 if result.same else 1
