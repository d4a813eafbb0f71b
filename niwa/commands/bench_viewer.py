"""``niwa bench web --viewer``: the replay viewer's frames in Chromium, per game.

Each registered game gets a replay of at least ``--steps`` steps: real four-seat matches between
built-in bots (random and greedy, in process), joined into one payload as the viewer
tests do (a later match starts with a frame that replaces every view; no built-in bot
plays a game that long). Each payload's offline page is opened in headless Chromium
(Debian's chromium and chromedriver, driven by Selenium from the test extra) and every
frame is shown in turn: what a held-down arrow key costs. A frame's time, from the
page's ``performance.now()``, is ``show(i)`` (the step's views, drawing and patching
the board, patching the moves panel, moving the charts' markers and the step inputs)
and then the style and layout that forces (``getBoundingClientRect`` on the viewer),
with any garbage collection or other process's time that lands inside; paint is not
in it. The frames run back to back in one script, with no idle time between them for
the collector (the address hash, written at most every 250 ms by a timer, is written
after the last); with ``--paced`` each frame runs in its own animation frame instead,
as the steps of a held key come one task each, and the browser paints, runs its
timers and collects garbage between frames, outside the times (the frame's own
collection pauses stay in). "open" is from the start of navigation to the viewer mounted with
step 0 drawn, on each fresh page load. ``--baseline CHECKOUT`` also measures another
checkout's viewer and renderers on the same payloads, alternating with this one,
``--repeat`` times each (a fresh page load each). The load average is printed with
every run. Each run's slowest frame is printed with its step, then the slowest of
each frame's best over the runs, which a busy machine disturbs far less; the slowest
game is named by the latter.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from niwa import engine
from niwa.cli import UsageError
from niwa.commands.bench import text_out, write_json
from niwa.referee import replay as replays
from niwa.referee.match import BotSpec, MatchSpec, play_match
from niwa.web.offline import offline_html
from niwa.web.replay_view import replay_payload, views_at

#: Seats per match, or the game's most if fewer.
SEATS = 4
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Shows every frame after the first, each with a layout; the milliseconds of each.
STEP_THROUGH = """
const v = window.niwaViewer, root = document.getElementById("niwa-viewer"), out = [];
for (let i = 1; i < arguments[0]; i += 1) {
  const t0 = performance.now();
  v.show(i);
  root.getBoundingClientRect();
  out.push(performance.now() - t0);
}
return out;
"""
#: The same, one frame per animation frame; calls back with the milliseconds.
STEP_PACED = """
const [frames, done] = arguments;
const v = window.niwaViewer, root = document.getElementById("niwa-viewer"), out = [];
let i = 1;
const step = () => {
  const t0 = performance.now();
  v.show(i);
  root.getBoundingClientRect();
  out.push(performance.now() - t0);
  i += 1;
  if (i < frames) requestAnimationFrame(step);
  else done(out);
};
requestAnimationFrame(step);
"""
#: Seconds a paced page may take (a 60 Hz page steps 500 frames in about 9 s).
PACED_TIMEOUT_S = 600


def long_payload(game: str, steps: int, folder: Path) -> dict[str, Any]:
    """Real matches of ``game`` joined until the payload has more than ``steps`` frames."""
    joined: dict[str, Any] | None = None
    seed = 0
    while joined is None or len(joined["frames"]) <= steps:
        seed += 1
        path = folder / f"{game}-{seed}.jsonl"
        seats = min(SEATS, engine.load(game).info.max_players)
        bots = [BotSpec.parse("builtin:random" if i % 2 == 0 else "builtin:greedy")
                for i in range(seats)]  # fmt: skip
        play_match(MatchSpec(game=game, bots=bots, seed=seed, in_process=True, replay_path=path))
        payload = replay_payload(replays.read(path))
        if joined is None:
            joined = payload
            continue
        start = dict(payload["frames"][0], ops=[[[[], v]] for v in views_at(payload, 0)])
        joined["frames"] += [start, *payload["frames"][1:]]
    return joined


def checkout_page(payload: dict[str, Any], checkout: Path | None) -> str:
    """The offline page of ``payload`` with this viewer, or ``checkout``'s viewer and
    the game's renderer from that checkout."""
    if checkout is None:
        return offline_html(payload)
    game = payload["game"].split("@")[0]
    renderer = checkout / "niwa" / "engine" / "rulesets" / game / "viewer.js"
    source = renderer.read_text(encoding="utf-8") if renderer.is_file() else None
    return offline_html(payload, checkout / "niwa" / "web" / "static", source)


