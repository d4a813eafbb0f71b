"""The offline viewer in Chromium, one real match per game: the page opens from
file:// with the network cut, the keys step through the match, the seat selector
switches views, and the numbers drawn in the SVG are the engine's observation for that
seat at that step; no console error, and a screenshot that is not blank.

With NIWA_WEB_SCREENSHOTS=DIR the screenshots are also copied to DIR/<game>-viewer.png
(docs/web/ holds the ones the docs show)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.wait import WebDriverWait

from niwa import engine
from niwa.referee import replay as replays
from niwa.web.offline import offline_html
from niwa.web.replay_view import replay_payload
from tests.polling import PATIENCE_S
from tests.web.browser import address_shows, console_errors, go_offline, keep_screenshot
from tests.web.matches import GAMES, forged_page, play

#: What each renderer draws with data-field/data-seat, read from the observation:
#: (field, seat) -> the text it must show (seat -1: the table's own numbers).
Expected = Callable[[dict[str, Any]], dict[tuple[str, int], str]]

EXPECTED: dict[str, Expected] = {
    "blossom": lambda o: {
        ("deck", -1): str(o["deck"]),
        **{("score", i): str(o["scores"][i]) for i in range(o["players"])},
        **{("hand", i): str(s["hand"]) for i, s in enumerate(o["seats"])},
        **{("yard_down", i): str(s["yard_down"]) for i, s in enumerate(o["seats"])},
    },
    "sakura": lambda o: {
        ("deck", -1): str(o["deck_size"]),
        **{("tokens", p): str(t) for p, t in enumerate(o["tokens"])},
        **{("hand", p): str(n) for p, n in enumerate(o["hand_sizes"])},
    },
    "bonsai": lambda o: {
        ("deck", -1): str(o["deck_size"]),
        **{("score", i): str(o["scores"][i]["total"]) for i in range(o["players"])},
        **{("tiles", i): str(len(s["trees"][0])) for i, s in enumerate(o["seats"])},
    },
    "miyabi": lambda o: {
        ("score", i): str(g["score"]) for i, g in enumerate(o["gardens"])
    },
}


def open_viewer(browser: webdriver.Chrome, page: Path, fragment: str = "") -> None:
    go_offline(browser)
    browser.get(page.as_uri() + fragment)
    viewer_ready = "return !!window.niwaViewer"
    WebDriverWait(browser, PATIENCE_S).until(lambda d: d.execute_script(viewer_ready))


def drawn(browser: webdriver.Chrome) -> dict[tuple[str, int], str]:
    return {
        (str(e.get_attribute("data-field")), int(str(e.get_attribute("data-seat")))): e.text
        for e in browser.find_elements(By.CSS_SELECTOR, ".nv-board svg [data-seat]")
    }


def current(browser: webdriver.Chrome) -> tuple[int, int | None]:
    state = browser.execute_script("return window.niwaViewer.state")
    return int(state["step"]), state["seat"]


def press(browser: webdriver.Chrome, *keys: str) -> None:
    chain = ActionChains(browser)
    for key in keys:
        chain.send_keys(key)
    chain.perform()


def observations(replay_path: Path, step: int) -> list[dict[str, Any]]:
    """The engine's views before ``step``: the spectator's, then each seat's."""
    replay = replays.read(replay_path)
    state = next(before for s, before, _ in replays.states(replay) if s.index == step)
    return [state.observe(seat) for seat in (None, *range(replay.header.players))]



@pytest.mark.parametrize("game", GAMES)
def test_the_offline_viewer_draws_what_each_seat_saw_at_each_step(
    game: str, browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]], tmp_path: Path
) -> None:
    replay_path, page = pages[game]
    steps = len(replays.read(replay_path).steps)
    open_viewer(browser, page)
    assert current(browser) == (0, None)
    first = browser.find_element(By.CSS_SELECTOR, ".nv-board svg").get_attribute("outerHTML")

    press(browser, Keys.END)
    assert current(browser) == (steps, None)
    assert address_shows(browser, f"#step={steps}")
    press(browser, Keys.HOME)
    assert current(browser)[0] == 0
    middle = steps // 2
    press(browser, *[Keys.ARROW_RIGHT] * (middle + 1), Keys.ARROW_LEFT)
    assert current(browser)[0] == middle
    svg = browser.find_element(By.CSS_SELECTOR, ".nv-board svg").get_attribute("outerHTML")
    assert svg != first

    views = observations(replay_path, middle)
    assert drawn(browser) == EXPECTED[game](views[0])
    select = Select(browser.find_element(By.CSS_SELECTOR, ".nv-seat-select"))
    for seat in range(len(views) - 1):
        select.select_by_value(str(seat))
        assert current(browser) == (middle, seat)
        assert address_shows(browser, f"#step={middle}&seat={seat}")
        assert drawn(browser) == EXPECTED[game](views[seat + 1])
    select.select_by_value("")
    assert current(browser) == (middle, None)

    png = browser.find_element(By.CSS_SELECTOR, ".niwa-viewer").screenshot_as_png
    keep_screenshot(png, tmp_path / f"{game}-viewer.png")
    assert console_errors(browser) == []


