"""A fresh venv holding this environment's niwa and one plug-in distribution, for tests
that must see a game registered only there (tests/plugin/).

It is ``python -m venv --system-site-packages --without-pip`` plus a hard-linked copy of
this environment's site-packages (niwa and its dependencies; the system Python has none
of them), then ``pip install --no-deps --no-build-isolation`` of the plug-in. A copy
rather than a .pth pointing here, because a sandboxed bot sees only its interpreter's
prefix and niwa's own folder (niwa/referee/sandbox.py, ``runtime_paths``): a plug-in and
its dependencies must live in the venv that runs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Venv:
    python: Path
    plugin: Path  # the copy of the plugin's folder that was installed

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """``python args...`` in the fresh venv; output kept for the assertion message."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        return subprocess.run(
            [str(self.python), *args], cwd=cwd, env=env, capture_output=True, text=True
        )

    def script(self, code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return self.run("-c", code, cwd=cwd)


def _link_tree(source: Path, target: Path) -> None:
    """``cp -al``: hard links where the file system allows, copies elsewhere."""

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, symlinks=True, copy_function=link, dirs_exist_ok=True)


def fresh_venv(root: Path, plugin: Path) -> Venv:
    """A venv in ``root/venv`` with niwa and a copy of the plug-in folder ``plugin``
    installed (the copy, in ``root``, so that the build writes nothing into ``plugin``)."""
    home = root / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(home)],
        check=True,
    )
    source = root / plugin.name
    shutil.copytree(plugin, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    fresh = Venv(home / "bin" / "python", source)
    purelib = fresh.script("import sysconfig; print(sysconfig.get_paths()['purelib'])", root)
    _link_tree(Path(sysconfig.get_paths()["purelib"]), Path(purelib.stdout.strip()))
    install = fresh.run(
        "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", str(source),
        cwd=root,
    )  # fmt: skip
    assert install.returncode == 0, install.stdout + install.stderr
    return fresh


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    """The output of a command that must have succeeded; else all it printed."""
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout
