"""Sign-in and upload on a real ladder (``niwa ladder serve --web``, sandboxed bots): in
Chromium an owner signs in, uploads a good archive and watches its validation reach
its verdict without reloading; every hostile archive of tests/ladder sent through the
page gets the refusal the API gives it; and a signed-in owner's match page shows their
own bot's private text (debug, thinking, stderr) and never another owner's. With
NIWA_WEB_SCREENSHOTS=DIR the upload's page goes to DIR/upload.png."""

from __future__ import annotations

import functools
import html
import http.server
import re
import signal
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from niwa.ladder import archive
from niwa.ladder.client import CallFailed, LadderClient
from niwa.ladder.store import DONE
from niwa.web.server import open_read_only
from tests.ladder.test_archive import MANIFEST, header_bomb, special, tar_of
from tests.ladder.tiny_bots import QUICK, cli, owner_tokens, talking_bot, write_bot
from tests.polling import PATIENCE_S, wait_for
from tests.web.browser import console_errors, keep_screenshot
from tests.web.served import start_web_ladder
from tests.web.signed_in import csrf_of

FULL = b'name = "x"\nversion = "1"\ngames = ["blossom"]\ncommand = ["python3", "bot.py"]\n'
#: The hostile archives of tests/ladder (test_archive.py, test_submission.py), by what
#: each tries; every one is refused whichever way it comes in.
HOSTILE = {
    "dot-dot path": tar_of(("bot.toml", MANIFEST), ("../escape.py", b"x")),
    "absolute path": tar_of(("bot.toml", MANIFEST), ("/etc/escape", b"x")),
    "control character in a name": tar_of(("bot.toml", MANIFEST), ("x\x1b[2J.py", b"")),
    "symlink out": tar_of(("bot.toml", MANIFEST), special("data", tarfile.SYMTYPE, "/etc/passwd")),
    "hard link": tar_of(("bot.toml", MANIFEST), special("hard", tarfile.LNKTYPE, "bot.toml")),
    "device": tar_of(("bot.toml", MANIFEST), special("dev", tarfile.CHRTYPE)),
    "fifo": tar_of(("bot.toml", MANIFEST), special("fifo", tarfile.FIFOTYPE)),
    "file named twice": tar_of(("bot.toml", MANIFEST), ("a.py", b"1"), ("a.py", b"2")),
    "no manifest": tar_of(("main.py", b"pass")),
    "header bomb": header_bomb(b"L"),
    "not an archive": b"just some text, not a tar",
    "bad manifest": tar_of(("bot.toml", b"name = [")),
    "a built-in's name": tar_of(("bot.toml", FULL.replace(b'"x"', b'"random"'))),
    "a game the ladder does not play": tar_of(("bot.toml", FULL.replace(b"blossom", b"chess"))),
}


@dataclass
class Served:
    api: str
    web: str
    tokens: dict[str, str]
    folder: Path
    db: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A ladder playing Blossom with builtin:random as sparring partner, its pages
    served, and two owners."""
    folder = tmp_path_factory.mktemp("upload-ladder")
    db = folder / "ladder.db"
    tokens = owner_tokens(db, admins=(), owners=("alice", "bob"))
    proc, api, web = start_web_ladder(
        db, folder / "ladder.log", "--game", "blossom", "--sparring", "builtin:random",
        "--workers", "1", "--seed", "5",
    )  # fmt: skip
    try:
        yield Served(api, web, tokens, folder, db)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=PATIENCE_S)


def browser_sign_in(browser: webdriver.Chrome, web: str, token: str, name: str) -> None:
    browser.delete_all_cookies()
    browser.get(f"{web}/signin")
    browser.find_element(By.ID, "token").send_keys(token)
    browser.find_element(By.ID, "signin-submit").click()
    WebDriverWait(browser, PATIENCE_S).until(
        lambda b: b.find_elements(By.ID, "signed-in")
        and b.find_element(By.ID, "signed-in").text == name
    )


def page_refusal(client: httpx.Client, data: bytes, name: str = "x") -> str:
    """The page's refusal of ``data`` (uploaded as the form sends it), as text."""
    csrf = csrf_of(client.get("/upload").text)
    answer = client.post(
        "/upload", data={"csrf": csrf, "game": "blossom", "name": name},
        files={"archive": ("bot.tar.gz", data, "application/gzip")},
    )  # fmt: skip
    assert answer.status_code == 400, (answer.status_code, answer.text[:500])
    found = re.search(r'<p class="error" id="upload-problem">(.*?)</p>', answer.text, re.S)
    assert found, answer.text[:500]
    return html.unescape(found.group(1))


