"""Every exception class niwa defines has one root, ``niwa.NiwaError``."""

import importlib
import inspect
import pkgutil

import pytest

import niwa
from niwa.errors import NiwaError

# Modules that need an optional extra or a platform part to import at all.
OPTIONAL = ("niwa.adapters", "niwa.proto", "niwa.__main__")


def _niwa_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(niwa.__path__, "niwa."):
        if info.name.startswith(OPTIONAL):
            continue
        names.append(info.name)
    return names


def _own_exception_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in _niwa_modules():
        try:
            module = importlib.import_module(name)
        except ImportError:  # a module of an extra that is not installed
            continue
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == name:
                found[f"{name}.{obj.__qualname__}"] = obj
    return sorted(found.values(), key=lambda c: f"{c.__module__}.{c.__qualname__}")


def test_niwa_error_is_exported_from_the_package_root() -> None:
    assert niwa.NiwaError is NiwaError


def test_the_walk_finds_the_errors_of_every_layer() -> None:
    layers = {c.__module__.split(".")[1] for c in _own_exception_classes()}
    assert {"engine", "referee", "ladder", "bots", "web", "commands"} <= layers


@pytest.mark.parametrize(
    "cls", _own_exception_classes(), ids=lambda c: f"{c.__module__}.{c.__qualname__}"
)
def test_every_exception_niwa_defines_derives_from_niwa_error(cls: type) -> None:
    assert issubclass(cls, NiwaError), f"{cls.__module__}.{cls.__qualname__} bases {cls.__bases__}"


def test_concrete_errors_keep_their_builtin_base() -> None:
    from niwa.engine.api import IllegalAction
    from niwa.engine.registry import UnknownGame

    assert issubclass(IllegalAction, ValueError)
    assert issubclass(UnknownGame, LookupError)
