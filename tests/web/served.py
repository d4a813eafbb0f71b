"""A real ladder process serving its web pages (``niwa ladder serve --web``) for the
browser tests, and waiting on its pages."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.ladder.serving import printed_address, start_ladder
from tests.polling import PATIENCE_S


def start_web_ladder(
    db: Path | str, log: Path, *extra: str
) -> tuple[subprocess.Popen[str], str, str]:
    """Start ``niwa ladder serve --web``; return the process, the API's and the pages'
    addresses."""
    proc, address = start_ladder(db, log, "--web", "127.0.0.1:0", *extra)
    return proc, address, printed_address(proc, r"web on (http://\S+)", log)


def start_ladder_web(db: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """Start ``niwa ladder web`` over ``db`` on a free port (``extra``: more flags);
    return the process and the pages' address (if it prints something else, it is
    killed and the test fails with its stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "web", "--db", str(db), "--listen",
         "127.0.0.1:0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stdout is not None
    found = re.search(r"web on (http://\S+)", proc.stdout.readline())
    if found is None:
        proc.kill()
        raise AssertionError(f"niwa ladder web did not start: {proc.communicate()[1]}")
    return proc, found.group(1)


def start_web_front(db: str, data: Path, log: Path) -> tuple[subprocess.Popen[str], str]:
    """Start ``niwa ladder web`` over the store at ``db`` with its own folder ``data``,
    its log (stderr) in ``log``, in a process group of its own; return the process and
    the pages' address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "niwa", "ladder", "web", "--db", db, "--data", str(data),
         "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=log.open("a"), text=True, cwd=data,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True,
    )  # fmt: skip
    return proc, printed_address(proc, r"web on (http://\S+)", log)


def get(url: str, accept: str = "text/html") -> tuple[int, str, dict[str, str]]:
    """Status, body and headers of a GET, whatever the status."""
    request = urllib.request.Request(url, headers={"accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=PATIENCE_S) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(), dict(e.headers)



def page(url: str) -> str:
    with urllib.request.urlopen(url, timeout=PATIENCE_S) as response:
        return str(response.read().decode())


def done_matches(web: str, game: str, bot: str = "") -> list[int]:
    """The finished rated matches the match list shows, newest first."""
    text = page(f"{web}/matches?game={game}&state=done&limit=100&bot={bot}")
    rows = re.findall(r'<tr><td><a href="/matches/(\d+)">#\d+</a></td><td>\w+</td><td>rated', text)
    return [int(r) for r in rows]