def test_blossom_shows_a_seat_its_own_hand_and_the_spectator_no_hand(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay_path, page = pages["blossom"]
    middle = len(replays.read(replay_path).steps) // 2
    open_viewer(browser, page, f"#step={middle}&seat=1")
    assert current(browser) == (middle, 1)
    hand = observations(replay_path, middle)[2]["hand"]
    cards = browser.find_elements(By.CSS_SELECTOR, ".nv-board svg [data-field=own-hand]")
    assert {str(e.get_attribute("data-kind")): e.text for e in cards} == {
        kind: str(n) for kind, n in hand.items()
    }
    Select(browser.find_element(By.CSS_SELECTOR, ".nv-seat-select")).select_by_value("")
    assert browser.find_elements(By.CSS_SELECTOR, ".nv-board svg [data-field=own-hand]") == []
    assert console_errors(browser) == []


def test_a_decision_shows_its_legal_list_with_the_choice_marked(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay_path, page = pages["miyabi"]
    replay = replays.read(replay_path)
    # The widest decision: a long legal list is built only when it is opened.
    step, _ = max(((s, len(before.legal_actions(s.moves[0].seat)))
                   for s, before, _ in replays.states(replay) if s.kind == "decision"),
                  key=lambda pair: pair[1])
    open_viewer(browser, page, f"#step={step.index}")
    details = browser.find_element(By.CSS_SELECTOR, ".nv-moves details")
    assert details.get_attribute("open") is None
    details.find_element(By.TAG_NAME, "summary").click()
    # the list is filled by the details' toggle event, which fires after the click returns
    chosen = WebDriverWait(browser, PATIENCE_S).until(
        lambda b: b.find_element(By.CSS_SELECTOR, ".nv-moves .nv-chosen")
    )
    before = next(b for s, b, _ in replays.states(replay) if s.index == step.index)
    move = step.moves[0]
    words = engine.describe_move(before, move.seat, move.action)
    assert chosen.get_attribute("textContent") == words
    assert chosen.get_attribute("title") == replays.encode(move.action)
    assert console_errors(browser) == []


def test_bot_written_names_and_notes_show_as_text_and_run_nothing(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]], tmp_path: Path
) -> None:
    replay_path, _ = pages["sakura"]
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    lines = replay_path.read_text().splitlines()
    text = "\n".join(lines).replace('"builtin:greedy"', replays.encode(hostile))
    first = next(i for i, line in enumerate(lines) if '"kind":"decision"' in line)
    forged = text.splitlines()
    forged[first] = forged[first].replace('"seat":', f'"note":{replays.encode(hostile)},"seat":', 1)
    page = forged_page(forged, tmp_path, "hostile")
    open_viewer(browser, page, f"#step={first - 1}")
    names = browser.find_element(By.CSS_SELECTOR, ".nv-seats").text
    assert hostile in names
    assert hostile in browser.find_element(By.CSS_SELECTOR, ".nv-moves").text
    assert browser.find_elements(By.CSS_SELECTOR, ".niwa-viewer img, .niwa-viewer script") == []
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018  # raises when no dialog is open
    assert console_errors(browser) == []


def test_a_failure_is_highlighted_and_its_link_jumps_to_its_step(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]], tmp_path: Path
) -> None:
    replay_path, _ = pages["bonsai"]
    lines = replay_path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"kind":"decision"' in line and i > 20) - 1
    lines[at + 1] = lines[at + 1].replace('"status":"OK"', '"status":"TIMEOUT"', 1)
    page = forged_page(lines, tmp_path, "failure")
    open_viewer(browser, page)
    link = browser.find_element(By.CSS_SELECTOR, ".nv-failures a")
    assert "TIMEOUT" in link.text
    link.click()
    WebDriverWait(browser, PATIENCE_S).until(lambda d: current(d)[0] == at)
    failed = browser.find_element(By.CSS_SELECTOR, ".nv-moves .nv-failed")
    assert "TIMEOUT" in failed.text
    assert console_errors(browser) == []


#: Other seat counts and options than the matches above: (game, seats, options).
VARIANTS = [
    ("blossom", 4, ()),
    ("sakura", 2, ()),  # two seats: the court painter plays too
    ("bonsai", 1, ("soloScenario=emperor",)),  # solo, two trees
    ("miyabi", 4, ()),
]


@pytest.mark.parametrize(("game", "seats", "options"), VARIANTS)
def test_every_seat_count_draws_without_console_errors(
    game: str, seats: int, options: tuple[str, ...], browser: webdriver.Chrome, tmp_path: Path
) -> None:
    page = tmp_path / "match.html"
    play(game, tmp_path, seed=11, seats=seats, html=page, options=options)
    open_viewer(browser, page)
    select = Select(browser.find_element(By.CSS_SELECTOR, ".nv-seat-select"))
    last = len(replays.read(tmp_path / f"{game}-11.jsonl").steps)
    for keys, step in (([Keys.END], last), ([Keys.HOME, *[Keys.ARROW_RIGHT] * 12], 12)):
        press(browser, *keys)
        for seat in (None, *range(seats)):
            select.select_by_value("" if seat is None else str(seat))
            assert current(browser) == (step, seat)  # the keys stepped, the seat is chosen
            assert browser.find_elements(By.CSS_SELECTOR, ".nv-board svg [data-seat]")
    assert console_errors(browser) == []


def test_a_game_without_a_renderer_shows_its_text_picture_and_observation_tree(
    browser: webdriver.Chrome, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = GAMES[0]
    replay_path = play(game, tmp_path)
    monkeypatch.setattr(engine.load(game), "renderer_asset", lambda: None)
    payload = replay_payload(replays.read(replay_path))
    assert payload["renderer"] is None
    page = tmp_path / "generic.html"
    page.write_text(offline_html(payload))
    open_viewer(browser, page, "#step=3&seat=1")
    replay = replays.read(replay_path)
    before = next(b for s, b, _ in replays.states(replay) if s.index == 3)
    shown = browser.find_element(By.CSS_SELECTOR, ".nv-board .nv-generic pre").text
    assert shown == before.render(1).strip()
    assert browser.find_elements(By.CSS_SELECTOR, ".nv-board .nv-generic details summary")
    assert console_errors(browser) == []
