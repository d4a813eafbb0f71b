"""What a bot was thinking, in Chromium: in each game, a local match of builtin:mcts
against builtin:random opened in the offline viewer shows a share bar on each of
mcts's legal actions and a value chart with one line for the seat that sent values
(with NIWA_WEB_SCREENSHOTS=DIR, screenshots go to DIR/<game>-thinking.png); on a served
ladder, the anonymous visitor's match page shows none of it, while the owner's copy of
the same replay (``niwa ladder replay --token``, then ``niwa replay html``) does."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from niwa.cli import main
from niwa.referee import replay as replays
from niwa.referee.replay import Replay
from niwa.web.replay_view import LEGAL_SHOWN
from tests.ladder.serving import wait_for
from tests.ladder.tiny_bots import THINKING_VALUE, cli, owner_tokens, talking_bot, write_bot
from tests.polling import PATIENCE_S
from tests.web.browser import console_errors, keep_screenshot
from tests.web.matches import GAMES
from tests.web.served import done_matches, start_web_ladder
from tests.web.test_viewer_browser import current, open_viewer

THINKING = ".nv-share, .nv-thinking, .nv-thinking-chart"


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Replay, Path]]:
    """Per game, a match of builtin:mcts (seat 0) against builtin:random (the other
    seats; Sakura has three), played locally: its replay and its offline page."""
    directory = tmp_path_factory.mktemp("thinking")
    out = {}
    for game in GAMES:
        path, html = directory / f"{game}.jsonl", directory / f"{game}.html"
        bots = ["--bot", "builtin:mcts?iterations=60"]
        bots += ["--bot", "builtin:random"] * (2 if game == "sakura" else 1)
        assert main(["play", game, "--in-process", "--quiet", "--seed", "3", *bots,
                     "--replay", str(path), "--html", str(html)]) == 0  # fmt: skip
        out[game] = (replays.read(path), html)
    return out


def open_every_list(browser: webdriver.Chrome) -> None:
    """Open each legal list of the step shown, and wait until each is filled (on the
    toggle event, after the call)."""
    opened = browser.find_elements(By.CSS_SELECTOR, ".nv-moves details")
    for details in opened:
        browser.execute_script("arguments[0].open = true", details)
    WebDriverWait(browser, PATIENCE_S).until(
        lambda b: len(b.find_elements(By.CSS_SELECTOR, ".nv-legal")) == len(opened)
    )


def widest_thinking(r: Replay) -> tuple[int, int]:
    """The step of mcts's widest decision that it searched, and its legal count."""
    return max(
        ((s.index, len(m.thinking.shares)) for s in r.steps for m in s.moves
         if m.thinking is not None and len(m.thinking.shares) > 1),
        key=lambda pair: pair[1],
    )  # fmt: skip


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_shows_a_share_bar_on_each_legal_action(
    game: str, browser: webdriver.Chrome, local: dict[str, tuple[Replay, Path]],
    tmp_path: Path,
) -> None:
    r, html = local[game]
    step, legal = widest_thinking(r)
    open_viewer(browser, html, f"#step={step}")
    assert current(browser) == (step, None)
    open_every_list(browser)
    bars = browser.find_elements(By.CSS_SELECTOR, ".nv-legal li .nv-share")
    assert len(bars) == min(legal, LEGAL_SHOWN)
    shares = [float(str(b.get_attribute("data-share"))) for b in bars]
    assert 0.5 < sum(shares) <= 1 + 1e-3  # past 200 actions, some are not shown
    fills = browser.find_elements(By.CSS_SELECTOR, ".nv-legal .nv-share-fill")
    widths = [float(str(f.get_attribute("width"))) for f in fills]
    assert max(widths) > 0 and widths.index(max(widths)) == shares.index(max(shares))
    png = browser.find_element(By.CSS_SELECTOR, ".niwa-viewer").screenshot_as_png
    keep_screenshot(png, tmp_path / f"{game}-thinking.png")
    assert console_errors(browser) == []


@pytest.mark.parametrize("game", GAMES)
def test_the_value_chart_has_one_line_for_the_seat_that_sent_values(
    game: str, browser: webdriver.Chrome, local: dict[str, tuple[Replay, Path]]
) -> None:
    r, html = local[game]
    open_viewer(browser, html)
    lines = browser.find_elements(By.CSS_SELECTOR, ".nv-thinking-chart .nv-value-line")
    assert [line.get_attribute("data-seat") for line in lines] == ["0"]
    valued = sum(1 for s in r.steps for m in s.moves if m.thinking and m.thinking.values)
    assert valued > 1 and lines[0].get_attribute("data-points") == str(valued)
    chart = browser.find_element(By.CSS_SELECTOR, ".nv-thinking-chart")
    assert chart.size["width"] > 200 and chart.size["height"] > 50
    assert lines[0].size["width"] > 100
    assert console_errors(browser) == []


def test_the_value_chart_marks_the_step_shown(
    browser: webdriver.Chrome, local: dict[str, tuple[Replay, Path]]
) -> None:
    _, html = local["blossom"]
    open_viewer(browser, html)
    marker = browser.find_element(By.CSS_SELECTOR, ".nv-thinking-chart .nv-value-step")
    first = marker.get_attribute("x1")
    browser.execute_script("window.niwaViewer.show(20)")
    assert float(str(marker.get_attribute("x1"))) > float(str(first))


def test_a_match_without_thinking_draws_no_bars_and_no_chart(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    html = tmp_path / "plain.html"
    assert main(["play", "blossom", "--in-process", "--quiet", "--seed", "3",
                 "--bot", "builtin:greedy", "--bot", "builtin:random",
                 "--html", str(html)]) == 0  # fmt: skip
    open_viewer(browser, html, "#step=20")
    assert browser.find_elements(By.CSS_SELECTOR, THINKING) == []


def test_the_anonymous_ladder_page_has_no_thinking_and_the_owners_copy_has(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    db = tmp_path / "ladder.db"
    token = owner_tokens(db, admins=(), owners=("alice",))["alice"]
    proc, address, web = start_web_ladder(
        db, tmp_path / "ladder.log", "--game", "blossom", "--sparring", "builtin:random",
        "--workers", "1", "--seed", "5",
    )  # fmt: skip
    try:
        bot = write_bot(tmp_path, "thinker", "1.0.0",
                        talking_bot("thinker", "err", "note", "debug", thinking=True))
        code, out = cli("ladder", "submit", str(bot), "--server", address, "--token", token)
        assert code == 0 and "accepted" in out, out
        match_id = wait_for("a match", lambda: done_matches(web, "blossom", "thinker"))[0]

        browser.delete_network_conditions()  # the offline viewer's tests cut it
        browser.get(f"{web}/matches/{match_id}")
        WebDriverWait(browser, PATIENCE_S).until(
            lambda d: d.execute_script("return !!window.niwaViewer")
        )
        for step in range(0, 30, 3):
            browser.execute_script("window.niwaViewer.show(arguments[0])", step)
            open_every_list(browser)
            assert browser.find_elements(By.CSS_SELECTOR, THINKING) == []
        assert str(THINKING_VALUE) not in browser.page_source
        assert console_errors(browser) == []

        own, html = tmp_path / "own.jsonl", tmp_path / "own.html"
        assert cli("ladder", "replay", str(match_id), "--server", address,
                   "--token", token, "-o", str(own))[0] == 0  # fmt: skip
        assert cli("replay", "html", str(own), "-o", str(html))[0] == 0
        open_viewer(browser, html)
        assert len(browser.find_elements(By.CSS_SELECTOR, ".nv-value-line")) == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
