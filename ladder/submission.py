"""Taking a bot in: check and store its archive, list it per game, queue its validation.

A submitted bot is not ranked until it has played one validation match against
``builtin:random`` in the sandbox without going out; the runner records the verdict
(:func:`ladder.runner.Runner` calls :func:`judge`).
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import structlog

import engine
from bots.manifest import ManifestError
from bots.manifest import load as load_manifest
from ladder import archive
from ladder.store import ACTIVE, PENDING, REJECTED, RESERVE, VALIDATION, Bot, Owner, Store
from referee.match import BotSpec

VALIDATION_OPPONENT = "random"
_log = structlog.get_logger("niwa.ladder")


class SubmissionError(ValueError):
    """The submission is refused; the message says why and what to change."""


def store_archive(store: Store, data: bytes) -> tuple[str, Path]:
    """Check the archive, keep it by content hash, unpack it once; return (hash, folder)."""
    digest = archive.content_hash(data)
    folder = store.bot_dir(digest)
    if folder.is_dir():
        return digest, folder
    try:
        archive.check(data)
    except archive.ArchiveError as e:
        raise SubmissionError(str(e)) from None
    kept = store.archive_path(digest)
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_name(f".{kept.name}.{os.getpid()}.part")
    partial.write_bytes(data)
    os.replace(partial, kept)
    # Unpack beside the final folder, then rename: a crash leaves only scratch behind,
    # never a half-unpacked bot under its real name.
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{digest[:16]}-", dir=folder.parent))
    try:
        root = archive.unpack(data, scratch / "unpacked")
        try:
            root.rename(folder)  # the bot's own folder, even if archived in a top folder
        except OSError:
            if not folder.is_dir():  # else the same archive was just unpacked: keep that
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return digest, folder


def builtin_bot(
    store: Store, name: str, game: str, status: str = RESERVE, alias: str = ""
) -> Bot:
    """The ladder's row for ``builtin:NAME`` in ``game`` (created on first use), listed
    under ``alias`` if given (the demo's numbered copies of one bot)."""
    manifest = BotSpec.parse(f"builtin:{name}").manifest()
    label = alias or manifest.name.partition("?")[0]
    found = store.find_bot(label, manifest.version, game)
    if found is not None:
        if status == ACTIVE and found.status != ACTIVE:
            store.set_bot_status(found.id, ACTIVE)
            return store.bot(found.id)
        return found
    owner = store.system_owner()
    return store.add_bot(label, manifest.version, game, owner.id, f"builtin:{name}", None, status)


def submit(
    store: Store,
    owner: Owner,
    data: bytes,
    games_played: list[str] | None = None,
    rng: random.Random | None = None,
) -> list[Bot]:
    """Store the archive and queue one validation match per game its manifest lists
    (of ``games_played``, the ladder's games: by default every registered game)."""
    rng = rng or random.Random()
    digest, folder = store_archive(store, data)
    try:
        manifest = load_manifest(folder)
    except ManifestError as e:
        raise SubmissionError(str(e).replace(str(folder), "the archive")) from None
    registered = games_played or engine.games()
    games = registered if "*" in manifest.games else list(manifest.games)
    unknown = [g for g in games if g not in registered]
    if unknown:
        raise SubmissionError(
            f"bot.toml lists {', '.join(unknown)}, not a game of this ladder "
            f"(games: {', '.join(registered)})"
        )
    bots: list[Bot] = []
    for game in games:
        try:
            bot = store.add_bot(
                manifest.name, manifest.version, game, owner.id, "archive", digest, PENDING
            )
        except ValueError as e:
            raise SubmissionError(str(e)) from None
        info = engine.load(game).info
        opponent = builtin_bot(store, VALIDATION_OPPONENT, game)
        seats = [bot.id] + [opponent.id] * (max(info.min_players, 2) - 1)
        store.queue_match(
            game, info.version, seats, rng.getrandbits(62), kind=VALIDATION
        )
        bots.append(bot)
    _log.info("bot_submitted", bot=f"{manifest.name}@{manifest.version}", owner=owner.name,
              games=games, archive=digest)
    return bots


def judge(
    store: Store, seats: tuple[int, ...], outcome: list[tuple[str, str]], error: str = ""
) -> None:
    """Record a validation verdict: the pending bot is active unless it went out.

    ``outcome`` is (status, reason) per seat; an empty one means the referee could not
    run the match at all (``error`` says why: the bot's manifest or program)."""
    for seat, bot_id in enumerate(seats):
        bot = store.bot(bot_id)
        if bot.status != PENDING:
            continue
        status, reason = outcome[seat] if outcome else ("out", error or "it could not start")
        log = _log.bind(bot=bot.label, bot_id=bot_id, game=bot.game)
        if status == "ok":
            store.set_bot_status(bot_id, ACTIVE)
            log.info("bot_accepted")
        else:
            store.set_bot_status(bot_id, REJECTED, f"validation match: {reason}")
            log.info("bot_rejected", reason=reason)
