"""A Ray node's bot cache: private to the node's user, each bot checked when used."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from niwa import engine
from niwa.ladder import archive, bot_cache
from niwa.ladder.bot_cache import cache_problem, cached_bot
from niwa.ladder.ray_executor import Expected, niwa_version, node_problem

EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "examples" / "python-bot"
DATA = archive.pack_directory(EXAMPLE_BOT)
DIGEST = archive.content_hash(DATA)


class Fetches:
    """The archive's fetch from Ray's object store, counted."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> bytes:
        self.count += 1
        return DATA


def private(tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    assert cache_problem(folder) == ""
    return folder


def test_a_missing_cache_is_made_private(tmp_path: Path) -> None:
    folder = private(tmp_path)
    assert folder.stat().st_mode & 0o777 == 0o700


def test_a_cache_others_may_write_in_is_refused_naming_path_mode_and_fix(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    problem = cache_problem(folder)
    assert f"the bot cache {folder} is owned by uid {os.geteuid()} with mode 0777" in problem
    assert "mode 0700" in problem and "remove it" in problem


def test_a_cache_of_another_user_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)  # nobody
    assert "is owned by uid 65534 with mode 0700: it must be this node's user's (uid 0)" in (
        cache_problem(folder)
    )


def test_a_link_in_place_of_the_cache_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "cache").symlink_to(tmp_path / "elsewhere")
    assert "is a link or a file, not a folder" in cache_problem(tmp_path / "cache")


def test_the_default_cache_is_not_in_the_shared_tmp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(bot_cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/home/node/.cache")
    assert bot_cache.cache_dir() == Path("/home/node/.cache/niwa-node")


def test_a_node_with_a_cache_others_may_write_in_refuses_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cache"
    folder.mkdir()
    folder.chmod(0o755)
    monkeypatch.setenv(bot_cache.CACHE_ENV, str(folder))
    rules = engine.load("blossom").info.version
    problem = node_problem("blossom", Expected(niwa_version(), rules, "info"))
    assert problem.startswith(f"the bot cache {folder} is owned by uid")


def test_a_bot_is_fetched_once_then_reused(tmp_path: Path) -> None:
    folder, fetch = private(tmp_path), Fetches()
    first = cached_bot(folder, DIGEST, fetch)
    again = cached_bot(folder, DIGEST, fetch)
    assert first == again and (first / "bot.toml").is_file()
    assert fetch.count == 1


def test_a_folder_planted_under_an_honest_hash_is_not_run(tmp_path: Path) -> None:
    folder, fetch = private(tmp_path), Fetches()
    planted = folder / "bots" / DIGEST
    shutil.copytree(EXAMPLE_BOT, planted / "bot")
    (planted / "bot" / "bot.py").write_text("print('planted')\n")
    used = cached_bot(folder, DIGEST, fetch)
    assert fetch.count == 1  # refetched from the archive
    assert (used / "bot.py").read_bytes() == (EXAMPLE_BOT / "bot.py").read_bytes()


def test_a_cached_bot_changed_after_unpacking_is_unpacked_again(tmp_path: Path) -> None:
    folder, fetch = private(tmp_path), Fetches()
    used = cached_bot(folder, DIGEST, fetch)
    (used / "bot.py").chmod(0o644)
    (used / "bot.py").write_text("print('changed after unpacking')\n")
    again = cached_bot(folder, DIGEST, fetch)
    assert fetch.count == 2
    assert (again / "bot.py").read_bytes() == (EXAMPLE_BOT / "bot.py").read_bytes()


def test_a_file_added_to_a_cached_bot_is_detected(tmp_path: Path) -> None:
    folder, fetch = private(tmp_path), Fetches()
    used = cached_bot(folder, DIGEST, fetch)
    (used / "sitecustomize.py").write_text("import os\n")
    again = cached_bot(folder, DIGEST, fetch)
    assert fetch.count == 2 and not (again / "sitecustomize.py").exists()


def test_an_archive_that_arrives_with_other_content_is_refused(tmp_path: Path) -> None:
    folder = private(tmp_path)
    with pytest.raises(ValueError, match="arrived with other content"):
        cached_bot(folder, "0" * 64, Fetches())
    assert not (folder / "bots" / ("0" * 64)).exists()
