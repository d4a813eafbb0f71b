"""Secrets in files (a database password, an API token): read only from a file its owner
alone may read, written only to a new file of mode 0600."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from niwa.errors import LadderError


class SecretFileError(LadderError):
    """The secret's file cannot be used; the message names the file and the fix."""


def read_secret(path: Path, what: str) -> str:
    """The first line of ``path``, a secret: refused if the file's group or others may
    read or write it (as libpq does with ~/.pgpass and ssh with keys): a secret others can
    read is already out, and a service that starts anyway would keep it so unnoticed."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        raise SecretFileError(f"cannot read the {what} file {path}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)
        if mode & 0o077:
            raise SecretFileError(
                f"the {what} file {path} may be read or written by its group or others "
                f"(mode {mode:04o}): chmod 600 {path}"
            )
        data = f.read(64 << 10)
    line = data.decode("utf-8", "replace").splitlines()[0] if data.strip() else ""
    if not line.strip():
        raise SecretFileError(f"the {what} file {path} is empty: write it on the first line")
    return line.strip()


def write_secret(path: Path, secret: str) -> None:
    """Write ``secret`` to a new file only its owner may read (never over another file)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise SecretFileError(f"{path} exists already: give a new file name") from None
    except OSError as e:
        raise SecretFileError(f"cannot write {path}: {e.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(secret + "\n")
