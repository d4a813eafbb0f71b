"""Taking a bot in: judge its archive and manifest, store it, queue its validation.

An upload costs nothing before it is judged: the archive is read in a child process
(:mod:`niwa.ladder.unpack`) and its ``bot.toml``, the bot's name, the games and the owner's
quota are checked before a byte is stored. A refused upload leaves nothing behind: what
it wrote (archive file, scratch and unpacked folders) is removed, and the ladder's start
removes what a ``kill -9`` left (:func:`clean_leftovers`).

A submitted bot is not ranked until it has played one validation match against
``builtin:random`` in the sandbox without going out; the runner records the verdict
(:func:`niwa.ladder.runner.Runner` calls :func:`judge`).
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import structlog

from niwa import engine
from niwa.bots.manifest import ManifestError
from niwa.bots.manifest import parse as parse_manifest
from niwa.errors import LadderError
from niwa.ladder import archive, unpack
from niwa.ladder.store import (
    ACTIVE,
    PENDING,
    REJECTED,
    RESERVE,
    VALIDATION,
    Bot,
    Owner,
    Store,
    StoreError,
)
from niwa.referee.failures import SeatStatus
from niwa.referee.match import BotSpec

VALIDATION_OPPONENT = "random"
_log = structlog.get_logger("niwa.ladder")


class SubmissionError(LadderError, ValueError):
    """The submission is refused; the message says why and what to change."""


@dataclass(frozen=True)
class Quota:
    """What one owner may keep on the ladder (admins are not limited)."""

    archive_bytes: int = 256 * 1024 * 1024  # archives kept, all versions together
    versions: int = 50  # bot versions (name@version; one per name and version)


DEFAULT_QUOTA = Quota()


@dataclass(frozen=True)
class Expected:
    """What an uploader says the archive holds: a bot of this name, for this game."""

    name: str
    game: str

    def check(self, name: str, games: list[str]) -> None:
        if name != self.name:
            raise SubmissionError(
                f"bot.toml names the bot {name!r}, not {self.name!r}: type the name "
                "bot.toml gives, or upload that bot's archive"
            )
        if self.game not in games:
            raise SubmissionError(
                f"bot.toml lists {', '.join(games)}, not {self.game}: add {self.game} to its "
                "games, or choose one it lists"
            )
_QUOTA_KEYS = {"archive_bytes": "quota.archive_bytes", "versions": "quota.versions"}


def quota(store: Store) -> Quota:
    """The ladder's quota: the defaults, as changed by :func:`set_quota`."""
    return Quota(
        **{
            f: store.settings.int_setting(k, getattr(DEFAULT_QUOTA, f))
            for f, k in _QUOTA_KEYS.items()
        }
    )


def set_quota(store: Store, archive_bytes: int | None = None, versions: int | None = None) -> Quota:
    """Change the per-owner quota (kept in the store); None keeps a value as it is."""
    for field, value in (("archive_bytes", archive_bytes), ("versions", versions)):
        if value is not None:
            if value < 0:
                raise ValueError(f"a quota cannot be negative ({field} = {value})")
            store.settings.set_setting(_QUOTA_KEYS[field], str(value))
    return quota(store)


def check_quota(store: Store, owner: Owner, digest: str, size: int, new_version: bool) -> None:
    if owner.is_admin:
        return
    limit = quota(store)
    versions, hashes = store.owners.owner_usage(owner.id)
    if new_version and versions + 1 > limit.versions:
        raise SubmissionError(
            f"{owner.name} has {versions} bot versions, the quota of this ladder "
            f"({limit.versions}): ask the ladder's admin to raise it "
            "(niwa ladder serve --quota-versions)"
        )
    # the store's copies; an archive kept before the store had them, by its file
    sizes = store.files.blob_sizes(hashes)
    kept = sum(sizes[h] if h in sizes else _size(store.files.archive_path(h)) for h in hashes)
    if digest not in hashes and kept + size > limit.archive_bytes:
        raise SubmissionError(
            f"{owner.name} keeps {kept} bytes of archives; this one ({size} bytes) would pass "
            f"the quota of this ladder ({limit.archive_bytes} bytes): ask the ladder's admin "
            "to raise it (niwa ladder serve --quota-mb)"
        )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def store_archive(
    store: Store,
    data: bytes,
    root: str,
    limits: archive.ArchiveLimits = archive.DEFAULT_LIMITS,
    created: list[Path] | None = None,
) -> tuple[str, Path]:
    """Keep the archive by content hash and unpack it once (in a child process);
    return (hash, folder). Paths this call created are appended to ``created``."""
    created = created if created is not None else []
    digest = archive.content_hash(data)
    folder, kept = store.files.bot_dir(digest), store.files.archive_path(digest)
    if folder.is_dir() and kept.is_file():
        return digest, folder
    if unpack_into(data, root, folder, limits):
        created.append(folder)
    if not kept.is_file():
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_name(f".{kept.name}.{os.getpid()}.part")
        partial.write_bytes(data)
        os.replace(partial, kept)
        created.append(kept)
    return digest, folder


