"""Taking bots in: stored by content, listed per game, validated before being ranked."""

from __future__ import annotations

import io
import os
import tarfile

import pytest

from niwa.ladder import submission
from niwa.ladder.store import ACTIVE, PENDING, REJECTED, SUPERSEDED, VALIDATION, Store, StoreError
from niwa.ladder.submission import SubmissionError


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
    owner, _ = store.owners.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive(top="zen/"))
    assert bot.archive_hash is not None
    folder = store.files.bot_dir(bot.archive_hash)
    assert (folder / "bot.toml").is_file()
    assert store.files.archive_path(bot.archive_hash).is_file()


def test_each_listed_game_gets_a_pending_bot_and_a_validation_match(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    bots = submission.submit(store, owner, bot_archive('["blossom", "sakura"]'))
    assert [(b.game, b.status) for b in bots] == [("blossom", PENDING), ("sakura", PENDING)]
    queued = store.matches.matches(state="queued", limit=10)
    assert sorted(m.game for m in queued) == ["blossom", "sakura"]
    assert all(m.kind == VALIDATION and m.seats[0] in {b.id for b in bots} for m in queued)


def test_a_star_means_every_game_of_this_ladder(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    bots = submission.submit(store, owner, bot_archive('["*"]'), games_played=["blossom"])
    assert [b.game for b in bots] == ["blossom"]


def test_a_game_the_ladder_does_not_play_is_refused(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    with pytest.raises(SubmissionError, match="lists chess, not a game of this ladder"):
        submission.submit(store, owner, bot_archive('["chess"]'))


def test_a_bad_manifest_is_refused_without_naming_server_paths(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    with pytest.raises(SubmissionError) as caught:
        submission.submit(store, owner, bot_archive("42"))
    assert "'games' must list" in str(caught.value)
    assert str(store.data_dir) not in str(caught.value)


def test_validation_passed_makes_the_bot_active(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive())
    (match,) = store.matches.matches(state="queued")
    submission.judge(store, match.seats, [("ok", ""), ("ok", "")])
    assert store.bots.bot(bot.id).status == ACTIVE


def test_validation_failed_rejects_the_bot_with_the_reason(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive())
    (match,) = store.matches.matches(state="queued")
    submission.judge(store, match.seats, [("out", "TIMEOUT: no answer"), ("ok", "")])
    rejected = store.bots.bot(bot.id)
    assert (rejected.status, rejected.reason) == (
        REJECTED,
        "validation match: TIMEOUT: no answer",
    )


def test_a_new_version_replaces_the_old_once_validated(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    (old,) = submission.submit(store, owner, bot_archive(version="1"))
    store.bots.set_bot_status(old.id, ACTIVE)
    (new,) = submission.submit(store, owner, bot_archive(version="2"))
    assert store.bots.bot(old.id).status == ACTIVE  # still playing while v2 is validated
    (match,) = [m for m in store.matches.matches(state="queued") if m.seats[0] == new.id]
    submission.judge(store, match.seats, [("ok", ""), ("ok", "")])
    assert (store.bots.bot(old.id).status, store.bots.bot(new.id).status) == (SUPERSEDED, ACTIVE)


def test_the_same_archive_twice_is_refused(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    submission.submit(store, owner, bot_archive())
    with pytest.raises(SubmissionError, match="raise the version"):
        submission.submit(store, owner, bot_archive())


def named_archive(name: str, version: str = "1", padding: int = 0) -> bytes:
    manifest = (
        f'name = "{name}"\nversion = "{version}"\ngames = ["blossom"]\n'
        'command = ["python3", "b.py"]\n'
    ).encode()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for entry, data in (("bot.toml", manifest), ("pad", os.urandom(padding))):
            info = tarfile.TarInfo(entry)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def stored_files(store: Store) -> list[str]:
    return sorted(
        str(p.relative_to(store.data_dir))
        for folder in ("bots", "archives")
        if (store.data_dir / folder).is_dir()
        for p in (store.data_dir / folder).iterdir()
    )


def test_a_bot_named_like_a_built_in_is_refused_and_validation_keeps_the_built_in(
    store: Store,
) -> None:
    owner, _ = store.owners.add_owner("alice")
    with pytest.raises(SubmissionError, match="'random' is reserved for niwa's built-in bots"):
        submission.submit(store, owner, named_archive("random", "1"))
    (bot,) = submission.submit(store, owner, named_archive("zen"))
    (match,) = store.matches.matches(state="queued")
    opponent = store.bots.bot(match.seats[1])
    assert (opponent.source, opponent.owner) == ("builtin:random", "niwa")
    assert bot.id == match.seats[0]


def test_a_built_in_is_found_by_its_source_not_by_its_name(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    # A row named "random" that is not the built-in (an older ladder let owners take it).
    store.db.execute(
        "INSERT INTO bots (name, version, game, owner_id, source, archive_hash, status,"
        " created_at) VALUES ('random', '1', 'sakura', ?, 'archive', 'h', 'active', 0)",
        (owner.id,),
    )
    assert store.bots.find_builtin("builtin:random", "random", "1", "sakura") is None
    with pytest.raises(StoreError):  # the name is taken: never the impostor instead
        submission.builtin_bot(store, "random", "sakura")


def test_a_refused_manifest_stores_nothing(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    with pytest.raises(SubmissionError, match="'name' must be"):
        submission.submit(store, owner, named_archive("bad name", padding=100_000))
    assert stored_files(store) == []


def test_a_name_owned_by_another_is_refused_before_storing(store: Store) -> None:
    alice, _ = store.owners.add_owner("alice")
    bob, _ = store.owners.add_owner("bob")
    submission.submit(store, alice, named_archive("zen"))
    before = stored_files(store)
    with pytest.raises(SubmissionError, match="belongs to alice"):
        submission.submit(store, bob, named_archive("Zen", "2", padding=1000))
    assert stored_files(store) == before


def test_a_refusal_after_unpacking_removes_everything_it_wrote(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner, _ = store.owners.add_owner("alice")

    def clash(*args: object, **kwargs: object) -> None:  # another upload took the name
        raise StoreError("bot name 'zen' belongs to bob: rename your bot")

    monkeypatch.setattr(store.bots, "add_bot", clash)
    with pytest.raises(SubmissionError, match="belongs to bob"):
        submission.submit(store, owner, named_archive("zen", padding=1000))
    assert stored_files(store) == []


def test_a_refused_resubmission_keeps_the_files_of_the_bot_stored_from_them(
    store: Store,
) -> None:
    owner, _ = store.owners.add_owner("alice")
    submission.submit(store, owner, bot_archive())
    before = stored_files(store)
    with pytest.raises(SubmissionError, match="raise the version"):
        submission.submit(store, owner, bot_archive())
    assert stored_files(store) == before and len(before) == 2


def test_the_version_quota_is_named_when_reached(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    submission.set_quota(store, versions=1)
    submission.submit(store, owner, named_archive("zen", "1"))
    with pytest.raises(SubmissionError, match=r"1 bot versions, the quota .*--quota-versions"):
        submission.submit(store, owner, named_archive("zen", "2"))


def test_the_archive_bytes_quota_is_named_when_reached(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    submission.set_quota(store, archive_bytes=30_000)
    submission.submit(store, owner, named_archive("zen", "1", padding=20_000))
    with pytest.raises(SubmissionError, match=r"quota of this ladder \(30000 bytes\)"):
        submission.submit(store, owner, named_archive("zen", "2", padding=20_000))
    assert len(stored_files(store)) == 2


def test_admins_have_no_quota(store: Store) -> None:
    admin, _ = store.owners.add_owner("root", admin=True)
    submission.set_quota(store, versions=0)
    assert submission.submit(store, admin, named_archive("zen"))


def test_start_up_removes_what_interrupted_uploads_left(store: Store) -> None:
    owner, _ = store.owners.add_owner("alice")
    (bot,) = submission.submit(store, owner, bot_archive())
    bots, archives = store.data_dir / "bots", store.data_dir / "archives"
    (bots / ".unpack-abc" / "unpacked").mkdir(parents=True)
    (archives / f".{'f' * 64}.tar.gz.123.part").write_bytes(b"half")
    (bots / ("e" * 64)).mkdir()  # renamed into place, then killed before its row
    (archives / f"{'e' * 64}.tar.gz").write_bytes(b"whole")
    removed = submission.clean_leftovers(store)
    assert len(removed) == 4
    assert stored_files(store) == sorted(
        [f"archives/{bot.archive_hash}.tar.gz", f"bots/{bot.archive_hash}"]
    )
