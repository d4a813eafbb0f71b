"""niwa ladder: serve a ladder, submit bots, read leaderboards, matches and replays.

Reading commands talk to a server (--server, default localhost:50051) or, given --db,
read the store directly. "user add", "drain" and "migrate" work on the store (run them
where the database is reachable); "demo" runs a whole ladder of the built-in bots
locally. See docs/ladder.md and docs/deploy.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import structlog

from niwa import config, engine
from niwa.bots.manifest import ManifestError
from niwa.bots.manifest import load as load_manifest
from niwa.bots.manifest import parse as parse_manifest
from niwa.cli import UsageError
from niwa.commands import ladder_ops
from niwa.ladder import (
    app,
    archive,
    challenges,
    client,
    demo,
    executors,
    logs,
    report,
    sparring,
    submission,
    suspension,
    tails,
)
from niwa.ladder.admission import ApiLimits
from niwa.ladder.client import CallFailed, LadderClient
from niwa.ladder.db import UNAVAILABLE, DatabaseError
from niwa.ladder.health import StoreCheck
from niwa.ladder.inputs import MAX_ID, parse_number
from niwa.ladder.lease import node_name
from niwa.ladder.reads import Reads
from niwa.ladder.runner import Settings
from niwa.ladder.secret_file import SecretFileError, read_secret, write_secret
from niwa.ladder.statuses import BotStatus, MatchState
from niwa.ladder.store import PENDING, Store, StoreError
from niwa.ladder.store.ratings import RATINGS
from niwa.ladder.views import LadderBot, MatchQuery
from niwa.referee.cgroups import LimitsUnavailable
from niwa.referee.text import printable
from niwa.web import server as web_server
from niwa.web.replay_view import MAX_STEPS
from niwa.web.signin import SigninLimits

DEFAULT_DB = "niwa-data/ladder.db"
DEFAULT_SERVER = "localhost:50051"
DEFAULT_LISTEN = "127.0.0.1:50051"
DEFAULT_WEB = "127.0.0.1:8080"
#: The commands that keep running, and so take --config FILE (niwa/config.py).
SERVERS = ("serve", "web", "demo")
#: The port suggested for ``--http`` (Prometheus exporters' customary range).
DEFAULT_HTTP = "127.0.0.1:9464"

T = TypeVar("T")


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "ladder",
        help="run a ladder: rate bots by playing them against each other",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="ladder_command", metavar="ACTION", required=True)

    p = commands.add_parser("serve", help="serve the API and keep matches running")
    _store_args(p, default_db=DEFAULT_DB)
    p.add_argument("--listen", default=DEFAULT_LISTEN, help="host:port (port 0: any free port)")
    p.add_argument("--workers", type=int, default=0, help="worker processes (default: 1 per core)")
    p.add_argument("--concurrency", type=int, default=0, help="matches at once (default: workers)")
    p.add_argument("--matches", type=int, help="stop playing after this many rated matches")
    p.add_argument("--duplicate", action="store_true", help="each seed under every seat rotation")
    p.add_argument("--time", default="1s+30s", help="time control per decision + bank")
    p.add_argument("--seed", type=int, help="seed for pairings and match seeds")
    p.add_argument("--game", action="append", help="play only this game (repeatable)")
    p.add_argument("--tls-cert", type=Path, help="PEM certificate chain (enables TLS)")
    p.add_argument("--tls-key", type=Path, help="PEM private key for --tls-cert")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"],
                   help="least important log events shown (default info)")
    p.add_argument("--log-file", type=Path, metavar="FILE",
                   help="append the log events (JSON lines) to FILE and show only warnings "
                   "and errors on stderr (default: every event on stderr)")
    p.add_argument("--sparring", metavar="SPECS",
                   help="built-in bots rated in every game as opponents of the submitted "
                   "ones (every match they play seats a submitted bot), e.g. "
                   "builtin:greedy,builtin:mcts ('none': no more); kept in the store, so "
                   "later starts keep it (default: as kept, none at first)")
    p.add_argument("--quota-mb", type=int, metavar="MB",
                   help="archives one owner may keep, in MiB (kept in the store; default "
                   f"{submission.DEFAULT_QUOTA.archive_bytes >> 20})")
    p.add_argument("--quota-versions", type=int, metavar="N",
                   help="bot versions one owner may keep (kept in the store; default "
                   f"{submission.DEFAULT_QUOTA.versions})")
    p.add_argument("--stderr-days", type=int, metavar="N",
                   help="keep each seat's stderr tail (for its owner) N days (kept in the "
                   f"store; default {tails.DEFAULT_DAYS})")
    p.add_argument("--suspend-after", type=int, metavar="N",
                   help="suspend a bot after N rated matches in a row that it went out of "
                   f"(0: never; kept in the store; default {suspension.DEFAULT})")
    p.add_argument("--rating", choices=RATINGS,
                   help="the leaderboard's rating model: plackett-luce (whole finishing "
                   "orders, with seat effects and ties) or pairwise (Bradley-Terry on each "
                   "match's pairs); kept in the store (default: as kept, plackett-luce at "
                   "first; docs/ladder.md, 'Ratings')")
    p.add_argument("--challenges", choices=challenges.CHOICES, metavar="RATED",
                   help="whether a person's challenge of a bot on the web pages is rated "
                   "(the person plays as the game's human row on the leaderboard) or "
                   "unrated; kept in the store (default: as kept, unrated at first)")
    p.add_argument("--max-challenges", type=int, default=challenges.MAX_CHALLENGES, metavar="N",
                   help="challenges played at once on the --web pages (0: none; default "
                   f"{challenges.MAX_CHALLENGES}; one per owner)")
    p.add_argument("--max-streams", type=int, default=ApiLimits.streams,
                   help=f"anonymous watchers at once (default {ApiLimits.streams})")
    p.add_argument("--max-streams-per-address", type=int, default=ApiLimits.streams_per_peer,
                   help=f"... from one address (default {ApiLimits.streams_per_peer}; raise it "
                   "behind a proxy, where all clients share its address)")
    p.add_argument("--lease", type=float, default=Settings.lease_s, metavar="SECONDS",
                   help="runners sharing a store: the leader's lease; a standby takes over "
                   f"within about 1.25x this after the leader died (default {Settings.lease_s:g})")
    p.add_argument("--executor", choices=executors.KINDS, default=executors.LOCAL,
                   help="where matches run: local worker processes (default), or a Ray "
                   "cluster, one task per match (pip install 'niwa[ray]')")
    p.add_argument("--ray-address", default="", metavar="ADDRESS",
                   help="with --executor ray: the cluster's head, host:port (default: the "
                   "cluster this machine is part of, or RAY_ADDRESS)")
    p.add_argument("--node", default="",
                   help="this node's name in the logs and the lease (default host:pid:random)")
    _web_arg(p)
    _operations_args(p, runner=True)
    p.set_defaults(run=_errors_as_events(_serve))

    p = commands.add_parser(
        "web", help="serve the web pages of a store beside a running ladder (owners may sign in)"
    )
    _store_args(p, default_db=DEFAULT_DB)
    p.add_argument("--listen", default=DEFAULT_WEB,
                   help=f"host:port (default {DEFAULT_WEB}; port 0: any free port)")
    _live_delay_arg(p)
    _signin_args(p)
    _operations_args(p, runner=False)
    p.set_defaults(run=_errors_as_events(_web))

    p = commands.add_parser("submit", help="submit a bot folder or archive (owner token)")
    p.add_argument("path", type=Path, help="a bot folder (with bot.toml) or a .tar/.tar.gz")
    _server_args(p, token=True)
    p.add_argument("--no-wait", action="store_true", help="do not wait for the validation match")
    p.add_argument("--wait-timeout", type=float, default=300.0, help="seconds (default 300)")
    p.set_defaults(run=_submit)

    p = commands.add_parser("retire", help="take a bot off the ladder (its owner's token)")
    p.add_argument("bot_id", type=_number("bot id", MAX_ID), help="the bot's id (niwa ladder bots)")
    _server_args(p, token=True)
    p.set_defaults(run=_retire)

    p = commands.add_parser("leaderboard", help="Elo ± 95%% interval, games and wins per game")
    p.add_argument("game", nargs="?", default="", help="one game (default: all)")
    p.add_argument("--season", default="", metavar="NAME",
                   help="an ended season's standings, frozen at its end (default: the "
                   "current season; niwa ladder season list)")
    _json_arg(p)
    _read_args(p, token=True)
    p.set_defaults(run=_leaderboard)

    p = commands.add_parser(
        "bots", help="list bots (--all: also pending, rejected, suspended, retired)"
    )
    p.add_argument("--game", default="", help="only this game's bots (default: every game)")
    p.add_argument("--all", action="store_true",
                   help="also pending, rejected, suspended, retired, superseded and "
                   "reserve bots")
    _json_arg(p)
    _read_args(p, token=True)
    p.set_defaults(run=_bots)

    p = commands.add_parser("matches", help="list matches, newest first")
    p.add_argument("--game", default="", help="only this game's matches")
    p.add_argument("--bot", default="", metavar="BOT",
                   help="only this bot's matches: an id, a name (any version) or name@version")
    p.add_argument("--state", default="", choices=["", *MatchState],
                   help="only matches in this state")
    p.add_argument("--limit", type=_number("--limit", 2**31 - 1), default=20,
                   help="at most 200 (default 20)")
    p.add_argument("--before", type=_number("--before", MAX_ID), default=0,
                   help="only matches older than this id")
    _json_arg(p)
    _read_args(p, token=True)
    p.set_defaults(run=_matches)

    p = commands.add_parser(
        "logs", help="the last lines a bot wrote on stderr in a match (its owner's token)"
    )
    p.add_argument("match_id", type=_number("match", MAX_ID), metavar="MATCH", help="the match id")
    p.add_argument("--bot", required=True, metavar="BOT",
                   help="the bot: its name, name@version or id")
    _read_args(p, token=True)
    p.set_defaults(run=_logs)

    p = commands.add_parser("watch", help="print matches as they finish (Ctrl-C to stop)")
    p.add_argument("--game", default="", help="only this game's matches")
    p.add_argument("--after", type=_number("--after", MAX_ID), default=0,
                   help="resume after this finish number")
    _server_args(p)
    p.set_defaults(run=_watch)

    p = commands.add_parser(
        "replay", help="fetch a match's replay, checked against its recorded SHA-256"
    )
    p.add_argument("match_id", type=_number("match", MAX_ID), help="the match id")
    p.add_argument("-o", "--output", type=Path, help="write to FILE (default: stdout)")
    _read_args(p, token=True)  # an owner's token: its bots' debug text and notes whole
    p.set_defaults(run=_replay)

    p = commands.add_parser("user", help="manage owners")
    users = p.add_subparsers(dest="user_command", metavar="ACTION", required=True)
    p = users.add_parser("add", help="create an owner and print its API token (once)")
    p.add_argument("name", help="the owner's name: 1-32 lowercase letters, digits, - and _")
    p.add_argument("--admin", action="store_true", help="may do administrative calls")
    p.add_argument("--token-file", type=Path, metavar="FILE",
                   help="write the token to FILE, a new file of mode 0600, instead of "
                   "printing it (for the first admin of a ladder run as a service)")
    _store_args(p, default_db=DEFAULT_DB)
    p.set_defaults(run=_user_add)
    ladder_ops.register(commands)  # drain, migrate
    from niwa.commands import (  # they use this module's helpers
        ladder_balance,
        ladder_fork,
        ladder_league,
        ladder_season,
    )

    ladder_season.register(commands)
    ladder_league.register(commands)
    ladder_fork.register(commands)
    ladder_balance.register(commands)

    p = commands.add_parser(
        "demo", help="a ladder of the built-in bots in every game",
        description="Play a ladder of the built-in bots in every game and print the "
        "leaderboards; --serve --web serves the pages at once while it plays. The console "
        "shows a progress line and warnings; the log events go to DATA/demo.log "
        "(--verbose: to stderr).",
    )  # fmt: skip
    p.add_argument("--data", type=Path, default=Path("niwa-data"), help="default ./niwa-data")
    p.add_argument(
        "--matches", type=int, default=demo.DEFAULT_MATCHES_PER_GAME,
        help=f"matches per game (default {demo.DEFAULT_MATCHES_PER_GAME})",
    )
    p.add_argument("--workers", type=int, default=0, help="worker processes (default: 1 per core)")
    p.add_argument("--seed", type=int, help="seed for pairings and match seeds")
    p.add_argument("--serve", action="store_true",
                   help="serve the API at once and keep playing after the demo's matches, "
                   "submitted bots too (Ctrl-C stops)")
    p.add_argument("--verbose", action="store_true",
                   help="the log events on stderr, instead of in DATA/demo.log")
    p.add_argument("--listen", default=DEFAULT_LISTEN,
                   help=f"host:port for --serve (default {DEFAULT_LISTEN})")
    _web_arg(p)
    p.set_defaults(run=_demo)

    for server in SERVERS:  # the long-running ones: their flags are a config file's keys
        config.add_option(commands.choices[server])


def _operations_args(p: argparse.ArgumentParser, runner: bool) -> None:
    """Health, metrics and machine-readable logs (docs/operations.md)."""
    p.add_argument("--log-format", choices=logs.FORMATS, default="auto",
                   help="log events on stderr as JSON lines or readable lines (default "
                   "auto: JSON unless stderr is a terminal)")
    if runner:
        p.add_argument("--http", metavar="HOST:PORT",
                       help="serve /healthz, /readyz and /metrics there, e.g. "
                       f"{DEFAULT_HTTP} (default: off; port 0: any free port)")
    else:  # the runner has these already
        p.add_argument("--log-level", default="info",
                       choices=["debug", "info", "warning", "error"],
                       help="least important log events shown (default info)")
        p.add_argument("--node", default="",
                       help="this node's name in the logs (default host:pid:random)")


def _errors_as_events(
    run: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """With ``--log-format json`` named, a server's error (a store it cannot open, a
    port taken) is one JSON event on stderr too, exit status 2, not a plain line."""

    def serve(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except UsageError as e:
            if args.log_format != "json":
                raise
            structlog.get_logger("niwa.ladder").error("cannot_serve", error=str(e))
            return 2

    return serve


def _web_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web", metavar="HOST:PORT",
                   help="also serve the web pages (leaderboards, bots, matches, replays) "
                   "there, e.g. 127.0.0.1:8080 (port 0: any free port)")
    _live_delay_arg(p)
    _signin_args(p)


def _signin_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--session-hours", type=float, default=SigninLimits.session_s / 3600,
                   metavar="HOURS",
                   help="an owner signed in on the pages stays signed in this long "
                   f"(default {SigninLimits.session_s / 3600:g})")
    p.add_argument("--secure-cookies", action="store_true",
                   help="mark the sign-in cookie Secure although the pages are served on "
                   "plain HTTP (a proxy in front serves them over HTTPS)")
    p.add_argument("--no-signin", action="store_true",
                   help="serve the pages anonymous and read-only: no sign-in, no uploads "
                   "(enough for a database role with SELECT rights only)")


def _signin_limits(args: argparse.Namespace) -> SigninLimits | None:
    """The pages' sign-in bounds; None: no sign-in (``--no-signin``)."""
    if not 0 < args.session_hours <= 24 * 30:
        raise UsageError("--session-hours must be more than 0 and at most 720 (30 days)")
    if args.no_signin:
        return None
    return SigninLimits(session_s=args.session_hours * 3600, secure=args.secure_cookies)


