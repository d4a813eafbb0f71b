"""A Ray node's cache of unpacked bots, private to the node's user.

Each archive is unpacked once into ``bots/HASH/bot`` beside ``bots/HASH/files.json``,
the node's own list of every file's mode and SHA-256. The cache folder must be the
node's user's with mode 0700 (checked before every match: :func:`cache_problem`), so
nobody else can plant a folder under an honest bot's hash; and since a folder can still
be changed by whoever could write there, a bot's folder is checked against its list
every time it is used (:func:`cached_bot`): one that differs, or has no list (made by
an older niwa, or planted), is removed and unpacked again from the archive, whose hash
is checked on arrival.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import structlog

from niwa.ladder import archive
from niwa.ladder.submission import unpack_into
from niwa.ladder.unpack import inspect

#: Where a node keeps its bots; NIWA_NODE_CACHE overrides.
CACHE_ENV = "NIWA_NODE_CACHE"
#: The cache's mode: its user's alone.
CACHE_MODE = 0o700
LIST_NAME = "files.json"

log = structlog.get_logger("niwa.ladder.node")


def cache_dir() -> Path:
    """``$NIWA_NODE_CACHE``, else ``niwa-node`` in the user's cache folder (not in the
    shared ``/tmp``, where another user could make it first)."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "niwa-node"


def cache_problem(folder: Path) -> str:
    """Why ``folder`` must not hold this node's bots ("" if it may); made (mode 0700)
    when missing."""
    fix = f"remove it (the node fills a new one) or set {CACHE_ENV} to a folder of this user's"
    try:
        folder.mkdir(mode=CACHE_MODE, parents=True, exist_ok=True)
        found = folder.lstat()
    except OSError as e:
        return f"the bot cache {folder} cannot be made ({e.strerror}): set {CACHE_ENV}"
    if not stat.S_ISDIR(found.st_mode):
        return f"the bot cache {folder} is a link or a file, not a folder: {fix}"
    mode = stat.S_IMODE(found.st_mode)
    if found.st_uid != os.geteuid() or mode != CACHE_MODE:
        return (
            f"the bot cache {folder} is owned by uid {found.st_uid} with mode {mode:04o}: it "
            f"must be this node's user's (uid {os.geteuid()}) with mode {CACHE_MODE:04o}, "
            f"or others could plant bots in it; {fix}"
        )
    return ""


def cached_bot(folder: Path, digest: str, fetch: Callable[[], bytes]) -> Path:
    """The bot of archive ``digest`` unpacked in cache ``folder``, checked against the
    node's list of its files; fetched (``fetch``) and unpacked when missing or changed."""
    entry = folder / "bots" / digest
    if _intact(entry):
        return entry / "bot"
    if entry.exists() or entry.is_symlink():
        log.warning("cached_bot_changed", digest=digest, folder=str(entry))
        _remove(entry)
    data = fetch()
    if archive.content_hash(data) != digest:
        raise ValueError(f"archive {digest[:16]} arrived with other content")
    entry.parent.mkdir(mode=CACHE_MODE, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".fill-", dir=entry.parent))
    try:
        unpack_into(data, inspect(data).root, scratch / "bot")
        (scratch / LIST_NAME).write_text(json.dumps(files_of(scratch / "bot"), sort_keys=True))
        # One step: no reader sees a bot without its list. It fails if another match
        # on this node unpacked it first: that one is checked below.
        with contextlib.suppress(OSError):
            scratch.rename(entry)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if not _intact(entry):
        raise ValueError(f"the cached bot {entry} changed while it was unpacked: run again")
    return entry / "bot"


def files_of(tree: Path) -> dict[str, str]:
    """Every entry under ``tree``: a folder's mode, a file's mode and SHA-256, a link's
    target (unpacking makes none: one here was put by someone else)."""
    found: dict[str, str] = {}
    paths = []
    for top, folders, files in os.walk(tree):  # never into a linked folder
        paths += [Path(top, name) for name in (*folders, *files)]
    for path in sorted(paths):
        info = path.lstat()
        kind = f"{stat.S_IMODE(info.st_mode):04o}"
        if stat.S_ISLNK(info.st_mode):
            kind = f"link {os.readlink(path)}"
        elif stat.S_ISREG(info.st_mode):
            kind += " " + hashlib.sha256(path.read_bytes()).hexdigest()
        elif not stat.S_ISDIR(info.st_mode):
            kind = "special"
        found[str(path.relative_to(tree))] = kind
    return found


def _intact(entry: Path) -> bool:
    """Whether ``entry`` holds a bot folder exactly as its list says."""
    try:
        tree = entry / "bot"
        if entry.is_symlink() or tree.is_symlink() or not tree.is_dir():
            return False
        listed = json.loads((entry / LIST_NAME).read_text())
        return bool(listed == files_of(tree))
    except (OSError, ValueError):
        return False


def _remove(entry: Path) -> None:
    if entry.is_symlink() or not entry.is_dir():
        entry.unlink()
    else:
        shutil.rmtree(entry)
