"""bot.toml: every field checked whole (fullmatch) and bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from niwa.bots import manifest
from niwa.bots.manifest import ManifestError


def text(name: str = "zen", version: str = "1.0.0", games: str = '["blossom"]',
         command: str = '["python3", "bot.py"]') -> str:
    return f"name = {name!r}\nversion = {version!r}\ngames = {games}\ncommand = {command}\n"


def toml(value: str) -> str:
    return '"' + value.encode("unicode_escape").decode() + '"'


def test_a_good_manifest_is_read() -> None:
    assert manifest.parse(text()) == manifest.Manifest(
        "zen", "1.0.0", ("blossom",), ("python3", "bot.py")
    )


def test_a_name_with_a_trailing_newline_is_refused() -> None:
    with pytest.raises(ManifestError, match="'name' must be"):
        manifest.parse(f"name = {toml('alpha' + chr(10))}\nversion = '1'\n")


def test_a_version_with_a_newline_is_refused() -> None:
    with pytest.raises(ManifestError, match="'version' must be"):
        manifest.parse(f"name = 'zen'\nversion = {toml('1' + chr(10) + '#1 evil 9999')}\n")


@pytest.mark.parametrize("version", ["1" * 33, "1 0", "1.0é", "", "-1"])
def test_a_version_outside_the_short_ascii_pattern_is_refused(version: str) -> None:
    with pytest.raises(ManifestError, match="1-32 ASCII"):
        manifest.parse(text(version=version))


def test_a_name_over_64_characters_is_refused() -> None:
    with pytest.raises(ManifestError, match="1-64 ASCII"):
        manifest.parse(text(name="z" * 65))


def test_a_confusable_unicode_name_is_refused() -> None:
    with pytest.raises(ManifestError, match="'name' must be"):
        manifest.parse(text(name="z\u0435n"))  # Cyrillic e


def test_too_many_games_are_refused() -> None:
    games = "[" + ", ".join(f'"g{i}"' for i in range(33)) + "]"
    with pytest.raises(ManifestError, match="at most 32"):
        manifest.parse(text(games=games))


def test_too_many_command_arguments_are_refused() -> None:
    command = "[" + ", ".join('"a"' for _ in range(65)) + "]"
    with pytest.raises(ManifestError, match="1-64 non-empty strings"):
        manifest.parse(text(command=command))


def test_a_command_argument_over_its_limit_is_refused() -> None:
    with pytest.raises(ManifestError, match="at most 1024 characters"):
        manifest.parse(text(command=f'["{"a" * 1025}"]'))


def test_a_command_argument_with_a_nul_is_refused() -> None:
    with pytest.raises(ManifestError, match="no NUL"):
        manifest.parse(text(command='["python3\\u0000"]'))


def test_a_manifest_file_over_64_kib_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(text() + "#" * 70_000)
    with pytest.raises(ManifestError, match="over the limit of 65536 bytes"):
        manifest.load(tmp_path)