def unpack_into(
    data: bytes, root: str, folder: Path, limits: archive.ArchiveLimits = archive.DEFAULT_LIMITS
) -> bool:
    """Unpack the archive (in a child process) as ``folder``, unless it is there
    already; True if this call made it. ``root``: the bot's folder inside the archive."""
    if folder.is_dir():
        return False
    # Unpack beside the final folder, then rename: a crash leaves only scratch behind
    # (removed at the next start), never a half-unpacked bot under its real name.
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=folder.parent))
    try:
        unpack.extract(data, scratch / "unpacked", limits)
        unpacked = scratch / "unpacked" / root if root else scratch / "unpacked"
        try:
            unpacked.rename(folder)  # the bot's own folder, even if archived in a top folder
        except OSError:
            if not folder.is_dir():  # else the same archive was just unpacked: keep that
                raise
            return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return True


def keep_archives(store: Store) -> list[str]:
    """Copy into the store the archives it has only as files here (a store made before
    it kept them): every node can then run their bots. Returns their hashes."""
    used = store.bots.archive_hashes()
    kept = store.files.blob_sizes(used)
    copied = []
    for digest in sorted(used - kept.keys()):
        path = store.files.archive_path(digest)
        if path.is_file():
            store.files.put_blob("archive", path.read_bytes())
            copied.append(digest)
    return copied


def unpacked(store: Store, digest: str) -> Path:
    """The folder of the bot stored from archive ``digest`` on this node: unpacked from
    the store's copy of the archive if this node has not unpacked it yet (a runner on
    another machine than the upload's API server, a standby that took over)."""
    folder = store.files.bot_dir(digest)
    if folder.is_dir():
        return folder
    data = archive_bytes(store, digest)
    store_archive(store, data, unpack.inspect(data).root)
    return folder


def archive_bytes(store: Store, digest: str) -> bytes:
    """The store's copy of archive ``digest``."""
    data = store.files.blob(digest)
    if data is None:
        raise StoreError(
            f"the store has no archive {digest[:16]}: restore the ladder's database "
            "from a backup (it holds every submitted archive)"
        )
    return data


def _discard(store: Store, digest: str, created: list[Path]) -> None:
    """Remove what a refused upload wrote, unless a bot is (now) stored from it."""
    if store.bots.archive_in_use(digest):
        return
    for path in created:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def clean_leftovers(store: Store) -> list[str]:
    """Remove what interrupted uploads left (scratch folders, ``.*.part`` files, bot
    folders and archives no bot is stored from); return what was removed.

    Call it when no upload is in flight: at the ladder's start, before serving."""
    removed: list[str] = []
    used = store.bots.archive_hashes()
    for folder, suffix in (("bots", ""), ("archives", ".tar.gz")):
        base = store.data_dir / folder
        if not base.is_dir():
            continue
        for entry in os.scandir(base):
            leftover = entry.name.startswith(".") or (
                entry.name.endswith(suffix) and entry.name.removesuffix(suffix) not in used
            )
            if not leftover:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
            removed.append(f"{folder}/{entry.name}")
    if removed:
        _log.warning("upload_leftovers_removed", paths=removed)
    return removed


