"""examples/java-bot: built with Debian's JDK and grpc-java, it plays a sandboxed match."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kits.kit import (
    JAVA,
    assert_asked_again_it_answers_the_same,
    assert_every_move_ok,
    assert_verifies,
    play,
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The kit built into a temporary bot directory, and the replay of its match."""
    root = tmp_path_factory.mktemp("java-kit")
    bot = JAVA.build(root / "bot")
    return bot, play(bot, "miyabi", root / "match.jsonl")


def test_its_sandboxed_match_against_random_has_every_move_ok(built: tuple[Path, Path]) -> None:
    assert_every_move_ok(built[1], JAVA.name)


def test_its_replay_verifies(built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert_verifies(built[1], capsys)


def test_asked_again_it_gives_the_recorded_answer(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert_asked_again_it_answers_the_same(built[1], built[0], capsys)
