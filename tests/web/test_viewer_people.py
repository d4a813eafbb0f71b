"""The viewer for people, in Chromium on offline pages of real matches: the playback
controls (scrubber, speed, touch swipe), the score chart, words instead of ids, the
end-of-game table with its tie-break, one failure line per seat, and no text drawn over
other text at a desktop's and a phone's window size."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.interaction import POINTER_TOUCH
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

from niwa.referee import replay as replays
from tests.polling import PATIENCE_S
from tests.web.browser import console_errors
from tests.web.layout import overlaps, reset_viewport, texts, viewport
from tests.web.matches import GAMES, forged_page, play
from tests.web.test_viewer_browser import current, open_viewer

#: A desktop's and a phone's layout viewport (CSS px).
SIZES = ((1280, 800), (390, 844))
#: Ids as the rules data spell them: Sakura's card actions, Bonsai's card kinds and goal
#: tiles, and a move as raw JSON.
ID_LIKE = re.compile(
    r"\b[A-Z]+(?:_[A-Z0-9]+)+\b|\b(?:tool|growth|master|helper|parchment):[a-z]|"
    r"\b(?:brown|green|orange|pink|blue)-(?:low|mid|high)\b|\{\""
)
#: A three-seat Blossom match (random, greedy, random) whose seats 0 and 2 tie on
#: points and fewer cards in hand and yard puts seat 2 ahead.
TIE_SEED = 17



@pytest.fixture
def sized(browser: webdriver.Chrome) -> Iterator[webdriver.Chrome]:
    """The browser, its viewport set back to the window's after the test."""
    try:
        yield browser
    finally:
        reset_viewport(browser)


def steps_of(replay: Path) -> int:
    return len(replays.read(replay).steps)


def go(browser: webdriver.Chrome, step: int, seat: int | None = None) -> None:
    where = f"step={step}" + ("" if seat is None else f"&seat={seat}")
    browser.execute_script("location.hash = arguments[0]", where)
    browser.execute_script("window.dispatchEvent(new HashChangeEvent('hashchange'))")


