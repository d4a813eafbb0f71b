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


def test_ctrl_c_between_the_result_and_the_serving_stops_the_page_and_keeps_the_status(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a Ctrl-C a moment too early (as a viewer sees the full replay, before the command
    # serves it) once left the page's server thread running, and the process never ended
    from niwa.commands import play
    from niwa.web import live_local

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    pages: list[live_local.LocalPage] = []
    monkeypatch.setattr(play, "print_result", interrupted)
    opened = play.web_page
    monkeypatch.setattr(play, "web_page", lambda *a: pages.append(opened(*a)) or pages[-1])
    code = main(["play", "blossom", "--bot", "builtin:random", "--bot", "builtin:greedy",
                 "--in-process", "--quiet", "--web", "127.0.0.1:0"])  # fmt: skip
    assert code == 0
    assert len(pages) == 1 and not pages[0].thread.is_alive()
    assert "live: http://127.0.0.1:" in capsys.readouterr().out