def _live_delay_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--live-delay", type=_number("--live-delay", MAX_STEPS), default=0,
                   metavar="STEPS",
                   help="watchers of a running match see it this many steps behind "
                   "(default 0: as it is played; the spectator's view only, either way)")


def _store_args(p: argparse.ArgumentParser, default_db: str | None) -> None:
    p.add_argument(
        "--db",
        default=default_db,
        help=f"SQLite file or postgresql:// URL (default: {default_db})" if default_db
        else "read this store (SQLite file or postgresql:// URL) instead of a server",
    )
    p.add_argument("--data", type=Path, help="folder for replays and bots (default: beside --db)")
    ladder_ops.password_file_arg(p)


def _server_args(p: argparse.ArgumentParser, token: bool = False) -> None:
    p.add_argument("--server", default=os.environ.get("NIWA_SERVER", DEFAULT_SERVER),
                   help=f"host:port of the ladder (default $NIWA_SERVER or {DEFAULT_SERVER})")
    p.add_argument("--tls-ca", type=Path, help="PEM root certificate: connect with TLS")
    if token:
        p.add_argument("--token", default=os.environ.get("NIWA_TOKEN"),
                       help="your API token (default: $NIWA_TOKEN; --token-file keeps it "
                       "out of the process list)")
        p.add_argument("--token-file", type=Path, metavar="FILE",
                       help="read your API token from FILE (mode 0600), e.g. the one "
                       "niwa ladder user add --token-file wrote")


