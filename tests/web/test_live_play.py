"""``niwa play --web`` refusing what it cannot serve, in one line naming the fix."""

from __future__ import annotations

import socket

import pytest

from niwa.cli import main


def test_a_web_address_in_use_is_a_usage_error_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:greedy",
                     "--in-process", "--quiet", "--web", f"127.0.0.1:{port}"])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert f"--web 127.0.0.1:{port}: cannot serve the match's page on 127.0.0.1:{port}" in err
