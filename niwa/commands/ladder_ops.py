"""``niwa ladder drain`` and ``niwa ladder migrate``: operating the runners of a ladder
and its store's schema (docs/deploy.md, "Upgrades").

Both open the store without migrating it: a drain or a check must never upgrade the
schema under a leader of the previous version.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from niwa.cli import UsageError
from niwa.ladder import drain, schema
from niwa.ladder.db import (
    Database,
    DatabaseError,
    is_postgres_url,
    redact,
    sqlite_path,
    with_password_file,
)
from niwa.ladder.drain import DRAINED, DRAINING, REQUESTED, Drain
from niwa.ladder.lease import Lease
from niwa.ladder.store import Store

#: Seconds a runner has to take a drain request before the command gives up on it (a
#: leader looks every second, a standby at each poll of the lease).
ACK_S = 30.0
POLL_S = 0.5


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "drain", help="stop a runner cleanly: no new matches, finish or hand back, exit",
        description="Tell the leading runner (or --node) to claim no more matches, let "
        "the ones in flight finish until --deadline, hand the rest back to the queue, "
        "release the lease and exit 0; a standby takes over. Shows progress until done.",
    )  # fmt: skip
    db_args(p)
    p.add_argument("--node", default="",
                   help="the runner to drain, as its --node names it (default: the leader)")
    p.add_argument("--deadline", type=float, default=drain.DEFAULT_DEADLINE_S,
                   metavar="SECONDS", help="then hand the matches still in flight back "
                   f"(default {drain.DEFAULT_DEADLINE_S:g})")
    p.set_defaults(run=_drain)

    p = commands.add_parser(
        "migrate", help="show the store's schema version, or bring it up to this niwa's",
    )
    db_args(p)
    p.add_argument("--check", action="store_true",
                   help="only show the versions; exit 1 if migrations are due")
    p.set_defaults(run=_migrate)


def db_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", required=True, help="the store's URL (SQLite file or postgresql://)")
    password_file_arg(p)


def password_file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--password-file", type=Path, metavar="FILE",
                   help="a postgresql:// store: the role's password, on the first line of "
                   "FILE (mode 0600; instead of a password in the URL)")


def db_url(args: argparse.Namespace) -> str:
    """--db, naming --password-file when given (only the file's path is in the URL)."""
    if not getattr(args, "password_file", None):
        return str(args.db)
    try:
        return with_password_file(args.db, args.password_file)
    except DatabaseError as e:
        raise UsageError(str(e)) from None


@contextmanager
def existing_store(url: str) -> Iterator[Store]:
    """The store at ``url`` as it is: not created, not migrated."""
    if not is_postgres_url(url) and not sqlite_path(url).is_file():
        raise UsageError(f"no ladder store at {sqlite_path(url)}: give the right --db")
    try:
        db = Database.open(url)
    except DatabaseError as e:
        raise UsageError(str(e)) from None
    try:
        yield Store(db, Path.cwd())  # no files are read or written
    finally:
        db.close()


def _migrate(args: argparse.Namespace) -> int:
    with existing_store(db_url(args)) as store:
        version = schema.stored_version(store.db)
        where = f"store {redact(args.db)}: schema {version}, this niwa: {schema.LATEST}"
        if version > schema.LATEST:
            raise UsageError(str(schema.SchemaTooNew(version)))
        if version == schema.LATEST:
            print(f"{where}: up to date")
            return 0
        due = schema.LATEST - version
        if args.check:
            print(f"{where}: {due} migration{'s' * (due > 1)} due (niwa ladder migrate "
                  "applies them; so does the first niwa ladder serve)")
            return 1
        schema.migrate(store.db)
        print(f"{where}: migrated from {version} to {schema.stored_version(store.db)}")
        return 0


def _drain(args: argparse.Namespace) -> int:
    if args.deadline < 0:
        raise UsageError("--deadline must be 0 seconds or more")
    with existing_store(db_url(args)) as store:
        version = schema.stored_version(store.db)
        if version > schema.LATEST:
            raise UsageError(str(schema.SchemaTooNew(version)))
        if version < 5:
            raise UsageError(f"the store has schema {version}, which has no runner lease: "
                             "start niwa ladder serve on it once")
        node = args.node or _leader(store)
        drain.write(store, node, Drain(REQUESTED, args.deadline))
        print(f"asked {node} to drain (deadline {args.deadline:g} s)", flush=True)
        try:
            return _follow(store, node)
        finally:
            drain.forget(store, node)


def _leader(store: Store) -> str:
    holder = Lease(store.db, "niwa-ladder-drain", 1.0).current()
    if holder is None or holder.expires_in < 0:
        raise UsageError("no runner holds the lease of this store: nothing to drain "
                         "(--node NAME drains a standby)")
    return holder.holder


def _follow(store: Store, node: str) -> int:
    """Print the runner's progress until it is drained (0), or gives no sign (1)."""
    asked = time.monotonic()
    shown: Drain | None = None
    while True:
        now = drain.read(store, node)
        if now is None:
            raise UsageError(f"the drain request for {node} was removed: run the command again")
        if now != shown and now.state != REQUESTED:
            print(_progress(node, now), flush=True)
            shown = now
        if now.state == DRAINED:
            return 0
        if now.state == REQUESTED and time.monotonic() - asked > ACK_S:
            print(f"{node} did not take the request within {ACK_S:g} s: no runner of that "
                  "name runs, or it runs a niwa without drain (stop that one with SIGTERM: "
                  "it hands its matches back and releases the lease)", flush=True)
            return 1
        lost = now.state == DRAINING and now.leader and not _holds(store, node)
        if lost and drain.read(store, node) == now:  # not released by the drain itself
            print(f"{node} lost its lease before it finished draining: the leader now "
                  "plays its matches again", flush=True)
            return 1
        time.sleep(POLL_S)


def _holds(store: Store, node: str) -> bool:
    holder = Lease(store.db, "niwa-ladder-drain", 1.0).current()
    return holder is not None and holder.holder == node


def _progress(node: str, now: Drain) -> str:
    if now.state == DRAINING:
        return (f"draining {node}: {now.in_flight} in flight, {now.finished} finished")
    role = "lease released" if now.leader else "it was standing by"
    return (f"{node} drained: {now.finished} finished, {now.handed_back} handed back to "
            f"the queue; {role}; it exits now")
