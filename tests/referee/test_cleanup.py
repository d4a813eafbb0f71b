"""Removing a tree a bot may have written: no recursion, no link followed, no raise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from niwa.referee.cleanup import remove_tree


def nested(top: Path, depth: int) -> None:
    """``depth`` nested directories under ``top``, built with descriptors (the path
    soon passes PATH_MAX)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def test_3000_nested_directories_are_removed(tmp_path: Path) -> None:
    tree = tmp_path / "run"
    tree.mkdir()
    nested(tree, 3000)
    assert remove_tree(tree) is True
    assert not tree.exists()


def test_links_out_of_the_tree_are_removed_and_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "sentinel").write_text("keep me")
    tree = tmp_path / "run"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "to-dir").symlink_to(outside)
    (tree / "a" / "b" / "to-file").symlink_to(outside / "sentinel")
    (tree / "a" / "b" / "to-parent").symlink_to("../../..")
    (tree / "file").write_text("x")
    assert remove_tree(tree) is True
    assert not tree.exists()
    assert (outside / "sentinel").read_text() == "keep me"


def test_a_link_given_as_the_tree_itself_is_removed_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "sentinel").write_text("keep me")
    (tmp_path / "run").symlink_to(outside)
    assert remove_tree(tmp_path / "run") is True
    assert (outside / "sentinel").read_text() == "keep me"


def test_a_missing_tree_counts_as_removed(tmp_path: Path) -> None:
    assert remove_tree(tmp_path / "never-made") is True


@pytest.mark.skipif(os.geteuid() == 0, reason="root may remove anything")
def test_what_cannot_be_removed_is_logged_not_raised(tmp_path: Path) -> None:
    tree = tmp_path / "run"
    (tree / "locked").mkdir(parents=True)
    (tree / "locked" / "f").write_text("x")
    (tree / "locked").chmod(0o500)
    try:
        assert remove_tree(tree) is False
        assert (tree / "locked" / "f").exists()
    finally:
        (tree / "locked").chmod(0o700)


def test_a_tree_whose_parent_is_gone_is_logged_not_raised(tmp_path: Path) -> None:
    assert remove_tree(tmp_path / "no-parent" / "run") is False
