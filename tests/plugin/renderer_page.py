"""A game's viewer renderer (its ``viewer.js``) drawing one observation in Chromium, on a
page of its own served from a temp folder: what the replay viewer does with it, without
the rest of the viewer."""

from __future__ import annotations

import http.server
import json
import shutil
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pytest

PAGE = """<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><body>
<script type="module">
import { draw } from "./viewer.js";
const view = await (await fetch("view.json")).json();
document.body.append(draw(view, {}, { step: 0, seat: view.seat }));
</script>"""

T = TypeVar("T")


def in_chromium(tmp_path: Path, viewer: Path, view: Any, look: Callable[[Any], T]) -> T:
    """``look(driver)`` once ``viewer`` has drawn ``view``; the page's console must stay
    free of errors."""
    browser = pytest.importorskip("tests.web.browser", reason="selenium is not installed")
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(viewer, site / "viewer.js")
    (site / "view.json").write_text(json.dumps(view))
    (site / "index.html").write_text(PAGE)
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    driver = browser.chrome(tmp_path / "profile")
    try:
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
        seen = look(driver)
        assert browser.console_errors(driver) == []
        return seen
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()