@contextmanager
def signed_in(served: Served, who: str) -> Iterator[httpx.Client]:
    """An HTTP client of the pages with ``who`` signed in."""
    with httpx.Client(base_url=served.web, timeout=PATIENCE_S) as client:
        form = client.get("/signin")
        signed = client.post("/signin", data={"csrf": csrf_of(form.text),
                                              "token": served.tokens[who]})  # fmt: skip
        assert signed.status_code == 303, signed.text[:300]
        yield client


CRASHER = """
import sys

from niwa.bots.sdk import serve


class Crasher:
    name = "crasher"
    version = "1.0.0"

    def start(self, game):
        pass

    def act(self, turn):
        print("crasher-stderr-line", file=sys.stderr, flush=True)
        sys.exit(3)


if __name__ == "__main__":
    serve(Crasher())
"""


def api_refusal(served: Served, data: bytes) -> str:
    with LadderClient(served.api, token=served.tokens["bob"]) as ladder, \
            pytest.raises(CallFailed) as refused:  # fmt: skip
        ladder.submit(data)
    assert refused.value.status == "INVALID_ARGUMENT", refused.value
    return refused.value.details


def test_an_owner_signs_in_uploads_and_sees_the_verdict_arrive_live(
    browser: webdriver.Chrome, served: Served, tmp_path: Path
) -> None:
    bundle = tmp_path / "quick.tar.gz"
    bundle.write_bytes(archive.pack_directory(write_bot(tmp_path, "quick", "0.2.0", QUICK)))
    browser_sign_in(browser, served.web, served.tokens["alice"], "alice")
    browser.get(f"{served.web}/upload")
    browser.find_element(By.ID, "name").send_keys("quick")
    browser.find_element(By.ID, "archive").send_keys(str(bundle))
    browser.find_element(By.ID, "upload-submit").click()
    WebDriverWait(browser, PATIENCE_S).until(lambda b: "/upload/" in b.current_url)
    browser.execute_script("window.stillThisPage = true")  # gone if the page reloads
    verdict = WebDriverWait(browser, PATIENCE_S).until(
        lambda b: b.find_element(By.ID, "upload-verdict").text.startswith("accepted")
        and b.find_element(By.ID, "upload-verdict").text
    )
    assert verdict == "accepted (active)"
    assert browser.execute_script("return window.stillThisPage") is True
    assert "#" in browser.find_element(By.ID, "upload-match").text  # its validation match
    assert console_errors(browser) == []
    keep_screenshot(browser.get_screenshot_as_png(), tmp_path / "upload.png")


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_archive_gets_the_same_refusal_on_the_page_as_through_the_api(
    served: Served, case: str
) -> None:
    with signed_in(served, "bob") as client:
        on_the_page = page_refusal(client, HOSTILE[case])
    assert on_the_page == api_refusal(served, HOSTILE[case])


def test_an_archive_over_submitbots_limit_is_refused_by_the_page_and_the_api(
    served: Served,
) -> None:
    big = bytes(archive.DEFAULT_LIMITS.archive_bytes + 1)
    with httpx.Client(base_url=served.web, timeout=PATIENCE_S) as client:
        form = client.get("/signin")
        client.post("/signin", data={"csrf": csrf_of(form.text), "token": served.tokens["bob"]})
        csrf = csrf_of(client.get("/upload").text)
        answer = client.post("/upload", data={"csrf": csrf, "game": "blossom", "name": "x"},
                             files={"archive": ("big.tar.gz", big)})  # fmt: skip
    with LadderClient(served.api, token=served.tokens["bob"]) as ladder, \
            pytest.raises(CallFailed) as refused:  # fmt: skip
        ladder.submit(big)
    assert refused.value.status == "RESOURCE_EXHAUSTED"
    assert answer.status_code == 413 and refused.value.details in html.unescape(answer.text)


def viewer_ready(browser: webdriver.Chrome) -> None:
    WebDriverWait(browser, PATIENCE_S).until(
        lambda d: d.execute_script("return !!window.niwaViewer")
    )


def shared_match(db: Path, first: str, second: str) -> int | None:
    """A finished match where the bots named ``first`` and ``second`` both sat."""
    store = open_read_only(str(db))
    try:
        ids = {b.name: b.id for b in store.bots.bots(None)}
        if first not in ids or second not in ids:
            return None
        for match in store.matches.matches(state=DONE, limit=200):
            if {ids[first], ids[second]} <= set(match.seats):
                return match.id
        return None
    finally:
        store.close()


