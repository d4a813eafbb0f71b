"""``niwa play GAME --bot BOT ...``: referee one match and narrate it."""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from niwa import engine
from niwa.bots.manifest import ManifestError
from niwa.bots.sdk import NOTE_LIMIT
from niwa.cli import UsageError
from niwa.commands.play_human import (
    DEFAULT_WEB,
    add_human_options,
    play_with_people,
    seat_people,
)
from niwa.commands.replay import read_replay, thinking_line, write_html
from niwa.engine import CHANCE, State, describe_move
from niwa.errors import CommandError
from niwa.referee import cgroups
from niwa.referee.clock import TimeControl
from niwa.referee.failures import MoveStatus, SeatStatus
from niwa.referee.logs import configure_cli_logging
from niwa.referee.match import (
    BotSpec,
    EndlessMatch,
    MatchOutcome,
    MatchSpec,
    StepObserver,
    load_game,
    play_match,
)
from niwa.referee.replay import Move, SeatOutcome, Step
from niwa.referee.sandbox import SandboxUnavailable
from niwa.referee.stderr_tail import SHOWN_LINES, cause_lines
from niwa.referee.text import printable, printable_lines
from niwa.series.games import FAIL_ON, FailureCounter, fails_run, out_says_it
from niwa.series.names import named, shown
from niwa.series.report import failure_text

if TYPE_CHECKING:
    from niwa.web.live_local import LocalPage

#: How much of a bot's name (``name@version``, and a path's end if two share it) or
#: a failure detail a narration line shows.
NAME_SHOWN = 80
DETAIL_SHOWN = 300
#: How wide a line of a bot's debug text is shown.
DEBUG_SHOWN = 300

