"""Submitted archives are untrusted: every escape is refused with its reason."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from ladder import archive
from ladder.archive import ArchiveError, Limits

MANIFEST = b'name = "x"\nversion = "1"\n'


def tar_of(*entries: tarfile.TarInfo | tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tar.addfile(entry)
            else:
                name, data = entry
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def special(name: str, kind: bytes, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


def test_a_plain_bot_folder_is_accepted_at_the_root() -> None:
    assert archive.check(tar_of(("bot.toml", MANIFEST), ("main.py", b"pass"))) == ""


def test_a_bot_inside_one_top_folder_is_accepted() -> None:
    assert archive.check(tar_of(("mybot/bot.toml", MANIFEST))) == "mybot"


def test_an_archive_without_a_manifest_is_refused() -> None:
    with pytest.raises(ArchiveError, match=r"no bot\.toml"):
        archive.check(tar_of(("main.py", b"pass")))


def test_dot_dot_in_a_path_is_refused() -> None:
    with pytest.raises(ArchiveError, match=r"outside the bot's folder \(\.\.\)"):
        archive.check(tar_of(("bot.toml", MANIFEST), ("../evil.py", b"x")))


def test_dot_dot_hidden_inside_a_path_is_refused() -> None:
    with pytest.raises(ArchiveError, match="outside"):
        archive.check(tar_of(("bot.toml", MANIFEST), ("a/../../evil.py", b"x")))


def test_an_absolute_path_is_refused() -> None:
    with pytest.raises(ArchiveError, match="absolute path"):
        archive.check(tar_of(("bot.toml", MANIFEST), ("/etc/cron.d/evil", b"x")))


def test_a_symlink_pointing_out_is_refused() -> None:
    link = special("data", tarfile.SYMTYPE, "../../etc")
    with pytest.raises(ArchiveError, match="link 'data' points outside"):
        archive.check(tar_of(("bot.toml", MANIFEST), link))


def test_an_absolute_symlink_is_refused() -> None:
    link = special("passwd", tarfile.SYMTYPE, "/etc/passwd")
    with pytest.raises(ArchiveError, match="absolute path"):
        archive.check(tar_of(("bot.toml", MANIFEST), link))


def test_a_symlink_staying_inside_is_accepted() -> None:
    link = special("lib/current", tarfile.SYMTYPE, "../main.py")
    assert archive.check(tar_of(("bot.toml", MANIFEST), ("main.py", b""), link)) == ""


def test_a_hard_link_out_is_refused() -> None:
    link = special("x", tarfile.LNKTYPE, "../outside")
    with pytest.raises(ArchiveError, match="outside"):
        archive.check(tar_of(("bot.toml", MANIFEST), link))


def test_a_device_file_is_refused() -> None:
    with pytest.raises(ArchiveError, match="device file"):
        archive.check(tar_of(("bot.toml", MANIFEST), special("sda", tarfile.BLKTYPE)))


def test_a_fifo_is_refused() -> None:
    with pytest.raises(ArchiveError, match="FIFO"):
        archive.check(tar_of(("bot.toml", MANIFEST), special("pipe", tarfile.FIFOTYPE)))


def test_too_many_files_are_refused() -> None:
    files = [(f"f{i}", b"") for i in range(5)]
    with pytest.raises(ArchiveError, match="more than 4 entries"):
        archive.check(tar_of(("bot.toml", MANIFEST), *files), Limits(files=4))


def test_an_archive_over_the_size_limit_is_refused() -> None:
    data = tar_of(("bot.toml", MANIFEST))
    with pytest.raises(ArchiveError, match="over the limit"):
        archive.check(data, Limits(archive_bytes=len(data) - 1))


def test_content_over_the_unpacked_limit_is_refused() -> None:
    # 1 MB of zeros compresses to almost nothing: the declared sizes are what count.
    data = tar_of(("bot.toml", MANIFEST), ("zeros", bytes(1_000_000)))
    with pytest.raises(ArchiveError, match="unpacks to more than"):
        archive.check(data, Limits(unpacked_bytes=500_000))


def test_garbage_is_not_an_archive() -> None:
    with pytest.raises(ArchiveError, match="not a tar"):
        archive.check(b"PK\x03\x04 not really")


def test_pack_then_unpack_gives_back_the_folder(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.toml").write_bytes(MANIFEST)
    (bot / "lib" / "play.py").write_text("print('hi')\n")
    unpacked = archive.unpack(archive.pack_directory(bot), tmp_path / "out")
    assert (unpacked / "lib" / "play.py").read_text() == "print('hi')\n"


def test_packing_is_reproducible(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_bytes(MANIFEST)
    first = archive.pack_directory(tmp_path)
    (tmp_path / "bot.toml").touch()  # a new mtime must not change the archive
    assert archive.pack_directory(tmp_path) == first


def test_packing_a_folder_without_manifest_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match=r"has no bot\.toml"):
        archive.pack_directory(tmp_path)


def test_unpacked_files_are_readable_by_the_sandbox_user_and_writable_by_none(
    tmp_path: Path,
) -> None:
    secret = tarfile.TarInfo("bot.toml")
    secret.size = len(MANIFEST)
    secret.mode = 0o4777  # set-uid and world-writable in the archive
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.addfile(secret, io.BytesIO(MANIFEST))
    folder = archive.unpack(buffer.getvalue(), tmp_path / "out")
    assert folder.stat().st_mode & 0o777 == 0o755
    assert (folder / "bot.toml").stat().st_mode & 0o7777 == 0o755
