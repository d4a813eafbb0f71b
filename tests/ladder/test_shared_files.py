"""The files every node of a ladder needs live in the store (SQLite and PostgreSQL): a
node with an empty folder of its own serves any replay and runs any submitted bot."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest

from niwa.ladder import submission
from niwa.ladder.reads import Reads
from niwa.ladder.runner import Runner, Settings
from niwa.ladder.store import Store
from tests.ladder.serving import wait_for
from tests.ladder.test_replay_integrity import REPLAY, finished_match
from tests.ladder.test_submission import bot_archive


@pytest.fixture
def store(any_store: Store) -> Store:
    return any_store


def other_node(store: Store, db_url: str, tmp_path: Path) -> Store:
    """The same store from another machine: its own, empty folder."""
    return Store.open(db_url, tmp_path / "other-node")


def test_a_replay_is_served_by_a_node_that_did_not_play_it(
    store: Store, db_url: str, tmp_path: Path
) -> None:
    match_id = finished_match(store)
    other = other_node(store, db_url, tmp_path)
    assert not other.files.replay_path(match_id).exists()
    replay = Reads(other).replay(match_id)
    assert replay.content == REPLAY
    assert replay.sha256 == hashlib.sha256(REPLAY).hexdigest()
    other.close()


def test_a_submitted_bot_is_unpacked_from_the_store_on_another_node(
    store: Store, db_url: str, tmp_path: Path
) -> None:
    owner, _ = store.owners.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive(top="zen/"))
    assert bot.archive_hash is not None
    other = other_node(store, db_url, tmp_path)
    folder = submission.unpacked(other, bot.archive_hash)
    assert folder.parent.parent == tmp_path / "other-node"
    original = store.files.bot_dir(bot.archive_hash) / "bot.toml"
    assert (folder / "bot.toml").read_bytes() == original.read_bytes()
    other.close()


def test_a_refused_upload_keeps_no_archive_in_the_store(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    submission.submit(store, owner, bot_archive())
    with pytest.raises(submission.SubmissionError):
        submission.submit(store, owner, bot_archive(version="1", games='["sakura", "nope"]'))
    assert store.db.scalar("SELECT COUNT(*) FROM blobs") == 1


def test_archives_kept_only_as_files_are_copied_into_the_store(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive())
    assert bot.archive_hash is not None
    store.db.execute("DELETE FROM blobs")  # as in a store made before it kept archives
    assert submission.keep_archives(store) == [bot.archive_hash]
    kept = store.files.archive_path(bot.archive_hash).read_bytes()
    assert store.files.blob(bot.archive_hash) == kept


def test_a_bot_no_node_can_unpack_fails_its_match_and_the_runner_carries_on(
    store: Store, db_url: str, tmp_path: Path
) -> None:
    owner, _ = store.owners.add_owner("alice")
    submission.submit(store, owner, bot_archive())
    store.db.execute("DELETE FROM blobs")  # lost: and the other node never had the files
    (validation,) = store.matches.matches()
    settings = Settings(db_url, tmp_path / "other-node", workers=1, games=("blossom",))
    stop = threading.Event()
    runner = threading.Thread(target=Runner(settings).run, args=(stop,))
    runner.start()
    try:
        wait_for("the match to fail", lambda: store.matches.match(validation.id).error)
    finally:
        stop.set()
        runner.join()
    assert "restore the ladder's database from a backup" in store.matches.match(validation.id).error