def _read_args(p: argparse.ArgumentParser, token: bool = False) -> None:
    _server_args(p, token)
    _store_args(p, default_db=None)


def _number(what: str, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from 0 to ``high`` in ASCII digits, so what the
    ladder is asked fits its message's field (``niwa.ladder.inputs``)."""

    def parse(text: str) -> int:
        try:
            return parse_number(what, text, 0, high)
        except StoreError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return parse


def _json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true",
                   help="print JSON (one object; its shape is in docs/ladder.md)")


def _check_game(name: str) -> None:
    """An unknown game is a usage error here, as in niwa play (exit 2, one line)."""
    if name and name not in engine.games():
        raise UsageError(
            f"unknown game {name[:64]!r}; registered games: {', '.join(engine.games())}"
        )


def _db(args: argparse.Namespace) -> str:
    """--db, naming --password-file when given (only the file's path is in the URL)."""
    return ladder_ops.db_url(args)


def _token(args: argparse.Namespace) -> str | None:
    """The owner's token: --token-file, else --token (or $NIWA_TOKEN)."""
    path: Path | None = getattr(args, "token_file", None)
    if path is None:
        return getattr(args, "token", None)
    try:
        return read_secret(path, "token")
    except SecretFileError as e:
        raise UsageError(str(e)) from None