def builtin_bot(
    store: Store, name: str, game: str, status: str = RESERVE, alias: str = ""
) -> Bot:
    """The ladder's row for ``builtin:NAME`` in ``game`` (created on first use), listed
    under ``alias`` if given (the demo's numbered copies of one bot). Found by its
    source and the system owner: a submitted bot cannot stand in for it."""
    manifest = BotSpec.parse(f"builtin:{name}").manifest()
    label = alias or manifest.name.partition("?")[0]
    source = f"builtin:{name}"
    found = store.bots.find_builtin(source, label, manifest.version, game)
    if found is not None:
        if status == ACTIVE and found.status != ACTIVE:
            store.bots.set_bot_status(found.id, ACTIVE)
            return store.bots.bot(found.id)
        return found
    owner = store.owners.system_owner()
    try:
        return store.bots.add_bot(label, manifest.version, game, owner.id, source, None, status)
    except StoreError:  # added meanwhile by another node (a first submission there)
        found = store.bots.find_builtin(source, label, manifest.version, game)
        if found is None:
            raise
        return builtin_bot(store, name, game, status, alias)


def submit(
    store: Store,
    owner: Owner,
    data: bytes,
    games_played: list[str] | None = None,
    rng: random.Random | None = None,
    limits: archive.ArchiveLimits = archive.DEFAULT_LIMITS,
    expect: Expected | None = None,
) -> list[Bot]:
    """Judge the upload, store it and queue one validation match per game its manifest
    lists (of ``games_played``, the ladder's games: by default every registered game).
    ``expect``: what the uploader said the bot is (the web page's form), refused if its
    ``bot.toml`` says otherwise."""
    rng = rng or random.Random()
    try:
        found = unpack.inspect(data, limits)  # a child process; nothing is written
        manifest = parse_manifest(found.manifest, "bot.toml")
    except (archive.ArchiveError, ManifestError) as e:
        raise SubmissionError(str(e)) from None
    registered = games_played or engine.games()
    games = registered if "*" in manifest.games else list(dict.fromkeys(manifest.games))
    unknown = [g for g in games if g not in registered]
    if unknown:
        raise SubmissionError(
            f"bot.toml lists {', '.join(unknown)}, not a game of this ladder "
            f"(games: {', '.join(registered)})"
        )
    digest = archive.content_hash(data)
    try:
        store.bots.check_new_bot(manifest.name, manifest.version, games, owner.id)
    except StoreError as e:
        raise SubmissionError(str(e)) from None
    check_quota(store, owner, digest, len(data), new_version=True)
    if expect is not None:  # last: what the API refuses, the page refuses with its words
        expect.check(manifest.name, games)
    created: list[Path] = []
    try:
        store_archive(store, data, found.root, limits, created)
        with store.db.transaction():  # every game's bot and match, or none
            store.files.put_blob("archive", data)  # for the runner, on whatever machine
            bots = _add(store, owner, manifest.name, manifest.version, games, digest, rng)
    except BaseException as e:
        _discard(store, digest, created)
        if isinstance(e, (StoreError, archive.ArchiveError)):
            raise SubmissionError(str(e)) from None
        raise
    _log.info("bot_submitted", bot=f"{manifest.name}@{manifest.version}", owner=owner.name,
              games=games, archive=digest)
    return bots


def _add(
    store: Store,
    owner: Owner,
    name: str,
    version: str,
    games: list[str],
    digest: str,
    rng: random.Random,
) -> list[Bot]:
    bots: list[Bot] = []
    for game in games:
        bot = store.bots.add_bot(name, version, game, owner.id, "archive", digest, PENDING)
        info = engine.load(game).info
        opponent = builtin_bot(store, VALIDATION_OPPONENT, game)
        seats = [bot.id] + [opponent.id] * (max(info.min_players, 2) - 1)
        store.matches.queue_match(game, info.version, seats, rng.getrandbits(62), kind=VALIDATION)
        bots.append(bot)
    return bots


def judge(
    store: Store, seats: tuple[int, ...], outcome: list[tuple[str, str]], error: str = ""
) -> None:
    """Record a validation verdict: the pending bot is active unless it went out.

    ``outcome`` is (status, reason) per seat; an empty one means the referee could not
    run the match at all (``error`` says why: the bot's manifest or program)."""
    for seat, bot_id in enumerate(seats):
        bot = store.bots.bot(bot_id)
        if bot.status != PENDING:
            continue
        status, reason = (
            outcome[seat] if outcome else (SeatStatus.OUT, error or "it could not start")
        )
        log = _log.bind(bot=bot.label, bot_id=bot_id, game=bot.game)
        if status == SeatStatus.OK:
            store.bots.set_bot_status(bot_id, ACTIVE)
            log.info("bot_accepted")
        else:
            store.bots.set_bot_status(bot_id, REJECTED, f"validation match: {reason}")
            log.info("bot_rejected", reason=reason)