EPILOG = """\
exit status:
  0  the match was played and no bot directory's seat went out (--fail-on out, the
     default) or failed a decision at all (--fail-on any)
  1  the match was played and a bot directory's seat went out (crashed, timed out,
     answered illegally or disconnected), or with --fail-on any failed a decision
     even once: the result lists each seat's failures by class, with the first
     detail, and an OUT seat's stderr
  2  a usage error (unknown game, bad bot directory, bad option, no sandbox)
"""
#: Shared with niwa match and niwa tournament.
FAIL_ON_HELP = (
    "when a bot directory (not a builtin:) makes the exit status 1: 'out' (the "
    "default) when a seat of it went out, by the referee's own rule (a crash, or "
    "--max-failures failures); 'any' when it failed a single decision (TIMEOUT, "
    "ILLEGAL, CRASHED, DISCONNECTED): the strict check for CI. The default is 'out' "
    "so that exit 1 keeps meaning what it always has: a failure the referee "
    "tolerated (a slow answer on a busy machine, say) is listed in the result but "
    "breaks no script that already runs this"
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="referee one match between bots and narrate it",
        description="Plays one match: each --bot takes the next seat. Bots run as\n"
        "sandboxed processes unless --in-process (built-in bots only) or --no-sandbox.\n"
        "With --human, a person plays a seat in the browser, at the URL printed.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help="a registered game, e.g. blossom")
    p.add_argument(
        "--bot",
        action="append",
        required=True,
        metavar="DIR_OR_BUILTIN",
        help="a bot directory (with bot.toml) or builtin:NAME; once per seat (but the "
        "--human one)",
    )
    add_human_options(p)
    p.add_argument("--seed", type=int, help="match seed (default: random, printed)")
    p.add_argument("--time", default="1s+30s", help="per-decision time + bank (default 1s+30s)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a game option (VALUE is JSON, or a bare word); repeatable")
    p.add_argument("--replay", type=Path, metavar="FILE", help="write the replay here")
    p.add_argument("--html", type=Path, metavar="FILE",
                   help="write the match as one self-contained HTML page (the replay "
                   "viewer, as niwa replay html writes it)")
    p.add_argument("--web", metavar="HOST:PORT",
                   help="serve the match at a printed URL (e.g. 127.0.0.1:8000; port 0: "
                   "any free one): live as a spectator sees it while it runs, then its "
                   "full replay, served until Ctrl-C (the exit status is the match's); "
                   "with --human, where the person's page is served instead (default "
                   f"{DEFAULT_WEB}: this machine only, a free port; the URL printed carries "
                   "a secret key for the seat)")
    p.add_argument("--log-dir", type=Path, help="keep each bot's stderr here")
    p.add_argument("--max-failures", type=int, default=3,
                   help="failed decisions that put a seat out (default 3)")
    p.add_argument("--fail-on", choices=FAIL_ON, default=str(SeatStatus.OUT), help=FAIL_ON_HELP)
    p.add_argument("--no-sandbox", action="store_true",
                   help="run bots as plain processes (trusted bots only)")
    p.add_argument("--in-process", action="store_true",
                   help="run built-in bots inside the referee (no process, no gRPC)")
    p.add_argument("--ponder", action="store_true",
                   help="let bots run between their turns (default: each bot is frozen "
                   "while it is not answering)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.add_argument("--debug", action="store_true",
                   help="print each move's debug text and thinking (what the bot attached to its "
                   "answer) under the move")
    p.set_defaults(run=run)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--option {pair!r}: write it as NAME=VALUE")
        try:
            options[name] = json.loads(text)
        except json.JSONDecodeError:
            options[name] = text
    return options


def build_spec(args: argparse.Namespace) -> MatchSpec:
    """The match the command line asks for; UsageError for anything wrong in it."""
    try:
        game = load_game(args.game)
    except engine.UnknownGame as e:
        raise UsageError(str(e).strip("'\"")) from None
    try:
        bots = named([BotSpec.parse(b) for b in args.bot])
        time_control = TimeControl.parse(args.time)
    except (ValueError, ManifestError) as e:
        raise UsageError(str(e)) from None
    options = parse_options(args.option)
    try:
        game.info.validate(len(bots), options)
    except engine.OptionError as e:
        raise UsageError(f"{e} (one --bot per seat)" if "players" in str(e) else str(e)) from None
    if args.in_process and not all(b.is_builtin for b in bots):
        raise UsageError("--in-process runs built-in bots only: drop it to sandbox bot directories")
    if args.max_failures < 1:
        raise UsageError("--max-failures must be at least 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    return MatchSpec(
        game=args.game,
        bots=bots,
        options=options,
        seed=seed,
        time_control=time_control,
        sandbox=not args.no_sandbox,
        replay_path=args.replay,
        log_dir=args.log_dir,
        in_process=args.in_process,
        max_failures=args.max_failures,
        ponder=args.ponder,
    )


def warn_isolation(spec: MatchSpec) -> None:
    """Say on stderr when bots run unsandboxed, or sandboxed without their limits."""
    if not spec.sandbox:
        print("warning: bots run WITHOUT a sandbox (--no-sandbox): only for bots you trust",
              file=sys.stderr)
    banner = limits_banner(spec)
    if banner:
        print(banner, file=sys.stderr, flush=True)


def limits_banner(spec: MatchSpec) -> str:
    """A loud warning when sandboxed bot processes would run without every cgroup
    limit; "" when they are all enforced (or no bot runs as a sandboxed process)."""
    if not spec.sandbox or all(b.is_builtin and spec.in_process for b in spec.bots):
        return ""
    problem = cgroups.probe(spec.limits)
    if not problem:
        return ""
    rule = "!" * 78
    return "\n".join([
        rule,
        "WARNING: the bots' limits are NOT enforced on this machine:",
        f"  {problem}.",
        "  Memory falls back to an address-space cap, processes to a shared RLIMIT_NPROC,",
        "  CPU time to /proc accounting, and bots are not frozen between their turns.",
        f"  Fix: {cgroups.FIX}.",
        rule,
    ])


class Narrator:
    """Prints the match as it goes: the public table at each new turn, every move."""

    def __init__(self, names: list[str], out: TextIO, debug: bool = False) -> None:
        self.names = names
        self.out = out
        self.debug = debug
        self.shown_start = False

    def __call__(self, step: Step, before: State, after: State) -> None:
        if not self.shown_start:
            self.table(before)
            self.shown_start = True
        for move in step.moves:
            who = "chance" if move.seat == CHANCE else f"seat {move.seat} ({self.names[move.seat]})"
            line = f"{step.index:>4}  {who}: {describe_move(before, move.seat, move.action)}"
            if move.seat != CHANCE and move.status != MoveStatus.OK:
                why = f"; {printable(move.detail, DETAIL_SHOWN)}" if move.detail else ""
                line += f"  [{move.status}: default move{why}]"
            if move.note:  # the bot's own words: escaped, so it cannot drive the terminal
                line += f"  # {printable(move.note, NOTE_LIMIT)}"
            print(line, file=self.out)
            if self.debug:
                for text in [*debug_lines(move), *thinking_line(move, DEBUG_SHOWN)]:
                    print(text, file=self.out)
        if after.to_move() != before.to_move() and after.to_move() != (CHANCE,):
            self.table(after)
        self.out.flush()

    def table(self, state: State) -> None:
        print("", file=self.out)
        print(state.render(None), file=self.out)
        print("", file=self.out)


def debug_lines(move: Move) -> list[str]:
    """A move's debug text, one escaped line per line, indented under the move."""
    if not move.debug:
        return []
    return [f"        debug| {text}" for text in printable_lines(move.debug, DEBUG_SHOWN)]


def print_result(
    outcome: MatchOutcome,
    names: list[str],
    out: TextIO,
    show_replay: bool = True,
    failures: FailureCounter | None = None,
) -> None:
    """The places, each seat's failures by class (count, and the first one's step and
    detail; the failure that put a seat out is on its OUT line) and an OUT seat's
    error from its stderr."""
    print("result:", file=out)
    order = sorted(range(len(names)), key=lambda s: (outcome.result.places[s], s))
    for seat in order:
        place = outcome.result.places[seat] + 1
        score = outcome.result.scores[seat]
        line = f"  {place}. seat {seat} {names[seat]:<24} score {score:g}"
        info = outcome.seats[seat]
        if info.status == SeatStatus.OUT:
            when = "start-up" if info.at is None else f"step {info.at}"
            line += f"  OUT ({info.reason} at {when}: {printable(info.detail, DETAIL_SHOWN)})"
        print(line, file=out)
        for text in failure_lines(failures, seat, info) if failures else []:
            print(f"       {text}", file=out)
        if info.status == SeatStatus.OUT:  # why it died, in plain sight: its error from stderr
            for text in cause_lines(info.stderr_tail, SHOWN_LINES):
                print(f"       | {printable(text, DETAIL_SHOWN)}", file=out)
    print(
        f"{outcome.decisions} decisions in {outcome.wall_s:.2f} s, match {outcome.match_id}",
        file=out,
    )
    if outcome.replay_path is not None and show_replay:
        print(f"replay: {outcome.replay_path}", file=out)


def failure_lines(failures: FailureCounter, seat: int, info: SeatOutcome) -> list[str]:
    """A seat's failures by class, but the one its OUT line already says."""
    lines = []
    for kind, n in failures.counts[seat].items():
        first = failures.first[seat][kind]
        if not out_says_it(kind, n, first, info):
            lines.append(failure_text(kind, n, first.at, first.detail))
    return lines


def run(args: argparse.Namespace) -> int:
    configure_cli_logging()
    if args.human is not None:
        seat_people(args)
    if (args.html is not None or args.web) and args.replay is None:  # pages read a replay
        with tempfile.TemporaryDirectory(prefix="niwa-play-") as tmp:
            return _play(args, Path(tmp) / "match.jsonl", keep_replay=False)
    return _play(args, args.replay, keep_replay=True)


def _play(args: argparse.Namespace, replay: Path | None, keep_replay: bool) -> int:
    args.replay = replay
    out = sys.stdout
    spec = build_spec(args)
    names = [shown(b.label or str(b), NAME_SHOWN) for b in spec.bots]
    narrator = None if args.quiet else Narrator(names, out, debug=args.debug)
    failures = FailureCounter(spec.players)
    spec = replace(spec, on_step=both(narrator, failures))
    print(
        f"{args.game}: {spec.players} players, seed {spec.seed}, time {spec.time_control}"
        f"{'' if spec.sandbox or spec.in_process else ' (NOT sandboxed)'}",
        file=out,
    )
    warn_isolation(spec)
    # With a person at the table, --web is where their seat's page is served instead.
    page = None if args.human is not None else web_page(
        args.web, replay, f"{args.game}: {' vs '.join(names)}", out
    )
    status: int | None = None  # set once the match has a result
    try:
        try:
            outcome = play_match(spec) if args.human is None else play_with_people(spec, args, out)
        except (ValueError, SandboxUnavailable) as e:  # e.g. a bot.toml without this game
            raise UsageError(str(e)) from None
        except EndlessMatch as e:  # no result to show (a replay kept so far has no result)
            raise CommandError(str(e)) from None
        failures.settle(outcome.seats)
        status = 1 if any(
            fails_run(s.status, counts, bot.is_builtin or bot.is_human, args.fail_on)
            for s, counts, bot in zip(outcome.seats, failures.counts, spec.bots, strict=True)
        ) else 0  # fmt: skip
        print_result(outcome, names, out, show_replay=keep_replay, failures=failures)
        if args.html is not None and replay is not None:
            write_html(read_replay(str(replay)), args.html)
            print(f"viewer: {printable(str(args.html))}", file=out)
        if page is not None:
            print(f"replay: {page.url} (served until Ctrl-C)", file=out, flush=True)
            page.close(wait=True)
    except KeyboardInterrupt:
        # Ctrl-C once the match has its result stops the replay's serving, whenever it
        # comes (even before the serving began); during the match it stops the match
        if page is None or status is None:
            raise
    finally:
        if page is not None:  # its server thread would keep the process alive
            page.close(wait=False)
    return status


def web_page(listen: str | None, replay: Path | None, title: str, out: TextIO) -> LocalPage | None:
    """With ``--web``: the match's page, served from now on; its URL printed."""
    if not listen or replay is None:
        return None
    from niwa.web.live_local import LocalPage  # the web stack only when asked for

    try:
        page = LocalPage(replay, title, listen)
    except (OSError, ValueError) as e:
        raise UsageError(f"--web {listen}: {e}") from None
    print(f"live: {page.url}", file=out, flush=True)
    return page


def both(first: StepObserver | None, second: StepObserver) -> StepObserver:
    """One step observer calling two (the first may be None)."""
    if first is None:
        return second

    def each(step: Step, before: State, after: State) -> None:
        first(step, before, after)
        second(step, before, after)

    return each