def _open_store(args: argparse.Namespace, create: bool = True) -> Store:
    try:
        return Store.open(_db(args), args.data, create=create)
    except DatabaseError as e:
        raise UsageError(str(e)) from None


def _read(args: argparse.Namespace, read: Callable[[Reads | LadderClient], T]) -> T:
    """A read: from the store with --db, else from the server (the same answer types)."""
    if args.db:
        store = _open_store(args, create=False)
        try:
            return read(Reads(store, trusted=True))  # whoever has the store has its files
        except StoreError as e:
            raise UsageError(str(e)) from None
        except FileNotFoundError as e:
            raise UsageError(f"file missing: {e.filename}") from None
        finally:
            store.close()
    return _remote(args, read, _token(args))


def _remote(
    args: argparse.Namespace, call: Callable[[LadderClient], T], token: str | None = None
) -> T:
    try:
        with LadderClient(args.server, args.tls_ca, token) as ladder:
            return call(ladder)
    except CallFailed as e:
        if e.unavailable and UNAVAILABLE not in e.details:  # not its store: no ladder at all
            raise UsageError(
                f"no ladder answers at {args.server}: start one (niwa ladder serve) "
                "or pass --server, or read a store with --db"
            ) from None
        raise UsageError(str(e)) from None


def _serve(args: argparse.Namespace) -> int:
    node = args.node or node_name()
    logs.configure_server(args.log_level, args.log_format, args.log_file, node)
    settings = Settings(
        db_url=_db(args),
        data_dir=args.data,
        workers=args.workers,
        concurrency=args.concurrency,
        max_matches=args.matches,
        duplicate=args.duplicate,
        time_control=args.time,
        seed=args.seed,
        log_level=args.log_level,
        log_file=args.log_file,
        games=tuple(args.game or ()),
        sparring=_sparring(args.sparring),
        lease_s=args.lease,
        node=node,
        executor=args.executor,
        ray_address=args.ray_address,
    )
    if args.ray_address and args.executor != executors.RAY:
        raise UsageError("--ray-address goes with --executor ray")
    if args.executor == executors.RAY and importlib.util.find_spec("ray") is None:
        raise UsageError("--executor ray needs Ray: pip install 'niwa[ray]'")
    if args.lease <= 0:
        raise UsageError("--lease must be more than 0 seconds")
    unknown = sorted(set(settings.games) - set(engine.games()))
    if unknown:
        raise UsageError(f"no game {unknown[0]!r}; registered games: {', '.join(engine.games())}")
    if args.max_streams < 0 or args.max_streams_per_address < 0:
        raise UsageError("--max-streams and --max-streams-per-address must be at least 0")
    if args.max_challenges < 0:
        raise UsageError("--max-challenges must be at least 0 (0: no challenges)")
    store = _open_store(args)  # create and migrate, or fail with one line
    try:
        quota_bytes = None if args.quota_mb is None else args.quota_mb << 20
        submission.set_quota(store, quota_bytes, args.quota_versions)
        if args.stderr_days is not None:
            tails.set_days(store, args.stderr_days)
        if args.suspend_after is not None:
            suspension.set_after(store, args.suspend_after)
        if args.challenges is not None:
            challenges.set_rated(store, args.challenges == challenges.RATED_CHOICE)
        if args.rating is not None:
            store.ratings.set_rating(args.rating)
    except ValueError as e:
        raise UsageError(str(e)) from None
    finally:
        store.close()
    try:
        limits = ApiLimits(streams=args.max_streams, streams_per_peer=args.max_streams_per_address)
        return app.serve(
            settings, args.listen, args.tls_cert, args.tls_key, limits=limits,
            beside=_web_beside(settings, args.web, args.live_delay, _signin_limits(args),
                               args.max_challenges),
            http=args.http,
        )  # fmt: skip
    except (OSError, ValueError, LimitsUnavailable, DatabaseError) as e:
        raise UsageError(str(e)) from None


