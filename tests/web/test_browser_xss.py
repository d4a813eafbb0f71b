"""Everything a bot controls is text on the pages, never markup: a real ladder where a
submitted, sandboxed bot writes script and event-handler markup in its notes, debug
output and stderr; the leaderboard, bot page, match list and match page open in the
browser with no dialog and no console error, and show the note escaped (the debug
text and stderr are its owner's, never on the pages). Names cannot
carry markup: the ladder refuses such a name (shown below), so the bot has the worst
allowed one."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from niwa.cli import main
from niwa.ladder import archive
from niwa.ladder.client import CallFailed, LadderClient
from tests.ladder.serving import PATIENCE_S, wait_for
from tests.ladder.tiny_bots import cli, talking_bot, write_bot
from tests.web.browser import console_errors
from tests.web.served import done_matches, page, start_web_ladder

NOTE = "<script>alert(1)</script>"
DEBUG = "<img src=x onerror=alert(1)>"
STDERR = "<svg onload=alert(1)>"
#: The most punctuation a bot name may have.
NAME = "x.-_y"

BOT = talking_bot(NAME, STDERR, NOTE, DEBUG)


def no_dialog(driver: webdriver.Chrome) -> bool:
    try:
        driver.switch_to.alert.dismiss()
    except NoAlertPresentException:
        return True
    return False


def test_bot_written_markup_stays_text_in_the_browser(
    browser: webdriver.Chrome, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "ladder.db"
    assert main(["ladder", "user", "add", "alice", "--db", str(db)]) == 0
    token = capsys.readouterr().out.split()[-1]
    proc, address, web = start_web_ladder(
        db, tmp_path / "ladder.log", "--game", "blossom", "--sparring", "builtin:random",
        "--workers", "1", "--seed", "5",
    )  # fmt: skip
    try:
        (tmp_path / "named").mkdir()
        named = write_bot(tmp_path / "named", "x", "1.0.0", BOT)
        toml = (named / "bot.toml").read_text().replace('name = "x"', f'name = "{NOTE}"')
        (named / "bot.toml").write_text(toml)
        with LadderClient(address, None, token) as ladder, pytest.raises(CallFailed) as refused:
            ladder.submit(archive.pack_directory(named))  # past the CLI's own check
        assert "'name' must be" in str(refused.value)

        bot = write_bot(tmp_path, NAME, "1.0.0", BOT)
        code, out = cli("ladder", "submit", str(bot), "--server", address, "--token", token)
        assert code == 0 and "accepted" in out, out
        played = wait_for("a rated match of the bot", lambda: done_matches(web, "blossom", NAME))
        match_id = played[0]
        bot_id = int(page(f"{web}/matches/{match_id}").split(f'">{NAME}@1.0.0</a>')[0]
                     .rsplit('href="/bots/', 1)[1])  # fmt: skip

        for path in ("/", "/games/blossom", f"/bots/{bot_id}", "/matches",
                     f"/matches?bot={NAME}"):  # fmt: skip
            browser.get(web + path)
            assert no_dialog(browser), path
            if path != "/":  # the index names each game's leader, which may be random@1
                assert NAME in browser.find_element(By.TAG_NAME, "main").text, path

        browser.get(f"{web}/matches/{match_id}")
        # the viewer mounts once the game's renderer module has loaded (an import())
        WebDriverWait(browser, PATIENCE_S).until(
            lambda d: d.execute_script("return !!window.niwaViewer")
        )
        notes: list[str] = []
        for step in range(40):
            browser.execute_script("window.niwaViewer.show(arguments[0])", step)
            notes = [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".nv-note")]
            if any(NOTE in n for n in notes):
                break
        assert any(NOTE in n for n in notes), "the bot's note is not shown as text"
        assert no_dialog(browser)
        assert DEBUG not in browser.page_source  # debug text is its owner's only
        assert STDERR not in browser.page_source  # and so is stderr
        inline = "img, script:not([src]):not([type='application/json'])"
        assert browser.find_elements(By.CSS_SELECTOR, inline) == []
        assert console_errors(browser) == []
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