def test_a_signed_in_owner_sees_their_own_bots_private_text_and_never_anothers(
    browser: webdriver.Chrome, served: Served, tmp_path: Path
) -> None:
    mine = write_bot(tmp_path, "thinker", "1.0.0", talking_bot(
        "thinker", "alice-stderr-line", "alice-note", "alice-debug-text", thinking=True))
    theirs = write_bot(tmp_path, "plain", "1.0.0", talking_bot(
        "plain", "bob-stderr-line", "bob-note", "bob-debug-text"))  # fmt: skip
    for folder, who in ((mine, "alice"), (theirs, "bob")):
        code, out = cli("ladder", "submit", str(folder), "--server", served.api,
                        "--token", served.tokens[who])  # fmt: skip
        assert code == 0 and "accepted" in out, out
    match_id = wait_for("a match of thinker and plain",
                        lambda: shared_match(served.db, "thinker", "plain"))  # fmt: skip

    browser_sign_in(browser, served.web, served.tokens["alice"], "alice")
    browser.get(f"{served.web}/matches/{match_id}")
    viewer_ready(browser)
    source = browser.page_source
    assert "alice-stderr-line" in browser.find_element(By.CSS_SELECTOR, "pre.stderr").text
    assert "alice-debug-text" in source
    for private in ("bob-stderr-line", "bob-debug-text"):
        assert private not in source

    browser.find_element(By.ID, "sign-out").click()
    WebDriverWait(browser, PATIENCE_S).until(lambda b: b.find_elements(By.ID, "sign-in"))
    browser.get(f"{served.web}/matches/{match_id}")
    viewer_ready(browser)
    for private in ("alice-stderr-line", "alice-debug-text", "bob-stderr-line", "bob-debug-text"):
        assert private not in browser.page_source
    assert console_errors(browser) == []


def test_a_rejected_upload_shows_its_verdict_and_stderr_to_its_owner_only(
    served: Served, tmp_path: Path
) -> None:
    bundle = archive.pack_directory(write_bot(tmp_path, "crasher", "1.0.0", CRASHER))
    with signed_in(served, "alice") as alice:
        csrf = csrf_of(alice.get("/upload").text)
        sent = alice.post("/upload", data={"csrf": csrf, "game": "blossom", "name": "crasher"},
                          files={"archive": ("crasher.tar.gz", bundle)})  # fmt: skip
        assert sent.status_code == 303, sent.text[:500]
        progress = sent.headers["location"]

        def verdict() -> dict[str, Any] | None:
            answer: dict[str, Any] = alice.get(f"{progress}/status").json()
            return answer if answer["done"] else None

        status = wait_for("the verdict", verdict)
        assert status["status"] == "rejected" and "validation match" in status["reason"]
        assert "crasher-stderr-line" in status["stderr"]
        bot_id = progress.rsplit("/", 1)[-1]
        assert "crasher-stderr-line" in alice.get(f"/bots/{bot_id}").text
    with signed_in(served, "bob") as bob:
        assert bob.get(f"{progress}/status").status_code == 404
        assert "crasher-stderr-line" not in bob.get(f"/bots/{bot_id}").text
    with httpx.Client(base_url=served.web, timeout=PATIENCE_S) as anonymous:
        assert "crasher-stderr-line" not in anonymous.get(f"/bots/{bot_id}").text


@contextmanager
def another_site(folder: Path) -> Iterator[str]:
    """``folder`` served on another port of 127.0.0.1: another origin than the ladder's."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_an_upload_form_posted_from_another_site_is_refused_in_chromium(
    browser: webdriver.Chrome, served: Served, tmp_path: Path
) -> None:
    bundle = tmp_path / "quick.tar.gz"
    bundle.write_bytes(archive.pack_directory(write_bot(tmp_path, "forged", "1.0.0",
                                                        QUICK.replace("quick", "forged"))))
    site = tmp_path / "site"
    site.mkdir()
    (site / "forge.html").write_text(
        f'<form method="post" action="{served.web}/upload" enctype="multipart/form-data">'
        '<input name="csrf" value="guessed"><input name="game" value="blossom">'
        '<input name="name" value="forged"><input type="file" id="archive" name="archive">'
        '<button id="go">go</button></form>'
    )
    browser_sign_in(browser, served.web, served.tokens["alice"], "alice")
    with another_site(site) as elsewhere:
        browser.get(f"{elsewhere}/forge.html")
        browser.find_element(By.ID, "archive").send_keys(str(bundle))
        browser.find_element(By.ID, "go").click()
        refused = WebDriverWait(browser, PATIENCE_S).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, "p.error")
            and b.find_element(By.CSS_SELECTOR, "p.error").text
        )
    assert "sent from another site" in refused
    assert browser.find_element(By.TAG_NAME, "h1").text == "403"
    browser.get(served.web)
    assert browser.find_element(By.ID, "signed-in").text == "alice"  # the session stands
    store = open_read_only(str(served.db))
    try:
        assert "forged" not in {b.name for b in store.bots.bots(None)}
    finally:
        store.close()