@contextlib.contextmanager
def chromium(profile: Path) -> Iterator[Any]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise UsageError("--viewer drives Chromium with Selenium: pip install "
                         "'niwa[test]'") from None  # fmt: skip
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        raise UsageError("--viewer needs Debian's chromium and chromium-driver "
                         "(apt-get install chromium chromium-driver)")  # fmt: skip
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-dev-shm-usage",
                 "--window-size=1400,1000", f"--user-data-dir={profile}"):  # fmt: skip
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def measure(driver: Any, page: Path, frames: int, paced: bool) -> tuple[list[float], float]:
    """Each frame's milliseconds (show and layout) on a fresh load of ``page``, from
    step 1 on, and the milliseconds from navigation to step 0 drawn."""
    driver.get(page.as_uri())
    opened = float(driver.execute_script("return window.niwaViewer.timings.ready_ms"))
    if paced:
        driver.set_script_timeout(PACED_TIMEOUT_S)
        steps: list[float] = driver.execute_async_script(STEP_PACED, frames)
    else:
        steps = driver.execute_script(STEP_THROUGH, frames)
    return steps, opened


def summary(steps: list[float]) -> dict[str, float]:
    return {
        "mean_ms": statistics.fmean(steps),
        "p95_ms": sorted(steps)[int(len(steps) * 0.95)],
        "max_ms": max(steps),
    }


def run(args: argparse.Namespace) -> int:
    out = text_out(args)
    if args.steps < 10 or args.repeat < 1:
        raise UsageError("--steps must be at least 10 and --repeat at least 1")
    baseline = args.baseline
    if baseline is not None and not (baseline / "niwa" / "web" / "static" / "viewer.js").is_file():
        raise UsageError(f"--baseline {baseline} has no niwa/web/static/viewer.js: give a "
                         "niwa checkout's root")  # fmt: skip
    games = sorted(engine.games())
    sides: dict[str, Path | None] = {"this": None}
    if baseline is not None:
        sides["baseline"] = baseline
    figures: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="niwa-bench-viewer-") as tmp:
        folder = Path(tmp)
        pages: dict[tuple[str, str], tuple[Path, int]] = {}
        for game in games:
            with contextlib.redirect_stdout(io.StringIO()):
                payload = long_payload(game, args.steps, folder)
            for side, checkout in sides.items():
                page = folder / f"{game}-{side}.html"
                page.write_text(checkout_page(payload, checkout), encoding="utf-8")
                pages[game, side] = page, len(payload["frames"])
        raw: dict[tuple[str, str], list[list[float]]] = {}
        how = ("one frame per animation frame (--paced)" if args.paced
               else "every frame back to back in one script")  # fmt: skip
        print(f"frames: show(i) and the layout it forces; {how}", file=out)
        with chromium(folder / "profile") as driver:
            for number in range(1, args.repeat + 1):
                load = os.getloadavg()
                print(f"run {number}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
                      file=out)  # fmt: skip
                for game in games:
                    for side in sides:
                        page, frames = pages[game, side]
                        steps, opened = measure(driver, page, frames, args.paced)
                        raw.setdefault((game, side), []).append(steps)
                        f = summary(steps)
                        at = steps.index(f["max_ms"]) + 1  # the list starts at step 1
                        row = figures.setdefault(game, {"frames": frames}).setdefault(side, [])
                        row.append(f | {"slowest_step": at, "open_ms": opened,
                                        "load_average": load[0]})  # fmt: skip
                        print(f"  {game:<8} {side:<8} {frames} frames: slowest "
                              f"{f['max_ms']:6.1f} ms (step {at:>3}), p95 {f['p95_ms']:5.1f}, "
                              f"mean {f['mean_ms']:5.2f}; open {opened:4.0f} ms",
                              file=out)  # fmt: skip
    # A frame's best of the runs is its own cost: another process taking the core, or a
    # collection, lands on different frames in different runs.
    print(f"each frame's best of {args.repeat} runs:", file=out)
    for (game, side), runs in raw.items():
        best = summary([min(times) for times in zip(*runs, strict=True)])
        figures[game][f"{side}_best"] = best
        print(f"  {game:<8} {side:<8} slowest {best['max_ms']:6.1f} ms, p95 "
              f"{best['p95_ms']:5.1f}, mean {best['mean_ms']:5.2f}", file=out)  # fmt: skip
    slowest = max(games, key=lambda g: figures[g]["this_best"]["max_ms"])
    line = (f"slowest game: {slowest}, its slowest frame "
            f"{figures[slowest]['this_best']['max_ms']:.1f} ms")  # fmt: skip
    if baseline is not None:
        line += f"; baseline {figures[slowest]['baseline_best']['max_ms']:.1f} ms"
    print(line, file=out)
    write_json(args, {"target": "web-viewer", "steps": args.steps, "paced": args.paced,
                      "games": figures, "slowest_game": slowest})  # fmt: skip
    return 0
