"""Removing a directory tree someone untrusted may have written, safely.

``shutil.rmtree`` recurses (3,000 nested directories crash it with RecursionError)
and walks by path. :func:`remove_tree` walks with directory file descriptors instead:
one loop, no recursion, and at most two descriptors open however deep the tree is
(it climbs back with ``..``, which is never a link). Every entry is opened with
``O_NOFOLLOW`` relative to its parent, so a symlink is removed, never followed, and it
does not cross into another file system mounted inside the tree. It never raises:
what it cannot remove is logged and left. Whoever wrote the tree must be stopped
before it runs (a writer racing the walk could make it remove empty directories
of the same names elsewhere, nothing more).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import structlog

_log = structlog.get_logger("niwa.cleanup")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: Path | str) -> bool:
    """Remove ``path`` (a directory tree, or a single non-directory); True when it is
    gone. Errors are logged, never raised."""
    path = Path(path)
    try:
        parent = os.open(path.parent, _DIR_FLAGS & ~os.O_NOFOLLOW)
    except OSError as e:
        _log.warning("cleanup_failed", path=str(path), error=str(e))
        return False
    try:
        return _remove(parent, path)
    except OSError as e:
        _log.warning("cleanup_failed", path=str(path), error=str(e))
        return False
    finally:
        os.close(parent)


def _remove(parent: int, path: Path) -> bool:
    try:
        st = os.lstat(path.name, dir_fd=parent)
    except FileNotFoundError:
        return True
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path.name, dir_fd=parent)
        return True
    top = (st.st_dev, st.st_ino)
    fd = os.open(path.name, _DIR_FLAGS, dir_fd=parent)
    if (os.fstat(fd).st_dev, os.fstat(fd).st_ino) != top:  # replaced since the lstat
        os.close(fd)
        raise OSError(f"{path} changed while being removed")
    names: list[str] = []  # the way down from the top, by name
    stuck: set[tuple[int, int]] = set()  # directories that could not be emptied
    failures = 0
    try:
        while True:
            here = os.fstat(fd)
            child, name, failed = _descend_or_empty(fd, here.st_dev, stuck)
            failures += failed
            if child is not None:
                os.close(fd)
                fd = child
                names.append(name)
                continue
            if not names:  # back at the top, emptied as far as possible
                break
            up = os.open("..", _DIR_FLAGS & ~os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = up
            try:
                os.rmdir(names.pop(), dir_fd=fd)
            except OSError:
                stuck.add((here.st_dev, here.st_ino))
                failures += 1
    finally:
        os.close(fd)
    try:
        os.rmdir(path.name, dir_fd=parent)
    except OSError as e:
        _log.warning("cleanup_incomplete", path=str(path), failures=failures + 1, error=str(e))
        return False
    return True


def _descend_or_empty(
    fd: int, dev: int, stuck: set[tuple[int, int]]
) -> tuple[int | None, str, int]:
    """Unlink the non-directories in ``fd``; return the first subdirectory still to
    empty (opened), or None when there is none, and the number of failures."""
    failures = 0
    with os.scandir(fd) as entries:
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                try:
                    os.unlink(entry.name, dir_fd=fd)
                except OSError:
                    failures += 1
                continue
            if (dev, entry.inode()) in stuck:
                continue
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                stuck.add((dev, entry.inode()))
                failures += 1
                continue
            if os.fstat(child).st_dev != dev:  # a mount point: not ours to empty
                os.close(child)
                stuck.add((dev, entry.inode()))
                failures += 1
                continue
            return child, entry.name, failures
    return None, "", failures
