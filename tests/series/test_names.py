"""How local tools name bots: ``name@version`` from bot.toml, a path only to tell two
apart."""

from __future__ import annotations

from pathlib import Path

from niwa.referee.match import BotSpec
from niwa.series.names import bot_names, named


def bot_dir(path: Path, name: str = "sakura", version: str = "1.0") -> str:
    path.mkdir(parents=True)
    (path / "bot.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\ngames = ["*"]\ncommand = ["true"]\n'
    )
    return str(path)


def names(*texts: str) -> list[str]:
    return bot_names([BotSpec.parse(t) for t in texts])


def test_a_bot_directory_is_named_by_its_bot_toml(tmp_path: Path) -> None:
    deep = bot_dir(tmp_path / "home" / "me" / "projects" / "bots" / "sakura-v1")
    assert names(deep) == ["sakura@1.0"]


def test_a_builtin_keeps_its_builtin_name() -> None:
    assert names("builtin:random", "builtin:mcts?seconds=0.1") == [
        "builtin:random", "builtin:mcts?seconds=0.1"]


def test_two_folders_with_the_same_name_at_version_add_the_end_that_tells_them_apart(
    tmp_path: Path,
) -> None:
    old = bot_dir(tmp_path / "v1" / "sakura")
    new = bot_dir(tmp_path / "v2" / "sakura")
    other = bot_dir(tmp_path / "v3" / "other", name="other")
    assert names(old, new, other, "builtin:random") == [
        "sakura@1.0 (v1/sakura)", "sakura@1.0 (v2/sakura)", "other@1.0", "builtin:random"]


def test_the_same_folder_given_twice_has_one_name(tmp_path: Path) -> None:
    bot = bot_dir(tmp_path / "sakura")
    assert names(bot, bot + "/") == ["sakura@1.0", "sakura@1.0"]


def test_another_version_is_another_name(tmp_path: Path) -> None:
    assert names(bot_dir(tmp_path / "a"), bot_dir(tmp_path / "b", version="1.1")) == [
        "sakura@1.0", "sakura@1.1"]


def test_named_specs_carry_their_name_as_the_replay_label(tmp_path: Path) -> None:
    specs = named([BotSpec.parse(bot_dir(tmp_path / "s")), BotSpec.parse("builtin:random")])
    assert [s.label for s in specs] == ["sakura@1.0", ""]
    assert specs[0].target == str(tmp_path / "s")
