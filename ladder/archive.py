"""Bot archives: untrusted input, checked entry by entry before anything is written.

A submission is a tar archive (optionally gzip-compressed) of a bot's folder, with
``bot.toml`` at its root or inside one top-level folder. Refused, each with a message
naming the entry: paths escaping the folder (``..``, absolute paths), links pointing
outside it, device files and FIFOs, and archives over the size or file-count limits.
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "bot.toml"
SKIPPED_DIRS = frozenset({".git", "__pycache__", ".mypy_cache", ".ruff_cache"})


class ArchiveError(ValueError):
    """The archive is refused; the message says which entry and why."""


@dataclass(frozen=True)
class Limits:
    archive_bytes: int = 32 * 1024 * 1024
    unpacked_bytes: int = 256 * 1024 * 1024
    files: int = 5000


DEFAULT_LIMITS = Limits()


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pack_directory(folder: Path, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """A reproducible tar.gz of ``folder`` (sorted, zeroed times and owners)."""
    folder = folder.resolve()
    if not (folder / MANIFEST).is_file():
        raise ArchiveError(f"{folder} has no {MANIFEST}: a bot folder starts with its manifest")
    buffer = io.BytesIO()
    count = 0
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            if SKIPPED_DIRS.intersection(relative.parts):
                continue
            count += 1
            if count > limits.files:
                raise ArchiveError(f"{folder} has more than {limits.files} files")
            info = tar.gettarinfo(str(path), arcname=relative.as_posix())
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if info.isreg():
                with path.open("rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    data = buffer.getvalue()
    if len(data) > limits.archive_bytes:
        raise ArchiveError(
            f"{folder} packs to {len(data)} bytes, over the limit of {limits.archive_bytes}"
        )
    return data


def _open(data: bytes) -> tarfile.TarFile:
    try:
        return tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except tarfile.TarError:
        raise ArchiveError("not a tar or tar.gz archive") from None


def _safe_name(name: str) -> str:
    """The entry's path inside the bot folder, or :class:`ArchiveError`."""
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise ArchiveError(f"entry {name!r} has an absolute path")
    normal = posixpath.normpath(name)
    if normal == ".." or normal.startswith("../") or "/../" in f"/{name}/":
        raise ArchiveError(f"entry {name!r} points outside the bot's folder (..)")
    return "" if normal == "." else normal


def check(data: bytes, limits: Limits = DEFAULT_LIMITS) -> str:
    """Check every entry; return the folder inside the archive that holds ``bot.toml``."""
    if len(data) > limits.archive_bytes:
        raise ArchiveError(
            f"the archive is {len(data)} bytes, over the limit of {limits.archive_bytes}"
        )
    names: set[str] = set()
    total = 0
    with _open(data) as tar:
        try:
            members = iter(tar)
            for count, member in enumerate(members, start=1):
                if count > limits.files:
                    raise ArchiveError(f"the archive has more than {limits.files} entries")
                name = _safe_name(member.name)
                if member.isdev() or member.isfifo():
                    raise ArchiveError(f"entry {name!r} is a device file or FIFO")
                if member.issym() or member.islnk():
                    _check_link(name, member)
                elif not (member.isreg() or member.isdir()):
                    raise ArchiveError(f"entry {name!r} is not a file, folder or link")
                total += member.size
                if total > limits.unpacked_bytes:
                    raise ArchiveError(
                        f"the archive unpacks to more than {limits.unpacked_bytes} bytes"
                    )
                names.add(name)
        except (tarfile.TarError, EOFError, OSError) as e:
            raise ArchiveError(f"the archive is damaged: {e}") from None
    if MANIFEST in names:
        return ""
    roots = {n.split("/", 1)[0] for n in names if n}
    if len(roots) == 1 and f"{next(iter(roots))}/{MANIFEST}" in names:
        return next(iter(roots))
    raise ArchiveError(f"the archive has no {MANIFEST} at its root")


def _check_link(name: str, member: tarfile.TarInfo) -> None:
    target = member.linkname
    if target.startswith("/"):
        raise ArchiveError(f"link {name!r} points to an absolute path ({target})")
    # A symlink's target is relative to the link's folder; a hard link's to the root.
    base = posixpath.dirname(name) if member.issym() else ""
    resolved = posixpath.normpath(posixpath.join(base, target))
    if resolved == ".." or resolved.startswith("../"):
        raise ArchiveError(f"link {name!r} points outside the bot's folder ({target})")


def _open_to_sandbox(root: Path) -> None:
    """Readable by all, writable by none but us: sandboxed bots run as an unprivileged
    uid and must read (never write) their own folder."""
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        if path.is_dir():
            path.chmod(0o755)
        else:
            path.chmod(0o755 if path.stat().st_mode & 0o111 else 0o644)


def unpack(data: bytes, destination: Path, limits: Limits = DEFAULT_LIMITS) -> Path:
    """Check, then unpack into ``destination`` (created; must not exist); return the
    bot folder inside it."""
    root = check(data, limits)
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=destination.parent))
    try:
        with _open(data) as tar:
            # The "data" filter re-checks what check() did and drops owners and
            # set-uid bits: a second line of defence, not the first.
            tar.extractall(staging, filter="data")
        _open_to_sandbox(staging)
        staging.rename(destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return destination / root if root else destination