def _web_beside(
    settings: Settings, listen: str | None, live_delay: int, signin: SigninLimits | None,
    max_challenges: int = challenges.MAX_CHALLENGES,
) -> app.Beside | None:
    """The web pages beside the API, on their own read-only connection to the store
    (and one that may write, for owners' sessions and uploads, and the challenges this
    process plays: at most ``max_challenges`` at once, none if 0)."""
    if not listen:
        return None

    def start(stop: threading.Event) -> Callable[[], None]:
        store = web_server.open_read_only(settings.db_url, settings.data_dir)
        writer = None
        try:
            if signin is not None:
                writer = web_server.open_writer(settings.db_url, settings.data_dir)
            # the API's health follows the store in this process and logs its changes
            check = StoreCheck(settings.db_url, announce=False)
            played = None
            if max_challenges and writer is not None:  # challenges write: not with --no-signin
                played = challenges.Challenges(writer, settings.time_control, max_challenges)
            address, thread = web_server.start(
                store, listen, stop, settings.game_names(), check=check, live_delay=live_delay,
                writer=writer, signin_limits=signin, challenges=played,
            )  # fmt: skip
        except BaseException:
            store.close()
            if writer is not None:
                writer.close()
            raise
        print(f"web on {address}", flush=True)

        def wait() -> None:
            thread.join()
            store.close()
            if writer is not None:
                writer.close()

        return wait

    return start


