"""The knockout bracket's page (``niwa tournament --html``) in Chromium, from file://:
a column per round, the winners marked, bot names shown as text, the style applied."""

from __future__ import annotations

from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By

from niwa.series.bracket import Bracket
from niwa.web.bracket_page import bracket_html
from tests.web.browser import console_errors

HOSTILE = '<img src=x onerror="document.title=1">evil@1.0'


def page(tmp_path: Path) -> Path:
    """Five bots, the first round played: three byes, the hostile bot beat seed 4."""
    bracket = Bracket(["a@1", "b@1", "c@1", "d@1", HOSTILE], None)
    tie = bracket.rounds[0][1]
    tie.games, tie.points_b = 2, 2.0
    tie.finish(HOSTILE, "games")
    bracket.advance()
    out = tmp_path / "bracket.html"
    out.write_text(bracket_html(bracket.to_json(), "blossom knockout"))
    return out


def test_the_bracket_page_draws_each_round_with_its_winners(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    browser.get(page(tmp_path).as_uri())
    rounds = browser.find_elements(By.CSS_SELECTOR, ".round")
    assert [r.find_element(By.TAG_NAME, "h2").text for r in rounds] == [
        "quarter-finals", "semi-finals"]
    first = rounds[0].find_elements(By.CSS_SELECTOR, ".tie")
    assert len(first) == 4
    assert first[1].find_element(By.CSS_SELECTOR, ".won").text.startswith("5" + HOSTILE)
    assert "(bye)" in first[0].text
    won = first[1].find_element(By.CSS_SELECTOR, ".won")
    assert won.value_of_css_property("font-weight") == "700"  # the inline style applies
    assert console_errors(browser) == []


def test_a_bot_name_is_text_on_the_bracket_page_not_markup(
    browser: webdriver.Chrome, tmp_path: Path
) -> None:
    browser.get(page(tmp_path).as_uri())
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert browser.title == "blossom knockout"
