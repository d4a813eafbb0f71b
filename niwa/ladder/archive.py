"""Bot archives: untrusted input, read by our own bounded tar reader, written by hand.

A submission is a tar archive (optionally gzip-compressed) of a bot's folder, with
``bot.toml`` at its root or inside one top-level folder. The standard library's
``tarfile`` never sees an uploaded archive: its link handling is where the escapes
were (CVE-2025-4517 and friends, unfixed on some supported Pythons), and two parsers
disagreeing about one archive would be a hole of its own. Instead:

- :class:`_Reader` reads the raw 512-byte headers (ustar, GNU long names, PAX) from a
  bounded decompression stream: every size field is compared with its limit before a
  byte of it is read, so memory stays at a few chunks whatever the archive claims;
- only regular files and folders are accepted; links, devices, FIFOs, sparse and
  unknown entries are refused, naming the entry;
- :func:`scan` checks the whole archive (paths, duplicates, counts, sizes) and returns
  its ``bot.toml`` without writing anything; :func:`extract` scans, then writes each
  folder and file itself, relative to directory descriptors opened ``O_NOFOLLOW``,
  files created ``O_EXCL``, modes set by us.

With no link in the tree and every component opened without following links, nothing
can be written outside the destination. The ladder runs both in a child process with
rlimits (:mod:`niwa.ladder.unpack`), never in the process that serves the API.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
import tarfile
import unicodedata
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from niwa.errors import LadderError

MANIFEST = "bot.toml"
SKIPPED_DIRS = frozenset({".git", "__pycache__", ".mypy_cache", ".ruff_cache"})
BLOCK = 512
CHUNK = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_ZERO_BLOCK = bytes(BLOCK)
_NOFOLLOW_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_REFUSED_TYPES = {
    b"1": "a hard link",
    b"2": "a symbolic link",
    b"3": "a character device",
    b"4": "a block device",
    b"6": "a FIFO",
    b"7": "a contiguous file",
    b"K": "a GNU long link name",
    b"S": "a GNU sparse file",
    b"M": "a GNU multi-volume continuation",
    b"V": "a GNU volume label",
    b"N": "an old GNU long name",
    b"D": "a GNU dump directory",
}


class ArchiveError(LadderError, ValueError):
    """The archive is refused; the message says which entry and why."""


@dataclass(frozen=True)
class ArchiveLimits:
    archive_bytes: int = 32 * 1024 * 1024  # the upload itself
    unpacked_bytes: int = 256 * 1024 * 1024  # sum of the file sizes
    files: int = 5000  # entries (files and folders)
    path_bytes: int = 1024  # one entry's path, UTF-8
    name_bytes: int = 255  # one component of it
    depth: int = 32  # components in a path
    long_name_bytes: int = 4096  # a GNU long-name ('L') header's content
    pax_bytes: int = 64 * 1024  # one PAX ('x' or 'g') header's content
    metadata_bytes: int = 4 * 1024 * 1024  # all long-name and PAX contents together
    manifest_bytes: int = 64 * 1024  # bot.toml

    @property
    def headers(self) -> int:
        """Headers in all: an entry may come with one long-name and one PAX header."""
        return 3 * self.files + 16

    @property
    def stream_bytes(self) -> int:
        """The most a valid archive decompresses to before its end marker."""
        return (
            self.unpacked_bytes
            + (self.headers + 2) * BLOCK  # the headers themselves
            + self.files * BLOCK  # padding of each file to a block
            + self.metadata_bytes
            + self.headers * BLOCK  # padding of long-name and PAX contents
        )


DEFAULT_LIMITS = ArchiveLimits()


@dataclass(frozen=True)
class Inspection:
    """What :func:`scan` found: the bot's folder inside the archive and its manifest."""

    root: str  # "" when bot.toml is at the archive's root
    manifest: str  # the text of bot.toml
    files: int  # entries, files and folders
    unpacked_bytes: int


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pack_directory(folder: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> bytes:
    """A reproducible tar.gz of ``folder`` (sorted, zeroed times and owners).

    Our own folder, so tarfile is fine here. The ladder accepts only files and folders:
    a link to a file inside the folder is packed as a copy, any other link refused."""
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
            source = path
            if path.is_symlink():  # e.g. node_modules/.bin: packed as a copy of its file
                source = path.resolve()
                if not source.is_file() or not source.is_relative_to(folder):
                    raise ArchiveError(
                        f"{path} is a link to something other than a file in the bot's "
                        "folder: the ladder accepts only files and folders (copy it in)"
                    )
            mode = source.lstat().st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise ArchiveError(
                    f"{path} is not a file or folder: the ladder accepts only files and folders"
                )
            count += 1
            if count > limits.files:
                raise ArchiveError(f"{folder} has more than {limits.files} files")
            info = tar.gettarinfo(str(source), arcname=relative.as_posix())
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if info.isreg():
                with source.open("rb") as f:
                    tar.addfile(info, f)
            else:
                tar.addfile(info)
    data = buffer.getvalue()
    if len(data) > limits.archive_bytes:
        raise ArchiveError(
            f"{folder} packs to {len(data)} bytes, over the limit of {limits.archive_bytes}"
        )
    return data


# Reading ---------------------------------------------------------------------------


class _Stream:
    """The archive's tar bytes, decompressed (gzip, possibly multi-member) in bounded
    chunks as they are asked for; never more than ``bound`` bytes in all."""

    def __init__(self, data: bytes, bound: int) -> None:
        self._raw = memoryview(data)
        self._pos = 0
        self._gzip = data[:2] == _GZIP_MAGIC
        self._dec = zlib.decompressobj(31) if self._gzip else None
        self._buf = bytearray()
        self._bound = bound
        self._produced = 0
        self._ended = False

    def _more(self) -> bool:
        """Add up to one chunk to the buffer; False at the end of the data."""
        if self._ended:
            return False
        if self._dec is None:
            piece = bytes(self._raw[self._pos : self._pos + CHUNK])
            self._pos += len(piece)
        else:
            if self._dec.eof:
                # Rewind to the first byte after this gzip member: another may follow.
                self._pos -= len(self._dec.unused_data)
                if bytes(self._raw[self._pos : self._pos + 2]) != _GZIP_MAGIC:
                    self._ended = True
                    return False
                self._dec = zlib.decompressobj(31)
            given = self._raw[self._pos : self._pos + CHUNK]
            try:
                piece = self._dec.decompress(given, CHUNK)
            except zlib.error as e:
                raise ArchiveError(f"the archive is damaged: bad gzip data ({e})") from None
            # Input zlib did not use (output full) is given again next time.
            self._pos += len(given) - len(self._dec.unconsumed_tail)
            if not piece and not given:
                self._ended = True
                return False
        if not piece and self._dec is None:
            self._ended = True
            return False
        self._produced += len(piece)
        if self._produced > self._bound:
            raise ArchiveError(
                f"the archive decompresses to more than {self._bound} bytes before its end"
            )
        self._buf += piece
        return True

    def read(self, n: int) -> bytes:
        """Exactly ``n`` bytes (``n`` at most a chunk or a bounded header)."""
        while len(self._buf) < n:
            if not self._more():
                raise ArchiveError("the archive is damaged: it ends in the middle of an entry")
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def pieces(self, n: int) -> Iterator[bytes]:
        """``n`` bytes in chunks."""
        while n > 0:
            piece = self.read(min(n, CHUNK))
            n -= len(piece)
            yield piece

    def skip(self, n: int) -> None:
        for _ in self.pieces(n):
            pass


@dataclass
class _Entry:
    parts: tuple[str, ...]
    is_dir: bool
    size: int
    executable: bool
    label: str  # the name as shown in messages


def _number(field: bytes, what: str, where: str) -> int:
    """A header's numeric field: octal text, or GNU base-256 (positive only)."""
    if field[:1] and field[0] & 0x80:
        if field[0] != 0x80:
            raise ArchiveError(f"{where}: its {what} field is negative or too large")
        return int.from_bytes(field[1:], "big")
    text = field.split(b"\0", 1)[0].strip(b" ")
    if not text:
        return 0
    if text.strip(b"01234567"):
        raise ArchiveError(f"the archive is damaged: {where} has a bad {what} field")
    return int(text, 8)


def _pax_records(data: bytes, where: str) -> dict[str, bytes]:
    """``LENGTH key=value\\n`` records (POSIX.1-2001); a bad record damages the archive."""
    records: dict[str, bytes] = {}
    pos = 0
    while pos < len(data) and data[pos:pos + 1] != b"\0":
        space = data.find(b" ", pos, pos + 20)
        length_text = data[pos:space] if space > 0 else b""
        if not length_text.isdigit():
            raise ArchiveError(f"the archive is damaged: bad PAX record in {where}")
        end = pos + int(length_text)
        record = data[space + 1 : end]
        if end > len(data) or not record.endswith(b"\n") or b"=" not in record:
            raise ArchiveError(f"the archive is damaged: bad PAX record in {where}")
        key, _, value = record[:-1].partition(b"=")
        try:
            records[key.decode("utf-8")] = value
        except UnicodeDecodeError:
            raise ArchiveError(f"the archive is damaged: bad PAX key in {where}") from None
        pos = end
    return records


def _checksum_ok(header: bytes) -> bool:
    try:
        stored = _number(header[148:156], "checksum", "a header")
    except ArchiveError:
        return False
    unsigned = sum(header[:148]) + 8 * 32 + sum(header[156:])
    signed = sum(b - 256 if b > 127 else b for b in header[:148] + header[156:]) + 8 * 32
    return stored in (unsigned, signed)


class _Reader:
    """Entries of a tar stream, each checked against the limits before use."""

    def __init__(self, data: bytes, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.stream = _Stream(data, limits.stream_bytes)
        self.total = 0

    def _path(self, raw: bytes) -> tuple[tuple[str, ...], str]:
        lim = self.limits
        label = repr(raw[:200].decode("utf-8", "backslashreplace"))
        if b"\0" in raw:
            raise ArchiveError(f"entry {label} has a NUL byte in its path")
        if len(raw) > lim.path_bytes:
            raise ArchiveError(
                f"entry {label}... has a path of {len(raw)} bytes, over the limit of "
                f"{lim.path_bytes}"
            )
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ArchiveError(f"entry {label} has a path that is not UTF-8") from None
        label = repr(name)
        if any(unicodedata.category(c) == "Cc" for c in name):
            # A newline, ESC or DEL in a file name has no use in a bot and would reach
            # logs and listings that show the tree.
            raise ArchiveError(f"entry {label} has a control character in its path")
        if name.startswith("/"):
            raise ArchiveError(f"entry {label} has an absolute path")
        parts = tuple(p for p in name.split("/") if p not in ("", "."))
        if ".." in parts:
            raise ArchiveError(f"entry {label} points outside the bot's folder (..)")
        if len(parts) > lim.depth:
            raise ArchiveError(
                f"entry {label} is {len(parts)} folders deep, over the limit of {lim.depth}"
            )
        for part in parts:
            if len(part.encode("utf-8")) > lim.name_bytes:
                raise ArchiveError(
                    f"entry {label} has a name over the limit of {lim.name_bytes} bytes"
                )
        return parts, label

    def _content(self, size: int, bound: int, what: str, where: str) -> bytes:
        if size > bound:
            raise ArchiveError(
                f"{where}: a {what} of {size} bytes, over the limit of {bound}"
            )
        data = self.stream.read(size)
        self.stream.skip(-size % BLOCK)
        return data

    def entries(self) -> Iterator[tuple[_Entry, Iterator[bytes]]]:
        """Each entry with its content's chunks (drained here if the caller does not)."""
        lim = self.limits
        long_name: bytes | None = None
        pax: dict[str, bytes] = {}
        headers = metadata = 0
        while True:
            try:
                header = self.stream.read(BLOCK)
            except ArchiveError:
                if headers == 0:
                    raise ArchiveError("not a tar or tar.gz archive") from None
                raise
            if header == _ZERO_BLOCK:
                return  # end of archive: what follows is never decompressed
            headers += 1
            where = f"header {headers}"
            if headers > lim.headers:
                raise ArchiveError(f"the archive has more than {lim.headers} headers")
            if not _checksum_ok(header):
                if headers == 1:
                    raise ArchiveError("not a tar or tar.gz archive")
                raise ArchiveError(f"the archive is damaged: {where} has a bad checksum")
            kind = header[156:157]
            size = _number(header[124:136], "size", where)
            if kind == b"L":
                long_name = self._content(size, lim.long_name_bytes, "GNU long name", where)
                long_name = long_name.split(b"\0", 1)[0]
                metadata += size
            elif kind in (b"x", b"g"):
                records = _pax_records(self._content(size, lim.pax_bytes, "PAX header", where),
                                       where)
                metadata += size
                if kind == b"x":
                    pax = records
                elif {"path", "size", "linkpath"} & set(records) or any(
                    k.startswith("GNU.sparse") for k in records
                ):
                    raise ArchiveError(
                        f"{where}: a global PAX header that sets paths or sizes is not accepted"
                    )
            if metadata > lim.metadata_bytes:
                raise ArchiveError(
                    f"the archive has more than {lim.metadata_bytes} bytes of long names and "
                    "PAX headers"
                )
            if kind in (b"L", b"x", b"g"):
                continue
            if "path" in pax:
                raw_name = pax["path"]
            elif long_name is not None:
                raw_name = long_name
            else:
                raw_name = header[0:100].split(b"\0", 1)[0]
                prefix = header[345:500].split(b"\0", 1)[0]
                if header[257:263] == b"ustar\0" and prefix:
                    raw_name = prefix + b"/" + raw_name
            if "size" in pax:
                if not pax["size"].isdigit():
                    raise ArchiveError(f"the archive is damaged: {where} has a bad PAX size")
                size = int(pax["size"])
            sparse = any(k.startswith("GNU.sparse") for k in pax)
            long_name, pax = None, {}
            parts, label = self._path(raw_name)
            if kind in _REFUSED_TYPES or sparse:
                what = _REFUSED_TYPES.get(kind, "a GNU sparse file")
                raise ArchiveError(
                    f"entry {label} is {what}: only files and folders are accepted"
                )
            if kind == b"\0" and raw_name.endswith(b"/"):
                kind = b"5"  # an old-style folder
            if kind not in (b"0", b"\0", b"5"):
                raise ArchiveError(
                    f"entry {label} has unknown type {kind!r}: only files and folders are "
                    "accepted"
                )
            is_dir = kind == b"5"
            if is_dir and size:
                raise ArchiveError(f"the archive is damaged: folder {label} has a size")
            if not is_dir:
                if size > lim.unpacked_bytes - self.total:
                    raise ArchiveError(
                        f"entry {label} ({size} bytes) makes the archive unpack to more than "
                        f"{lim.unpacked_bytes} bytes"
                    )
                self.total += size
            mode = _number(header[100:108], "mode", where)
            entry = _Entry(parts, is_dir, size, bool(mode & 0o111), label)
            content = self.stream.pieces(size)
            yield entry, content
            for _ in content:  # whatever the caller left
                pass
            self.stream.skip(-size % BLOCK)


def scan(data: bytes, limits: ArchiveLimits = DEFAULT_LIMITS) -> Inspection:
    """Check every entry without writing anything; return the bot's folder and manifest."""
    if len(data) > limits.archive_bytes:
        raise ArchiveError(
            f"the archive is {len(data)} bytes, over the limit of {limits.archive_bytes}"
        )
    reader = _Reader(data, limits)
    seen: set[tuple[str, ...]] = set()
    files: set[tuple[str, ...]] = set()
    folders: set[tuple[str, ...]] = set()
    manifests: dict[tuple[str, ...], bytes] = {}
    count = 0
    for entry, content in reader.entries():
        parts = entry.parts
        if not parts:
            if entry.is_dir:
                continue  # "./": the destination itself
            raise ArchiveError(f"entry {entry.label} is a file without a name")
        count += 1
        if count > limits.files:
            raise ArchiveError(f"the archive has more than {limits.files} entries")
        if parts in seen:
            raise ArchiveError(f"entry {entry.label} appears twice: each path may appear once")
        for i in range(1, len(parts)):
            if parts[:i] in files:
                raise ArchiveError(
                    f"entry {entry.label} is inside {'/'.join(parts[:i])!r}, which is a file"
                )
            folders.add(parts[:i])
        if not entry.is_dir and parts in folders:
            raise ArchiveError(f"entry {entry.label} is a file but also holds other entries")
        seen.add(parts)
        (folders if entry.is_dir else files).add(parts)
        if not entry.is_dir and parts[-1] == MANIFEST and _manifest_candidate(parts, manifests):
            if entry.size > limits.manifest_bytes:
                raise ArchiveError(
                    f"{entry.label} is {entry.size} bytes, over the limit of "
                    f"{limits.manifest_bytes}"
                )
            manifests[parts] = b"".join(content)
    root = ""
    if (MANIFEST,) not in files:
        tops = {p[0] for p in seen}
        if len(tops) != 1 or (next(iter(tops)), MANIFEST) not in files:
            raise ArchiveError(f"the archive has no {MANIFEST} at its root")
        root = next(iter(tops))
    raw = manifests[(root, MANIFEST) if root else (MANIFEST,)]
    try:
        manifest = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"{MANIFEST} is not UTF-8 text") from None
    return Inspection(root, manifest, count, reader.total)


def _manifest_candidate(parts: tuple[str, ...], kept: dict[tuple[str, ...], bytes]) -> bool:
    """bot.toml at the root, or in the first top folder: the only places it counts
    (and so at most two are ever kept in memory)."""
    if len(parts) == 1:
        return True
    return len(parts) == 2 and not any(len(p) == 2 for p in kept)


# Writing ---------------------------------------------------------------------------


class _Writer:
    """Folders and files under one directory descriptor, never following a link."""

    def __init__(self, root_fd: int) -> None:
        self.root_fd = root_fd
        self._cached: tuple[tuple[str, ...], int] | None = None

    def folder(self, parts: tuple[str, ...]) -> int:
        """A descriptor of the folder ``parts`` (created 0755 as needed); do not close."""
        if self._cached is not None and self._cached[0] == parts:
            return self._cached[1]
        fd = os.dup(self.root_fd)
        try:
            for part in parts:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o700, dir_fd=fd)
                child = os.open(part, _NOFOLLOW_DIR, dir_fd=fd)
                os.close(fd)
                fd = child
                os.fchmod(fd, 0o755)
        except BaseException:
            os.close(fd)
            raise
        self.close()
        self._cached = (parts, fd)
        return fd

    def file(self, entry: _Entry, content: Iterator[bytes]) -> None:
        parent = self.folder(entry.parts[:-1])
        fd = os.open(entry.parts[-1], _NEW_FILE, 0o600, dir_fd=parent)
        try:
            for piece in content:
                view = memoryview(piece)
                while view:
                    view = view[os.write(fd, view):]
            os.fchmod(fd, 0o755 if entry.executable else 0o644)
        finally:
            os.close(fd)

    def close(self) -> None:
        if self._cached is not None:
            os.close(self._cached[1])
            self._cached = None


def extract(data: bytes, destination: Path, limits: ArchiveLimits = DEFAULT_LIMITS) -> Inspection:
    """Scan, then write the archive into ``destination`` (created here: it must not
    exist); return what the scan found. A refused archive writes nothing."""
    found = scan(data, limits)
    parent_fd = os.open(destination.parent, _NOFOLLOW_DIR)
    try:
        os.mkdir(destination.name, 0o700, dir_fd=parent_fd)
        root_fd = os.open(destination.name, _NOFOLLOW_DIR, dir_fd=parent_fd)
    finally:
        os.close(parent_fd)
    writer = _Writer(root_fd)
    try:
        for entry, content in _Reader(data, limits).entries():
            if not entry.parts:
                continue
            if entry.is_dir:
                writer.folder(entry.parts)
            else:
                writer.file(entry, content)
        os.fchmod(root_fd, 0o755)
    finally:
        writer.close()
        os.close(root_fd)
    return found
