"""Debian's Chromium driven by Selenium, for the web tests: the system chromedriver
(so Selenium Manager never downloads anything), headless, its console captured, and
helpers to read a page's console errors and to tell a screenshot is not blank."""

from __future__ import annotations

import os
import shutil
import struct
import zlib
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service

from tests.polling import wait_for
from tests.web.layout import reset_viewport

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Flags for a quiet, self-contained browser: no sandbox (tests may run as root), no
#: GPU, and none of Chromium's own traffic (updates, sync, QUIC probes).
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
)


def chrome(profile: Path) -> webdriver.Chrome:
    """A headless Chromium with its own profile directory and every console line kept."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


def responds(driver: webdriver.Chrome) -> bool:
    """Whether the browser still answers its driver."""
    try:
        driver.execute_script("return 1")
    except WebDriverException:
        return False
    return True


def fresh(driver: webdriver.Chrome) -> None:
    """Back to a browser just started: one blank tab, no cookies (a cookie of
    ``127.0.0.1`` goes to every port, so to the next module's server too), no cache
    (the pages keep no site storage), online, no emulated viewport. (The ``browser``
    fixture drains the console before each test.)"""
    for handle in driver.window_handles[1:]:
        driver.switch_to.window(handle)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])
    driver.get("about:blank")
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    reset_viewport(driver)
    driver.set_network_conditions(offline=False, latency=0, download_throughput=-1,
                                  upload_throughput=-1)


def go_offline(driver: webdriver.Chrome) -> None:
    """Cut the browser's network: a page that needs it fails to load what it asks for."""
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0,
                                  upload_throughput=0)


def address_shows(driver: webdriver.Chrome, hash_: str) -> bool:
    """Whether the page's hash comes to be ``hash_``: the viewer writes it at most
    every 250 ms, so a step right after another reaches the address a moment later."""
    return wait_for(f"the address to end in {hash_}",
                    lambda: driver.execute_script("return location.hash") == hash_)  # fmt: skip


def console_errors(driver: webdriver.Chrome) -> list[str]:
    """The SEVERE console lines since the last call (reading the log drains it)."""
    entries: list[dict[str, Any]] = driver.get_log("browser")
    return [str(e.get("message")) for e in entries if e.get("level") == "SEVERE"]


def png_colours(png: bytes, limit: int = 64) -> int:
    """How many distinct pixel colours an 8-bit RGB(A) PNG has (counted up to ``limit``):
    a blank or one-colour screenshot has 1. Decoded with zlib and the PNG filters."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, data, width = 8, b"", 0
    channels = 4
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        chunk = png[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, _, depth, colour = struct.unpack(">IIBB", chunk[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError("only 8-bit RGB or RGBA PNGs are read")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += chunk
        pos += 12 + length
    raw = zlib.decompress(data)
    stride = width * channels
    previous = bytearray(stride)
    colours: set[bytes] = set()
    for start in range(0, len(raw), stride + 1):
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        colours.update(bytes(line[i : i + 3]) for i in range(0, stride, channels * 7))
        if len(colours) >= limit:
            return len(colours)
        previous = line
    return len(colours)


def keep_screenshot(png: bytes, shot: Path, colours: int = 16) -> None:
    """Write ``png`` to ``shot``, check it is not blank (at least ``colours`` colours),
    and copy it to the directory NIWA_WEB_SCREENSHOTS names, if set (how the docs'
    pictures are made)."""
    shot.write_bytes(png)
    assert png_colours(png) >= colours, f"{shot.name}: the screenshot is (nearly) blank"
    keep = os.environ.get("NIWA_WEB_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
