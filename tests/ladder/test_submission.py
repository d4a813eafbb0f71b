"""Taking bots in: stored by content, listed per game, validated before being ranked."""

from __future__ import annotations

import io
import tarfile

import pytest

from ladder import submission
from ladder.store import ACTIVE, PENDING, REJECTED, SUPERSEDED, VALIDATION, Store
from ladder.submission import SubmissionError


def bot_archive(games: str = '["blossom"]', version: str = "1", top: str = "") -> bytes:
    manifest = (
        f'name = "zen"\nversion = "{version}"\ngames = {games}\ncommand = ["python3", "b.py"]\n'
    ).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in ((f"{top}bot.toml", manifest), (f"{top}b.py", b"print('hi')\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_a_bot_is_stored_by_content_hash_and_unpacked_as_its_own_folder(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive(top="zen/"))
    assert bot.archive_hash is not None
    folder = store.bot_dir(bot.archive_hash)
    assert (folder / "bot.toml").is_file()
    assert store.archive_path(bot.archive_hash).is_file()


def test_each_listed_game_gets_a_pending_bot_and_a_validation_match(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    bots = submission.submit(store, owner, bot_archive('["blossom", "sakura"]'))
    assert [(b.game, b.status) for b in bots] == [("blossom", PENDING), ("sakura", PENDING)]
    queued = store.matches(state="queued", limit=10)
    assert sorted(m.game for m in queued) == ["blossom", "sakura"]
    assert all(m.kind == VALIDATION and m.seats[0] in {b.id for b in bots} for m in queued)


def test_a_star_means_every_game_of_this_ladder(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    bots = submission.submit(store, owner, bot_archive('["*"]'), games_played=["blossom"])
    assert [b.game for b in bots] == ["blossom"]


def test_a_game_the_ladder_does_not_play_is_refused(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    with pytest.raises(SubmissionError, match="lists chess, not a game of this ladder"):
        submission.submit(store, owner, bot_archive('["chess"]'))


def test_a_bad_manifest_is_refused_without_naming_server_paths(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    with pytest.raises(SubmissionError) as caught:
        submission.submit(store, owner, bot_archive("42"))
    assert "'games' must list" in str(caught.value)
    assert str(store.data_dir) not in str(caught.value)


def test_validation_passed_makes_the_bot_active(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive())
    (match,) = store.matches(state="queued")
    submission.judge(store, match.seats, [("ok", ""), ("ok", "")])
    assert store.bot(bot.id).status == ACTIVE


def test_validation_failed_rejects_the_bot_with_the_reason(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive())
    (match,) = store.matches(state="queued")
    submission.judge(store, match.seats, [("out", "TIMEOUT: no answer"), ("ok", "")])
    rejected = store.bot(bot.id)
    assert (rejected.status, rejected.reason) == (
        REJECTED,
        "validation match: TIMEOUT: no answer",
    )


def test_a_new_version_replaces_the_old_once_validated(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    (old,) = submission.submit(store, owner, bot_archive(version="1"))
    store.set_bot_status(old.id, ACTIVE)
    (new,) = submission.submit(store, owner, bot_archive(version="2"))
    assert store.bot(old.id).status == ACTIVE  # still playing while v2 is validated
    (match,) = [m for m in store.matches(state="queued") if m.seats[0] == new.id]
    submission.judge(store, match.seats, [("ok", ""), ("ok", "")])
    assert (store.bot(old.id).status, store.bot(new.id).status) == (SUPERSEDED, ACTIVE)


def test_the_same_archive_twice_is_refused(store: Store) -> None:
    owner, _ = store.add_owner("alice")
    submission.submit(store, owner, bot_archive())
    with pytest.raises(SubmissionError, match="raise the version"):
        submission.submit(store, owner, bot_archive())
