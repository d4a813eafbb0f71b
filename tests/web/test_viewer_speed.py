"""How fast the viewer opens and steps in Chromium, measured in the page with the
Performance API and printed (figures in docs/benchmarks.md; nothing here is a timed
assertion). No built-in bot plays a game past ~300 steps, so the long replay is real
four-seat Miyabi matches joined into one payload (niwa.commands.bench_viewer, which
`niwa bench web --viewer` also uses): every frame still holds real
observations for four seats, and the second match starts with a frame that replaces
every view."""

from __future__ import annotations

import json
import os
import statistics
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.webdriver.support.wait import WebDriverWait

from niwa.commands.bench_viewer import STEP_THROUGH, long_payload
from niwa.web.offline import offline_html
from tests.polling import PATIENCE_S
from tests.web.browser import console_errors, go_offline


def measure(browser: webdriver.Chrome, page: Path, frames: int) -> dict[str, Any]:
    """Open ``page`` and step through every frame; times from the page's Performance API."""
    browser.get(page.as_uri())
    viewer_ready = "return !!window.niwaViewer"
    WebDriverWait(browser, PATIENCE_S).until(lambda d: d.execute_script(viewer_ready))
    ready = browser.execute_script("return window.niwaViewer.timings.ready_ms")
    # Every frame in turn, each drawn and laid out: what a held-down arrow key costs.
    steps = browser.execute_script(STEP_THROUGH, frames)
    assert len(steps) == frames - 1
    back = browser.execute_script("""
        const v = window.niwaViewer, t0 = performance.now();
        v.show(0); document.getElementById("niwa-viewer").getBoundingClientRect();
        return performance.now() - t0;
    """)
    return {
        "open_ms": round(ready, 1),
        "step_mean_ms": round(statistics.fmean(steps), 2),
        "step_p95_ms": round(sorted(steps)[int(len(steps) * 0.95)], 2),
        "step_max_ms": round(max(steps), 2),
        "jump_to_start_ms": round(back, 2),
    }


def test_a_long_replay_opens_and_steps_fast(browser: webdriver.Chrome, tmp_path: Path) -> None:
    """With NIWA_VIEWER_BASELINE=DIR (another checkout's niwa/web/static), that viewer is
    measured too, alternating with this one, three times each."""
    payload = long_payload("miyabi", 500, tmp_path)
    frames = len(payload["frames"])
    assert frames >= 500
    pages = {"this": tmp_path / "long.html"}
    pages["this"].write_text(offline_html(payload))
    baseline = os.environ.get("NIWA_VIEWER_BASELINE")
    if baseline:
        pages["baseline"] = tmp_path / "baseline.html"
        pages["baseline"].write_text(offline_html(payload, Path(baseline)))
    go_offline(browser)
    print(f"\nviewer speed: {frames} frames, payload "
          f"{len(json.dumps(payload, separators=(',', ':')))} bytes, page "
          f"{pages['this'].stat().st_size} bytes")
    for _ in range(3 if baseline else 1):
        for name, page in pages.items():
            figures = measure(browser, page, frames)
            load = [round(x, 2) for x in os.getloadavg()]
            print(f"  {name:<8} {json.dumps(figures)} load {load}")
    assert console_errors(browser) == []
