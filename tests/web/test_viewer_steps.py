"""Stepping the viewer as a held key does, in Chromium on offline pages of real matches.
The board and the moves panel are patched from the step before, with the parts a
renderer lends (svg.js reuse) copied, never changed; so each step must read exactly as
the same step opened on a fresh page. The address follows the step at most every
250 ms, which must still end at the step shown after more history updates than
Chromium takes in 10 s (200)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.referee import replay as replays
from niwa.web.replay_view import replay_payload
from tests.polling import wait_for
from tests.web.browser import address_shows, console_errors
from tests.web.matches import GAMES
from tests.web.test_viewer_browser import current, open_viewer

#: The board and the moves panel as text that does not depend on attribute order
#: (a patch may set an element's attributes in another order than a fresh drawing).
CANONICAL = """
const canon = (n) => {
  if (n.nodeType === 3) return JSON.stringify(n.nodeValue);
  if (n.nodeType !== 1) return "";
  const attrs = [...n.attributes].map((a) => `${a.name}=${JSON.stringify(a.value)}`).sort();
  return `<${n.nodeName} ${attrs.join(" ")}>${[...n.childNodes].map(canon).join("")}</>`;
};
const shown = () => canon(document.querySelector(".nv-board")) +
  canon(document.querySelector(".nv-moves"));
"""
#: Every step from 1 on in turn, with the board and panel at each step asked for.
STEP_THROUGH = CANONICAL + """
const [last, wanted] = arguments, out = {};
for (let i = 1; i <= last; i += 1) {
  window.niwaViewer.show(i);
  if (wanted.includes(i)) out[i] = shown();
}
return out;
"""


def shown_fresh(browser: webdriver.Chrome, page: Path, fragment: str) -> str:
    open_viewer(browser, page, fragment)
    return str(browser.execute_script(CANONICAL + "return shown();"))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seat", [None, 1])
def test_each_step_reached_by_stepping_reads_as_that_step_opened_fresh(
    game: str, seat: int | None, browser: webdriver.Chrome,
    pages: dict[str, tuple[Path, Path]],
) -> None:
    replay, page = pages[game]
    last = len(replays.read(replay).steps)
    seen_by = "" if seat is None else f"&seat={seat}"
    wanted = sorted({1, 2, last // 3, last // 2, last - 1, last})
    fresh = {step: shown_fresh(browser, page, f"#step={step}{seen_by}") for step in wanted}

    open_viewer(browser, page, f"#step=0{seen_by}")
    stepped = browser.execute_script(STEP_THROUGH, last, wanted)
    assert {int(step): text for step, text in stepped.items()} == fresh
    assert console_errors(browser) == []


def legal_shown(browser: webdriver.Chrome, move: int) -> list[str]:
    """The titles (actions) of move ``move``'s legal list, once opened and filled."""
    details = browser.find_element(By.CSS_SELECTOR, f".nv-moves details[data-move='{move}']")
    if not details.get_attribute("open"):
        details.find_element(By.TAG_NAME, "summary").click()
    return wait_for(f"move {move}'s legal list filled", lambda: [
        str(li.get_attribute("title"))
        for li in details.find_elements(By.CSS_SELECTOR, "ol.nv-legal li")
    ])  # fmt: skip


def long_lists(payload: dict[str, Any]) -> list[int]:
    """The steps whose first move has a legal list built only when opened (over 12)."""
    return [i for i, frame in enumerate(payload["frames"])
            if frame["moves"] and frame["moves"][0]["seat"] >= 0
            and frame["moves"][0]["legal_count"] > 12]  # fmt: skip


def test_a_long_legal_list_opened_after_a_step_lists_that_step_s_actions(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay, page = pages["blossom"]
    payload = replay_payload(replays.read(replay))
    steps = long_lists(payload)
    # two steps in a row with long lists: the panel keeps the first's list element
    first = next(s for s in steps if s + 1 in steps
                 and payload["frames"][s]["moves"][0]["legal"]
                 != payload["frames"][s + 1]["moves"][0]["legal"])  # fmt: skip
    open_viewer(browser, page, f"#step={first}")
    assert legal_shown(browser, 0) == payload["frames"][first]["moves"][0]["legal"]

    browser.execute_script("window.niwaViewer.show(arguments[0])", first + 1)
    assert current(browser) == (first + 1, None)
    assert legal_shown(browser, 0) == payload["frames"][first + 1]["moves"][0]["legal"]


def test_the_address_ends_at_the_step_shown_after_more_steps_than_chromium_records(
    browser: webdriver.Chrome, pages: dict[str, tuple[Path, Path]]
) -> None:
    replay, page = pages["miyabi"]
    last = len(replays.read(replay).steps)
    open_viewer(browser, page)
    # 300 steps back and forth, one task each as a held key gives them
    browser.execute_script("""
      const last = arguments[0];
      let k = 0;
      const next = () => {
        k += 1;
        window.niwaViewer.show(k % (last + 1));
        if (k < 300) setTimeout(next, 0); else window.heldKeyDone = true;
      };
      next();
    """, last)
    wait_for("300 steps shown", lambda: browser.execute_script("return window.heldKeyDone"))
    step = 300 % (last + 1)
    assert current(browser) == (step, None)
    assert address_shows(browser, f"#step={step}")