def _web(args: argparse.Namespace) -> int:
    """Only the web pages, over a store another process (the ladder) writes."""
    logs.configure_server(args.log_level, args.log_format, node=args.node or node_name())
    limits = _signin_limits(args)
    try:
        store = web_server.open_read_only(_db(args), args.data)
    except DatabaseError as e:
        raise UsageError(str(e)) from None
    try:
        writer = None if limits is None else web_server.open_writer(_db(args), args.data)
    except DatabaseError as e:
        store.close()
        raise UsageError(str(e)) from None
    stop = threading.Event()
    handlers = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        address, thread = web_server.start(
            store, args.listen, stop, check=StoreCheck(_db(args)), live_delay=args.live_delay,
            writer=writer, signin_limits=limits,
        )  # fmt: skip
        print(f"web on {address}", flush=True)
        while thread.is_alive() and not stop.wait(0.5):
            pass
        stop.set()
        thread.join()
    except OSError as e:
        raise UsageError(str(e)) from None
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        store.close()
        if writer is not None:
            writer.close()
    return 0


def _sparring(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    try:
        return sparring.parse(text)
    except sparring.SparringError as e:
        raise UsageError(str(e)) from None


def _submit(args: argparse.Namespace) -> int:
    token = _token(args)
    if not token:
        raise UsageError(
            "submitting needs your token: pass --token-file (or --token, or set NIWA_TOKEN)"
        )
    path: Path = args.path
    try:
        if path.is_dir():
            load_manifest(path)  # the same check the server makes, before any upload
            data = archive.pack_directory(path)
        elif path.is_file():
            if path.stat().st_size > archive.DEFAULT_LIMITS.archive_bytes:
                raise UsageError(
                    f"{path} is over the ladder's limit of "
                    f"{archive.DEFAULT_LIMITS.archive_bytes} bytes"
                )
            data = path.read_bytes()
            # The server's checks, on our own archive: refuse early with the same words.
            parse_manifest(archive.scan(data).manifest, f"{path}: bot.toml")
        else:
            raise UsageError(f"{path} does not exist: give a bot folder or archive")
    except (archive.ArchiveError, ManifestError) as e:
        raise UsageError(str(e)) from None
    submitted = _remote(args, lambda ladder: ladder.submit(data), token)
    for bot in submitted:
        print(f"submitted {_label(bot)} for {printable(bot.game, 60)} as bot {bot.id}")
    if args.no_wait:
        return 0
    return _await_validation(args, [b.id for b in submitted])


def _await_validation(args: argparse.Namespace, ids: list[int]) -> int:
    deadline = time.monotonic() + args.wait_timeout
    waiting = set(ids)
    print("waiting for the validation match against builtin:random ...", file=sys.stderr)
    failed = False
    while waiting:
        listing = _remote(args, lambda ladder: ladder.list_bots(everyone=True), _token(args))
        for bot in listing.bots:
            if bot.id in waiting and bot.status != PENDING:
                waiting.discard(bot.id)
                verdict = (
                    "accepted" if bot.status == BotStatus.ACTIVE
                    else printable(f"{bot.status}: {bot.reason}", report.REASON_SHOWN)
                )
                print(f"bot {bot.id} ({_label(bot)}, {printable(bot.game, 60)}): {verdict}")
                for line in report.stderr_lines(bot.stderr_tail, "    "):
                    print(line)
                failed |= bot.status != BotStatus.ACTIVE
        if waiting and time.monotonic() > deadline:
            raise UsageError(
                f"no verdict yet for bot(s) {sorted(waiting)}: is the ladder playing? "
                "check later with niwa ladder bots --all"
            )
        if waiting:
            time.sleep(0.5)
    return 1 if failed else 0


def _label(bot: LadderBot) -> str:
    """``name@version`` of a bot the server described, safe to print."""
    return printable(f"{bot.name}@{bot.version}", report.NAME_SHOWN)


def _retire(args: argparse.Namespace) -> int:
    bot = _remote(args, lambda ladder: ladder.retire(args.bot_id), _token(args))
    print(f"bot {bot.id} ({_label(bot)}) is {printable(bot.status, 60)}")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    _check_game(args.game)
    boards = _read(args, lambda ladder: ladder.leaderboards(args.game, args.season))
    if args.json:
        report.print_json(report.leaderboard_json(boards))
    elif not boards:
        print("no games with bots yet")
    else:
        print("\n\n".join(report.leaderboard(b) for b in boards))
    return 0


def _bots(args: argparse.Namespace) -> int:
    _check_game(args.game)
    reply = _read(args, lambda ladder: ladder.list_bots(args.game, args.all))
    if args.json:
        report.print_json(report.bots_json(reply))
    else:
        print(report.bots(reply))
    return 0


def _matches(args: argparse.Namespace) -> int:
    _check_game(args.game)
    # An id goes as text too: the ladder parses it (niwa.ladder.inputs), and a malformed or
    # huge one is refused there with the rest, never overflows the message's int64.
    query = MatchQuery(
        game=args.game, bot=args.bot, state=args.state, limit=args.limit,
        before_id=args.before,
    )  # fmt: skip
    reply = _read(args, lambda ladder: ladder.list_matches(query))
    if args.json:
        report.print_json(report.matches_json(reply))
    else:
        print(report.matches(reply, details=True))
    return 0


def _logs(args: argparse.Namespace) -> int:
    reply = _read(args, lambda ladder: ladder.bot_logs(args.match_id, args.bot))
    print(report.bot_logs(reply))
    return 0


def _watch(args: argparse.Namespace) -> int:
    _check_game(args.game)
    try:
        with LadderClient(args.server, args.tls_ca) as ladder:
            for match in ladder.watch(args.game, args.after):
                print(report.matches([match]).splitlines()[1])
                sys.stdout.flush()
    except CallFailed as e:
        if e.unavailable and UNAVAILABLE not in e.details:  # not its store: no ladder at all
            raise UsageError(f"no ladder answers at {args.server}: pass --server") from None
        raise UsageError(str(e)) from None
    return 0


def _replay(args: argparse.Namespace) -> int:
    reply = _read(args, lambda ladder: ladder.replay(args.match_id))
    try:
        content = client.checked_replay(reply, args.match_id)
    except client.ReplayMismatch as e:
        raise UsageError(str(e)) from None
    if args.output:
        args.output.write_bytes(content)
        got = (
            f"SHA-256 {reply.sha256} as recorded by the ladder" if not reply.redacted
            else f"SHA-256 {reply.sha256}, the public copy: the debug text and notes of bots "
            "that are not yours are cut (your token shows your own)"
        )
        print(
            f"wrote {args.output}, {got} (check the game in it: niwa replay verify "
            f"{args.output})",
            file=sys.stderr,
        )
    elif sys.stdout.isatty():
        # Replays keep notes as bots wrote them: escape them for a terminal, keep the
        # exact bytes for a pipe or a file (which is what verify and ask read).
        text = content.decode("utf-8", "replace")
        for line in text.removesuffix("\n").split("\n"):  # not splitlines: it splits at \r
            print(printable(line))
    else:
        sys.stdout.buffer.write(content)
    return 0


def _user_add(args: argparse.Namespace) -> int:
    if args.token_file and args.token_file.exists():  # before the owner is made
        raise UsageError(f"{args.token_file} exists already: give a new file name")
    store = _open_store(args)
    try:
        owner, token = store.owners.add_owner(args.name, admin=args.admin)
    except StoreError as e:
        raise UsageError(str(e)) from None
    finally:
        store.close()
    role = "admin" if owner.is_admin else "owner"
    if args.token_file:
        try:
            write_secret(args.token_file, token)
        except SecretFileError as e:
            raise UsageError(f"{e}; the {role} was made: its token is lost, "
                             "add another owner") from None
        print(f"created {role} {printable(owner.name, 60)}; API token written to "
              f"{args.token_file} (mode 0600)")
        return 0
    print(f"created {role} {printable(owner.name, 60)}; API token (shown only now, keep it safe):")
    print(token)
    return 0


def _demo(args: argparse.Namespace) -> int:
    if args.matches < 1:
        raise UsageError("--matches must be at least 1")
    if args.web and not args.serve:
        raise UsageError("--web serves the pages while the demo serves: add --serve")
    log_file = None if args.verbose else demo.log_file(args.data)
    logs.configure("info", file=log_file)
    settings = demo.prepare(args.data, args.matches, args.workers, args.seed, log_file)
    if not args.serve:
        demo.run(settings)
        return 0
    # Serve from the start: the pages show the demo's matches as they finish, and the
    # bots submitted meanwhile get their validation and rated matches, with no limit.
    serving, progress = demo.serving(settings)
    try:
        return app.serve(
            serving, args.listen,
            beside=_web_beside(serving, args.web, args.live_delay, _signin_limits(args)),
            on_finished=progress.update,
        )  # fmt: skip
    except (OSError, DatabaseError) as e:
        raise UsageError(str(e)) from None
