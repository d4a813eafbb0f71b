"""Clean up what a killed referee left behind (``kill -9`` of the ladder, a crash).

Three kinds of leftovers, each named after the referee process that made it, so a
live one (a match still running, here or in another referee) is never touched:

* bots' cgroups ``niwa-<match>-<seat>-p<pid>-<random>``: when process ``pid`` is gone,
  whatever still runs in the group is killed and the group removed. A group without
  an owner in its name (made by an older niwa) is removed only when empty and older
  than :data:`LEGACY_AGE_S`.
* bots' run folders ``niwa-bot-p<pid>-*`` in the temp dir, when ``pid`` is gone (older
  names: when older than :data:`LEGACY_AGE_S`); removed without following links and
  without recursion, whatever a bot left in them.
* partial replays ``DATA/replays/*.<pid>.part`` of ladder workers, when ``pid`` is gone.

A pid reused since by an unrelated process only makes the clean-up keep something:
it errs on the side of leaving things alone.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from niwa.referee import cgroups
from niwa.referee.cleanup import remove_tree
from niwa.referee.process_player import RUN_DIR_PREFIX

#: Leftovers without an owner pid in their name are removed past this age.
LEGACY_AGE_S = 24 * 3600.0
_RUN_DIR_OWNER = re.compile(re.escape(RUN_DIR_PREFIX) + r"p(\d+)-")
_PART_OWNER = re.compile(r"\.(\d+)\.part\Z")


@dataclass
class Counts:
    cgroups: int = 0  # groups removed
    killed: int = 0  # processes killed in them
    run_dirs: int = 0
    replays: int = 0  # partial replays removed
    live: int = 0  # leftovers kept because their referee still runs

    def total(self) -> int:
        return self.cgroups + self.run_dirs + self.replays


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def leftovers(
    data_dir: Path | None = None,
    *,
    cgroup_root: Path | None = None,
    temp_dir: Path | None = None,
    owner: int | None = None,
    log: Any = None,
) -> Counts:
    """Remove what dead referees left; return the counts (also logged, by ``log`` if
    given: a runner's, bound to its node). With ``owner``, only what referee ``owner``
    left (its guardian: :mod:`niwa.referee.guardian`)."""
    counts = Counts()
    _cgroups(cgroup_root or cgroups.root(), counts, owner)
    _run_dirs(Path(temp_dir or tempfile.gettempdir()), counts, owner)
    if data_dir is not None:
        _partial_replays(data_dir / "replays", counts)
    (log or structlog.get_logger("niwa.referee")).info(
        "leftovers_cleaned",
        cgroups=counts.cgroups,
        processes_killed=counts.killed,
        run_dirs=counts.run_dirs,
        partial_replays=counts.replays,
        kept_live=counts.live,
    )
    return counts


def _old(path: Path) -> bool:
    try:
        return time.time() - path.lstat().st_mtime > LEGACY_AGE_S
    except OSError:
        return False


def _cgroups(top: Path, counts: Counts, only: int | None) -> None:
    try:
        found = cgroups.bases(top)
        version = 2 if cgroups.is_v2(top) else 1
        controllers = {} if version == 2 else {b: c for c, b in cgroups.v1_bases(top).items()}
    except OSError:
        return
    groups: dict[str, dict[str, Path]] = {}  # group name -> hierarchy -> directory
    for base in found:
        with contextlib.suppress(OSError):
            for d in base.iterdir():
                if d.name.startswith("niwa-") and d.name != cgroups.REFEREE_LEAF and d.is_dir():
                    groups.setdefault(d.name, {})[controllers.get(base, "v2")] = d
    for name, dirs in groups.items():
        owner = cgroups.owner_pid(name)
        if only is not None and owner != only:
            continue
        if owner is not None and alive(owner):
            counts.live += 1
            continue
        group = cgroups.Cgroup(dirs, version)
        if owner is None:  # an older niwa's group: only when empty and old
            if group.pids() or not all(_old(d) for d in dirs.values()):
                continue
        else:
            counts.killed += len(group.pids())
            if not group.kill_all_sync():
                continue
        removed = True
        for d in set(dirs.values()):
            try:
                _rmdir_retrying(d)
            except OSError:
                removed = False
        counts.cgroups += removed


def _rmdir_retrying(d: Path) -> None:
    for _ in range(50):
        try:
            d.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # busy for a moment after its last process exits
            time.sleep(0.01)
    d.rmdir()


def _run_dirs(temp: Path, counts: Counts, only: int | None) -> None:
    with contextlib.suppress(OSError):
        for d in temp.glob(f"{RUN_DIR_PREFIX}*"):
            found = _RUN_DIR_OWNER.match(d.name)
            if only is not None and (found is None or int(found.group(1)) != only):
                continue
            if found is not None and alive(int(found.group(1))):
                counts.live += 1
                continue
            if found is None and not _old(d):
                continue
            if remove_tree(d):
                counts.run_dirs += 1


def _partial_replays(replays: Path, counts: Counts) -> None:
    with contextlib.suppress(OSError):
        for f in replays.glob("*.part"):
            found = _PART_OWNER.search(f.name)
            if found is not None and alive(int(found.group(1))):
                counts.live += 1
                continue
            with contextlib.suppress(OSError):
                f.unlink()
                counts.replays += 1
