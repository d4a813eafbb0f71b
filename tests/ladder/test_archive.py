"""Submitted archives are untrusted: every escape and every bomb is refused with its
reason, and nothing is ever written outside the destination."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from niwa.ladder import archive, unpack
from niwa.ladder.archive import ArchiveError, ArchiveLimits

MANIFEST = b'name = "x"\nversion = "1"\n'
MIB = 1024 * 1024


def tar_of(
    *entries: tarfile.TarInfo | tuple[str, bytes], fmt: int = tarfile.PAX_FORMAT
) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=fmt) as tar:
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


def raw_header(name: bytes, size: int, kind: bytes, mode: int = 0o644) -> bytes:
    """One ustar header block, by hand (tarfile will not write a lying one)."""
    h = bytearray(512)
    h[0 : len(name)] = name
    h[100:108] = b"%07o\0" % mode
    h[108:124] = b"0000000\0" * 2
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = kind
    h[257:265] = b"ustar\x0000"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def header_bomb(kind: bytes, claimed: int = 512 * MIB) -> bytes:
    """A ~0.5 MB gzip whose first header claims ``claimed`` bytes of content, really
    there (one gzip member of 1 MiB of zeros, repeated)."""
    member = gzip.compress(bytes(MIB), 9)
    return gzip.compress(raw_header(b"././@LongLink", claimed, kind), 9) + member * (
        claimed // MIB
    )


@pytest.fixture
def sentinel(tmp_path: Path) -> Path:
    """A file beside the destination that no archive may touch."""
    path = tmp_path / "sentinel"
    path.write_text("untouched")
    return path


def assert_untouched(sentinel: Path, *allowed: str) -> None:
    assert sentinel.read_text() == "untouched"
    assert sorted(p.name for p in sentinel.parent.iterdir()) == sorted(["sentinel", *allowed])


# Accepted archives ---------------------------------------------------------------


def test_a_plain_bot_folder_is_accepted_at_the_root() -> None:
    found = archive.scan(tar_of(("bot.toml", MANIFEST), ("main.py", b"pass")))
    assert (found.root, found.manifest, found.files) == ("", MANIFEST.decode(), 2)


def test_a_bot_inside_one_top_folder_is_accepted() -> None:
    assert archive.scan(tar_of(("mybot/bot.toml", MANIFEST))).root == "mybot"


@pytest.mark.parametrize(
    "fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT], ids=str
)
def test_long_names_of_every_tar_format_are_read_right(fmt: int, tmp_path: Path) -> None:
    deep = "/".join(["folder-" + "n" * 40] * 3) + "/" + "f" * 90 + ".py"
    data = tar_of(("bot.toml", MANIFEST), (deep, b"print()"), fmt=fmt)
    archive.extract(data, tmp_path / "out")
    assert (tmp_path / "out" / deep).read_bytes() == b"print()"


def test_a_multi_member_gzip_is_read_to_its_end(tmp_path: Path) -> None:
    raw = gzip.decompress(tar_of(("bot.toml", MANIFEST), ("a.py", b"1" * 3000)))
    data = gzip.compress(raw[:1024]) + gzip.compress(raw[1024:])
    archive.extract(data, tmp_path / "out")
    assert (tmp_path / "out" / "a.py").read_bytes() == b"1" * 3000


def test_an_uncompressed_tar_is_accepted() -> None:
    data = gzip.decompress(tar_of(("bot.toml", MANIFEST)))
    assert archive.scan(data).manifest == MANIFEST.decode()


def test_pack_then_extract_gives_back_the_folder(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "bot.toml").write_bytes(MANIFEST)
    (bot / "lib" / "play.py").write_text("print('hi')\n")
    archive.extract(archive.pack_directory(bot), tmp_path / "out")
    assert (tmp_path / "out" / "lib" / "play.py").read_text() == "print('hi')\n"


def test_packing_is_reproducible(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_bytes(MANIFEST)
    first = archive.pack_directory(tmp_path)
    (tmp_path / "bot.toml").touch()  # a new mtime must not change the archive
    assert archive.pack_directory(tmp_path) == first


def test_packing_a_folder_without_manifest_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match=r"has no bot\.toml"):
        archive.pack_directory(tmp_path)


def test_packing_a_folder_with_a_link_out_names_the_link(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_bytes(MANIFEST)
    (tmp_path / "data").symlink_to("/etc/passwd")
    with pytest.raises(ArchiveError, match="data is a link to something other than a file"):
        archive.pack_directory(tmp_path)


def test_packing_a_link_to_a_file_inside_packs_a_copy(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.toml").write_bytes(MANIFEST)
    (bot / "run").symlink_to("bot.toml")
    archive.extract(archive.pack_directory(bot), tmp_path / "out")
    assert (tmp_path / "out" / "run").read_bytes() == MANIFEST
    assert not (tmp_path / "out" / "run").is_symlink()


def test_extracted_files_are_readable_by_all_and_writable_by_the_ladder_only(
    tmp_path: Path,
) -> None:
    manifest = tarfile.TarInfo("bot.toml")
    manifest.size = len(MANIFEST)
    manifest.mode = 0o4777  # set-uid and world-writable in the archive
    program = tarfile.TarInfo("lib/run")
    program.mode = 0o6775
    folder = special("lib", tarfile.DIRTYPE)
    folder.mode = 0o777
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.addfile(manifest, io.BytesIO(MANIFEST))
        tar.addfile(folder)
        tar.addfile(program, io.BytesIO(b""))
    out = tmp_path / "out"
    archive.extract(buffer.getvalue(), out)
    assert out.stat().st_mode & 0o7777 == 0o755
    assert (out / "lib").stat().st_mode & 0o7777 == 0o755
    assert (out / "bot.toml").stat().st_mode & 0o7777 == 0o755
    assert (out / "lib" / "run").stat().st_mode & 0o7777 == 0o755
    assert (out / "bot.toml").stat().st_uid == os.getuid()


def test_extracting_into_an_existing_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    with pytest.raises(FileExistsError):
        archive.extract(tar_of(("bot.toml", MANIFEST)), tmp_path / "out")


# Paths ---------------------------------------------------------------------------


def test_an_archive_without_a_manifest_is_refused() -> None:
    with pytest.raises(ArchiveError, match=r"no bot\.toml"):
        archive.scan(tar_of(("main.py", b"pass")))


def test_dot_dot_in_a_path_is_refused(tmp_path: Path, sentinel: Path) -> None:
    data = tar_of(("bot.toml", MANIFEST), ("../sentinel", b"x"))
    with pytest.raises(ArchiveError, match=r"outside the bot's folder \(\.\.\)"):
        archive.extract(data, tmp_path / "out")
    assert_untouched(sentinel)


def test_dot_dot_hidden_inside_a_path_is_refused() -> None:
    with pytest.raises(ArchiveError, match="outside"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("a/../../evil.py", b"x")))


def test_an_absolute_path_is_refused() -> None:
    with pytest.raises(ArchiveError, match="absolute path"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("/etc/cron.d/evil", b"x")))


def test_a_pax_path_with_a_nul_byte_is_refused() -> None:
    info = tarfile.TarInfo("x")
    info.pax_headers = {"path": "bot.toml\0/../../etc/passwd"}
    with pytest.raises(ArchiveError, match="NUL byte"):
        archive.scan(tar_of(("bot.toml", MANIFEST), info))


@pytest.mark.parametrize("name", ["a\nb.py", "x\x1b[2J.py", "d\x7f/f", "c1\x85.py"])
def test_a_path_with_a_control_character_is_refused(name: str) -> None:
    with pytest.raises(ArchiveError, match="control character"):
        archive.scan(tar_of(("bot.toml", MANIFEST), (name, b"x")))


def test_a_path_over_the_length_limit_is_refused() -> None:
    long = "/".join(["d" * 200] * 6) + "/f"  # 1207 bytes, through a PAX header
    with pytest.raises(ArchiveError, match="over the limit of 1024"):
        archive.scan(tar_of(("bot.toml", MANIFEST), (long, b"")))


def test_a_path_over_the_depth_limit_is_refused() -> None:
    with pytest.raises(ArchiveError, match="33 folders deep, over the limit of 32"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("a/" * 32 + "f", b"")))


def test_a_name_over_255_bytes_is_refused() -> None:
    with pytest.raises(ArchiveError, match="name over the limit of 255 bytes"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("é" * 130, b"")))


def test_a_file_named_twice_is_refused() -> None:
    with pytest.raises(ArchiveError, match=r"'\./bot\.toml' appears twice"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("./bot.toml", b'name = "evil"')))


def test_a_folder_named_twice_is_refused() -> None:
    lib = special("lib", tarfile.DIRTYPE)
    with pytest.raises(ArchiveError, match="'lib/' appears twice"):
        archive.scan(tar_of(("bot.toml", MANIFEST), lib, lib))


def test_an_entry_inside_a_file_is_refused() -> None:
    with pytest.raises(ArchiveError, match="inside 'lib', which is a file"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("lib", b""), ("lib/x", b"")))


def test_a_file_over_a_folder_of_entries_is_refused() -> None:
    with pytest.raises(ArchiveError, match="'lib' is a file but also holds other entries"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("lib/x", b""), ("lib", b"")))


# Entry types: only files and folders -----------------------------------------------


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        (tarfile.SYMTYPE, "a symbolic link"),
        (tarfile.LNKTYPE, "a hard link"),
        (tarfile.CHRTYPE, "a character device"),
        (tarfile.BLKTYPE, "a block device"),
        (tarfile.FIFOTYPE, "a FIFO"),
        (tarfile.CONTTYPE, "a contiguous file"),
        (tarfile.GNUTYPE_SPARSE, "a GNU sparse file"),
        (b"V", "a GNU volume label"),
        (b"Z", "unknown type b'Z'"),
    ],
    ids=lambda v: repr(v),
)
def test_every_entry_type_but_files_and_folders_is_refused_by_name(
    kind: bytes, what: str
) -> None:
    entry = special("lib/thing", kind, "main.py")
    with pytest.raises(ArchiveError, match=f"entry 'lib/thing' (is|has) {what}"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("main.py", b""), entry))


def test_a_symlink_staying_inside_is_refused_too() -> None:
    link = special("lib/current", tarfile.SYMTYPE, "../main.py")
    with pytest.raises(ArchiveError, match="is a symbolic link"):
        archive.scan(tar_of(("bot.toml", MANIFEST), ("main.py", b""), link))


def test_a_pax_sparse_file_is_refused() -> None:
    info = tarfile.TarInfo("data")
    info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0"}
    with pytest.raises(ArchiveError, match="'data' is a GNU sparse file"):
        archive.scan(tar_of(("bot.toml", MANIFEST), info))


def test_a_global_pax_header_setting_paths_is_refused() -> None:
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT, pax_headers={"path": "../x"}
    ) as tar:
        info = tarfile.TarInfo("bot.toml")
        info.size = len(MANIFEST)
        tar.addfile(info, io.BytesIO(MANIFEST))
    with pytest.raises(ArchiveError, match="global PAX header"):
        archive.scan(buffer.getvalue())


def test_a_symlink_chain_past_path_max_writes_nothing(tmp_path: Path, sentinel: Path) -> None:
    """The CVE-2025-4517 shape: folders with long names and a chain of links whose
    resolved path overflows PATH_MAX, then a link out and a file written through it."""
    entries: list[tarfile.TarInfo | tuple[str, bytes]] = [("bot.toml", MANIFEST)]
    component, path = "d" * 247, ""
    for step in "abcdefghijklmnop":
        entries.append(special(f"{path}{component}", tarfile.DIRTYPE))
        entries.append(special(f"{path}{step}", tarfile.SYMTYPE, component))
        path += component + "/"
    chain = "/".join("abcdefghijklmnop")
    entries.append(special(f"{chain}/{'l' * 254}", tarfile.SYMTYPE, "../" * 16))
    entries.append(special("escape", tarfile.SYMTYPE, f"{chain}/{'l' * 254}/../sentinel"))
    entries.append(("escape", b"overwritten"))
    data = tar_of(*entries)
    with pytest.raises(ArchiveError, match="is a symbolic link"):
        archive.extract(data, tmp_path / "out")
    with pytest.raises(ArchiveError, match="is a symbolic link"):
        unpack.extract(data, tmp_path / "out")
    assert_untouched(sentinel)


def test_a_hard_link_to_a_file_outside_writes_nothing(tmp_path: Path, sentinel: Path) -> None:
    data = tar_of(
        ("bot.toml", MANIFEST),
        special("h", tarfile.LNKTYPE, str(sentinel)),
        ("h", b"overwritten"),
    )
    with pytest.raises(ArchiveError, match="'h' is a hard link"):
        unpack.extract(data, tmp_path / "out")
    assert_untouched(sentinel)


# Sizes and bombs -------------------------------------------------------------------


def test_too_many_entries_are_refused() -> None:
    files = [(f"f{i}", b"") for i in range(5)]
    with pytest.raises(ArchiveError, match="more than 4 entries"):
        archive.scan(tar_of(("bot.toml", MANIFEST), *files), ArchiveLimits(files=4))


def test_an_archive_over_the_size_limit_is_refused() -> None:
    data = tar_of(("bot.toml", MANIFEST))
    with pytest.raises(ArchiveError, match="over the limit"):
        archive.scan(data, ArchiveLimits(archive_bytes=len(data) - 1))


def test_one_file_over_the_unpacked_limit_is_refused_before_it_is_read() -> None:
    # 64 MiB of zeros gzips to 64 KB: the declared size is refused at its header.
    data = tar_of(("bot.toml", MANIFEST), ("zeros", bytes(64 * MIB)))
    with pytest.raises(ArchiveError, match=r"'zeros' .* unpack to more than 1048576 bytes"):
        archive.scan(data, ArchiveLimits(unpacked_bytes=MIB))


def test_files_adding_up_past_the_unpacked_limit_are_refused() -> None:
    files = [(f"f{i}", bytes(300_000)) for i in range(4)]
    with pytest.raises(ArchiveError, match=r"'f3' .* unpack to more than 1048576 bytes"):
        archive.scan(tar_of(("bot.toml", MANIFEST), *files), ArchiveLimits(unpacked_bytes=MIB))


def test_a_manifest_over_its_limit_is_refused() -> None:
    big = MANIFEST + b"#" * 70_000
    with pytest.raises(ArchiveError, match=r"'bot\.toml' is 70025 bytes, over the limit of 65536"):
        archive.scan(tar_of(("bot.toml", big)))


def test_a_gnu_long_name_bomb_is_refused_at_its_header() -> None:
    bomb = header_bomb(b"L")
    assert len(bomb) < 600_000
    with pytest.raises(ArchiveError, match="GNU long name of 536870912 bytes, over the limit"):
        archive.scan(bomb)


def test_a_pax_header_bomb_is_refused_at_its_header() -> None:
    with pytest.raises(ArchiveError, match="PAX header of 536870912 bytes, over the limit"):
        archive.scan(header_bomb(b"x"))


def test_a_header_bomb_costs_the_unpacking_process_little_memory() -> None:
    settings = json.dumps({"limits": {}, "child": {}})
    done = subprocess.run(
        [sys.executable, "-m", "niwa.ladder.unpack", settings, "scan"],
        input=header_bomb(b"L"),
        capture_output=True,
        check=False,
    )
    answer = json.loads(done.stdout)
    assert "GNU long name" in answer["error"]
    assert answer["peak_rss_kib"] < 100 * 1024


def test_long_names_and_pax_headers_together_are_bounded() -> None:
    files = [(f"{i:03d}-" + "n" * 150, b"") for i in range(20)]
    with pytest.raises(ArchiveError, match="more than 2048 bytes of long names and PAX"):
        archive.scan(tar_of(("bot.toml", MANIFEST), *files), ArchiveLimits(metadata_bytes=2048))


def test_a_gzip_bomb_after_the_end_of_the_archive_is_never_decompressed() -> None:
    data = tar_of(("bot.toml", MANIFEST)) + gzip.compress(bytes(64 * MIB))
    # Within limits this small, decompressing the tail would be refused.
    assert archive.scan(data, ArchiveLimits(unpacked_bytes=MIB)).root == ""


def test_garbage_is_not_an_archive() -> None:
    with pytest.raises(ArchiveError, match="not a tar"):
        archive.scan(b"PK\x03\x04 not really")


def test_a_truncated_archive_is_damaged() -> None:
    data = gzip.decompress(tar_of(("bot.toml", MANIFEST), ("a", bytes(5000))))
    with pytest.raises(ArchiveError, match="damaged"):
        archive.scan(data[:2048])


# The child process ----------------------------------------------------------------


def test_the_child_process_unpacks_like_the_library(tmp_path: Path) -> None:
    data = tar_of(("bot/bot.toml", MANIFEST), ("bot/a.py", b"x"))
    found = unpack.extract(data, tmp_path / "out")
    assert found.root == "bot"
    assert (tmp_path / "out" / "bot" / "a.py").read_bytes() == b"x"


def test_a_child_out_of_memory_comes_back_as_one_archive_error(tmp_path: Path) -> None:
    tight = unpack.ChildLimits(memory_bytes=32 * MIB)
    with pytest.raises(ArchiveError, match="32 MiB") as caught:
        unpack.inspect(tar_of(("bot.toml", MANIFEST)), child=tight)
    assert "\n" not in str(caught.value)