def test_the_scrubber_shows_the_step_it_is_moved_to(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay, page = pages["blossom"]
    open_viewer(browser, page)
    scrubber = browser.find_element(By.CSS_SELECTOR, ".nv-scrubber")
    scrubber.send_keys(*[Keys.ARROW_RIGHT] * 5)
    assert current(browser) == (5, None)
    assert browser.find_element(By.CSS_SELECTOR, ".nv-jump").get_attribute("value") == "5"
    scrubber.send_keys(Keys.END)
    assert current(browser)[0] == steps_of(replay)
    assert console_errors(browser) == []


def test_the_speed_control_sets_the_play_interval_also_while_playing(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    _, page = pages["miyabi"]
    open_viewer(browser, page)
    speed = Select(browser.find_element(By.CSS_SELECTOR, ".nv-speed"))
    speed.select_by_value("4")
    state = browser.execute_script("return window.niwaViewer.state")
    assert (state["speed"], state["interval"]) == (4, 100)
    browser.find_element(By.CSS_SELECTOR, ".nv-play").click()
    assert browser.execute_script("return window.niwaViewer.state.timer") is not None
    speed.select_by_value("0.5")
    state = browser.execute_script("return window.niwaViewer.state")
    assert (state["speed"], state["interval"], state["timer"] is not None) == (0.5, 800, True)
    browser.find_element(By.CSS_SELECTOR, ".nv-play").click()
    assert browser.execute_script("return window.niwaViewer.state.timer") is None
    assert console_errors(browser) == []


def test_the_plus_and_minus_keys_change_the_speed_one_notch(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    _, page = pages["bonsai"]
    open_viewer(browser, page)
    root = browser.find_element(By.CSS_SELECTOR, ".niwa-viewer")
    root.send_keys("+", "+")
    assert browser.execute_script("return window.niwaViewer.state.speed") == 4
    root.send_keys("-", "-", "-", "-")
    assert browser.execute_script("return window.niwaViewer.state.speed") == 0.5


def test_a_touch_swipe_left_across_the_board_steps_forward_and_right_steps_back(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    _, page = pages["sakura"]
    open_viewer(browser, page, "#step=10")
    board = browser.find_element(By.CSS_SELECTOR, ".nv-board")  # kept; its svg is redrawn
    browser.execute_script("arguments[0].scrollIntoView()", board)

    def swipe(dx: int) -> None:
        finger = PointerInput(POINTER_TOUCH, "finger")
        actions = ActionBuilder(browser, mouse=finger)
        actions.pointer_action.move_to(board, -dx // 2, 0).pointer_down()
        actions.pointer_action.move_to(board, dx // 2, 0).pointer_up()
        actions.perform()

    swipe(-120)
    assert current(browser)[0] == 11
    swipe(120)
    swipe(120)
    assert current(browser)[0] == 9
    assert console_errors(browser) == []


@pytest.mark.parametrize("game", GAMES)
def test_the_score_chart_has_a_line_per_seat_and_reads_the_final_scores_at_the_end(
    game: str, browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay_path, page = pages[game]
    replay = replays.read(replay_path)
    open_viewer(browser, page, f"#step={len(replay.steps)}")
    lines = browser.find_elements(By.CSS_SELECTOR, ".nv-chart polyline.nv-score-line")
    assert len(lines) == replay.header.players
    assert all(len(str(line.get_attribute("points")).split()) > 1 for line in lines)
    legend = browser.find_elements(By.CSS_SELECTOR, ".nv-legend-score")
    assert replay.result is not None
    assert [float(e.text) for e in legend] == list(replay.result.scores)
    assert console_errors(browser) == []


@pytest.mark.parametrize("game", GAMES)
def test_no_id_like_token_is_visible_at_any_shown_step(
    game: str, browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay, page = pages[game]
    last = steps_of(replay)
    players = replays.read(replay).header.players
    open_viewer(browser, page)
    seen = []
    for step in range(0, last + 1, max(1, last // 12)):
        for seat in (None, *range(players)):
            go(browser, step, seat)
            assert current(browser) == (step, seat)
            seen += [(step, seat, t[0]) for t in texts(browser, ".niwa-viewer")
                     if ID_LIKE.search(t[0])]  # fmt: skip
    assert seen == []


def test_sakura_cards_read_as_what_they_do(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay, page = pages["sakura"]
    open_viewer(browser, page, f"#step={steps_of(replay) // 2}&seat=0")
    cards = browser.find_elements(By.CSS_SELECTOR, ".nv-board svg g.card")
    assert cards
    shown = " ".join(c.text for c in cards)
    assert "garden: " in shown and "painter: " in shown
    assert re.search(r"Emperor|painter (forward|back)", shown)


def test_a_tie_shows_the_breakdown_and_the_sentence_that_decided_it(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    page = tmp_path / "tie.html"
    replay = play("blossom", tmp_path, seed=TIE_SEED, seats=3, html=page)
    result = replays.read(replay).result
    assert result is not None and result.scores[0] == result.scores[2]  # the scripted tie
    open_viewer(browser, page, f"#step={steps_of(replay)}")
    table = browser.find_element(By.CSS_SELECTOR, ".nv-moves .nv-breakdown")
    rows = [r.text for r in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert rows[0].startswith("points") and rows[-1].startswith("place")
    assert any(r.startswith("cards in hand and yard") for r in rows)
    rule = table.find_element(By.CSS_SELECTOR, ".nv-tie-rule").text
    assert "fewer cards in hand and yard" in rule
    score = int(result.scores[0])
    tie = table.find_element(By.CSS_SELECTOR, ".nv-tie-break").text
    assert tie.startswith(f"Seat 0 and seat 2 tied on {score} points; fewer cards in hand")
    assert tie.endswith("so seat 2 2nd, seat 0 3rd.")
    go(browser, 3)
    assert browser.find_elements(By.CSS_SELECTOR, ".nv-breakdown") == []  # the end only
    assert console_errors(browser) == []


def test_a_seat_that_failed_many_times_has_one_summary_line(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]], tmp_path: Path
) -> None:
    replay_path, _ = pages["bonsai"]
    lines = replay_path.read_text().splitlines()
    ok = ('"kind":"decision"', '"seat":1,', '"status":"OK"')
    seat1 = [i for i, line in enumerate(lines) if all(part in line for part in ok)]
    failed = seat1[5:21]
    for i in failed:
        lines[i] = lines[i].replace('"status":"OK"', '"status":"TIMEOUT"', 1)
    page = forged_page(lines, tmp_path, "failures")
    open_viewer(browser, page)
    summaries = browser.find_elements(By.CSS_SELECTOR, ".nv-failures .nv-failure-seat")
    assert [s.get_attribute("data-seat") for s in summaries] == ["1"]
    link = summaries[0].find_element(By.CSS_SELECTOR, "a.nv-failure")
    assert link.text == f"TIMEOUT ×{len(failed)}"
    link.click()
    # the step follows the link's hash, which the page hears a moment after the click
    WebDriverWait(browser, PATIENCE_S).until(lambda d: current(d)[0] == failed[0] - 1)
    assert console_errors(browser) == []


def test_the_overlap_check_names_two_texts_drawn_on_each_other(browser: webdriver.Chrome) -> None:
    browser.get("data:text/html,<p id=a>first words</p>"
                "<p style='margin-top:-1.2em;margin-left:1em'>second words</p><p>apart</p>")
    found = overlaps(texts(browser))
    assert len(found) == 1 and "'first words' overlaps 'second words'" in found[0]


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("game", GAMES)
def test_no_text_overlaps_other_text(
    game: str, width: int, height: int, sized: webdriver.Chrome,
    pages: dict[str, tuple[Path, Path]],
) -> None:
    replay, page = pages[game]
    last = steps_of(replay)
    viewport(sized, width, height)
    open_viewer(sized, page)
    found = []
    for step in (0, last // 3, 2 * last // 3, last):
        for seat in (None, 0):
            go(sized, step, seat)
            assert current(sized) == (step, seat)
            found += [f"step {step}, seat {seat}: {o}" for o in overlaps(texts(sized))]
    assert found == []
    assert console_errors(sized) == []
