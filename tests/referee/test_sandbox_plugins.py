"""A game plugin installed outside this Python's folders (a user install, PYTHONPATH)
is mounted into the sandbox too, so a Python bot can import the game it plays."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from niwa.referee.sandbox import runtime_paths


def test_a_plugin_games_package_outside_the_python_is_among_the_runtime_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "elsewhere" / "faraway_game"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("GAME = None\n")
    info = tmp_path / "elsewhere" / "faraway_game-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: faraway-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[niwa.games]\nfaraway = faraway_game:GAME\n")
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    assert package.resolve() in runtime_paths()
    assert not any(p == tmp_path.resolve() for p in runtime_paths())  # only its package


def test_without_plugins_the_runtime_paths_are_the_python_and_niwa() -> None:
    import niwa

    paths = runtime_paths()
    assert Path(niwa.__path__[0]).resolve() in paths or any(
        Path(niwa.__path__[0]).resolve().is_relative_to(p) for p in paths
    )
    assert Path(sys.prefix).resolve() in paths or Path(sys.prefix).resolve().is_relative_to(
        Path("/usr")
    )
