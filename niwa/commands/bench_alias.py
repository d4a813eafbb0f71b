"""Baselines from before niwa became one package: a checkout whose packages are top
level (``engine``, ``referee``, ``bots``, ``niwa_proto``) is measured under the names
this harness imports (``niwa.engine``, ...). Standard library only: it runs before any
of niwa's subpackages is imported (``niwa/__init__.py`` installs it when
:data:`ENV` names a baseline folder made by ``niwa.commands.bench.baseline_packages``).

Every ``niwa.<new>...`` is the very module object ``<old>...`` (so types and module
state are shared with the baseline's own imports), never a second copy.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

#: The environment variable naming a baseline folder for a measuring child.
ENV: Final = "NIWA_BENCH_BASELINE"
#: The manifest in that folder: {new name: old top-level name} for an old-layout tree.
MANIFEST: Final = "aliases.json"
#: The old top-level name of each of niwa's subpackages.
OLD_NAMES: Final = {"engine": "engine", "referee": "referee", "bots": "bots",
                    "ladder": "ladder", "web": "web", "proto": "niwa_proto"}  # fmt: skip


class _Existing(importlib.abc.Loader):
    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        pass  # already executed under its old name

    def get_resource_reader(self, name: str) -> object:
        """Its own loader's reader: importlib.resources asks the alias's loader."""
        own = getattr(self.module, "__loader__", None)
        return own.get_resource_reader(self.module.__name__)  # type: ignore[union-attr]


class OldLayout(importlib.abc.MetaPathFinder):
    """``niwa.<new>[.x]`` -> the module ``<old>[.x]``, for the names given."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        parts = fullname.split(".")
        if len(parts) < 2 or parts[0] != "niwa" or parts[1] not in self.names:
            return None
        module = importlib.import_module(".".join([self.names[parts[1]], *parts[2:]]))
        own = module.__spec__
        # its own location, so that importlib.resources finds its data files
        spec = importlib.machinery.ModuleSpec(
            fullname, _Existing(module), origin=own.origin if own else None,
            is_package=hasattr(module, "__path__"),
        )  # fmt: skip
        if own is not None and own.submodule_search_locations is not None:
            spec.submodule_search_locations = list(own.submodule_search_locations)
        return spec


def install(names: dict[str, str]) -> None:
    """Serve ``niwa.<new>`` from the top-level ``<old>`` for each pair given."""
    if names and not any(isinstance(f, OldLayout) for f in sys.meta_path):
        sys.meta_path.insert(0, OldLayout(names))


def install_from(folder: str) -> None:
    """What :func:`install` needs, read from a baseline folder's manifest (none there:
    the baseline is already laid out as ``niwa.<new>``, nothing to alias)."""
    manifest = Path(folder) / MANIFEST
    if manifest.is_file():
        install(json.loads(manifest.read_text("utf-8")))


def install_if_old_layout() -> None:
    """Alias every old top-level package when the ``niwa`` on the path has no
    subpackages (a checkout from before the move), else nothing."""
    if importlib.util.find_spec("niwa.ladder") is None and importlib.util.find_spec("ladder"):
        install({new: old for new, old in OLD_NAMES.items()
                 if importlib.util.find_spec(old) is not None})  # fmt: skip
