"""A fifth game from outside the repository: examples/tsubaki-plugin (Oh Hell) is built
and installed into a fresh venv that this module makes, and everything runs there, in
subprocesses: this test environment never has the game registered.

The fresh venv is made by tests/plugin/fresh_venv.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.by import By

from niwa.engine import registry
from tests.plugin.fresh_venv import Venv, fresh_venv, ok
from tests.plugin.renderer_page import in_chromium
from tests.polling import wait_for

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "tsubaki-plugin"
GAME = "tsubaki"


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    return fresh_venv(tmp_path_factory.mktemp("fresh-venv"), PLUGIN)


_ok = ok


def test_the_installed_plugin_registers_the_game_in_its_venv_only(
    venv: Venv, tmp_path: Path
) -> None:
    out = _ok(venv.script("from niwa.engine import registry; print(registry.games())", tmp_path))
    assert GAME in out
    assert GAME not in registry.games()


def test_the_plugin_passes_niwas_conformance_suite(venv: Venv, tmp_path: Path) -> None:
    suite = tmp_path / "test_tsubaki_conformance.py"
    suite.write_text(
        "from niwa.engine.testing import conformance_tests\n"
        f"test_conformance = conformance_tests({GAME!r})\n"
    )
    out = _ok(venv.run("-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite), cwd=tmp_path))
    passed = re.search(r"(\d+) passed", out)
    assert passed and int(passed.group(1)) >= 200 and "failed" not in out, out


def test_the_plugins_own_rules_tests_pass(venv: Venv) -> None:
    out = _ok(venv.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=venv.plugin))
    assert re.search(r"\d+ passed", out) and "failed" not in out, out


def _play(venv: Venv, tmp_path: Path, *bots: str) -> tuple[str, dict[str, Any]]:
    """``niwa play`` sandboxed (the default); its output and the replay's last line."""
    replay = tmp_path / "match.jsonl"
    args = [f"--bot={b}" for b in bots]
    out = _ok(venv.run(
        "-m", "niwa", "play", GAME, *args, "--seed", "7", "--time", "5s+120s",
        "--replay", str(replay), cwd=tmp_path,
    ))  # fmt: skip
    lines = [json.loads(line) for line in replay.read_text().splitlines()]
    assert lines[0]["sandbox"] is True and lines[0]["game"] == GAME
    assert {s["isolation"] for s in lines[0]["seats"]} == {"sandbox"}
    return out, lines[-1]


def test_niwa_play_plays_a_sandboxed_match_of_random_bots(venv: Venv, tmp_path: Path) -> None:
    out, last = _play(venv, tmp_path, "builtin:random", "builtin:random", "builtin:random")
    assert "OUT" not in out and "game over" in out
    assert last["kind"] == "result" and len(last["scores"]) == 3


def test_builtin_mcts_plays_a_sandboxed_match(venv: Venv, tmp_path: Path) -> None:
    out, last = _play(venv, tmp_path, "builtin:mcts", "builtin:random")
    assert "OUT" not in out and "game over" in out
    assert last["kind"] == "result" and len(last["scores"]) == 2


#: This branch's adapters take action spaces from niwa.adapters.spaces.ENUMERATIONS
#: only, a table inside niwa: this fills it in from the game's action_space hook. Where
#: the adapters ask the hook themselves (branch plugin), the table is gone and this
#: does nothing.
WITH_SPACE = (
    "import niwa.adapters.spaces as spaces\n"
    "from niwa.engine import load\n"
    "if hasattr(spaces, 'ENUMERATIONS'):\n"
    f"    spaces.ENUMERATIONS[{GAME!r}] = load({GAME!r}).action_space\n"
)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoos_api_test_passes_through_niwas_adapter(
    venv: Venv, tmp_path: Path, players: int
) -> None:
    code = WITH_SPACE + (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from pettingzoo.test import api_test\n"
        "from niwa.adapters.pettingzoo import env\n"
        f"api_test(env({GAME!r}, {players}), num_cycles=200)\n"
        "print('api_test passed')\n"
    )
    assert "api_test passed" in _ok(venv.script(code, tmp_path))


@pytest.mark.parametrize("players", [2, 5])
def test_openspiels_random_sim_test_passes_through_niwas_adapter(
    venv: Venv, tmp_path: Path, players: int
) -> None:
    code = WITH_SPACE + (
        "import pyspiel\n"
        "import niwa.adapters.openspiel as adapter\n"
        f"name = adapter.short_name({GAME!r}) + '(players={players})'\n"
        "game = pyspiel.load_game(name)\n"
        "pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)\n"
        "print('random_sim_test passed')\n"
    )
    assert "random_sim_test passed" in _ok(venv.script(code, tmp_path))


@pytest.fixture(scope="module")
def ladder(venv: Venv, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A demo ladder of the built-in bots in every registered game, the plugin's too;
    its data folder and the leaderboards it printed."""
    data = tmp_path_factory.mktemp("ladder") / "data"
    out = _ok(venv.run(
        "-m", "niwa", "ladder", "demo", "--data", str(data), "--matches", "2",
        "--workers", "1", "--seed", "1", cwd=data.parent,
    ))  # fmt: skip
    return data, out


def test_a_ladder_rates_matches_of_the_plugin_game(ladder: tuple[Path, str]) -> None:
    _, out = ladder
    board = re.search(rf"^{GAME}: (\d+) rated matches \(season [^)]+\)", out, re.MULTILINE)
    assert board and int(board.group(1)) == 2, out
    assert "mcts@1 (built-in)" in out.split(f"{GAME}:")[1]


def test_the_web_front_serves_a_viewer_page_of_a_plugin_match(
    venv: Venv, ladder: tuple[Path, str]
) -> None:
    data, _ = ladder
    proc = subprocess.Popen(
        [str(venv.python), "-m", "niwa", "ladder", "web", "--db", str(data / "ladder.db"),
         "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        base = re.search(r"(http://\S+)", proc.stdout.readline())
        assert base, "the web front printed no address"
        matches = [json.loads(p.read_text().splitlines()[0]) for p in
                   sorted((data / "replays").glob("*.jsonl"))]
        match_id = next(m["match_id"] for m in matches if m["game"] == GAME)
        page = wait_for("the match page", lambda: _get(f"{base.group(1)}/matches/{match_id}"))
        assert page.status_code == 200
        found = re.search(r'<script type="application/json" id="niwa-payload">(.*?)</script>',
                          page.text, re.DOTALL)
        assert found, "the page carries no viewer payload"
        payload = json.loads(found.group(1))
        assert payload["game"] == GAME and payload["version"] == "tsubaki@1"
        assert payload["frames"] and payload["result"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()


def _get(url: str) -> httpx.Response | None:
    try:
        return httpx.get(url)
    except httpx.TransportError:
        return None


def test_nothing_in_the_main_packages_names_the_game() -> None:
    named = [
        str(p.relative_to(ROOT)) for p in (ROOT / "niwa").rglob("*")
        if p.is_file() and p.suffix in {".py", ".js", ".html", ".toml", ".css", ".json"}
        and GAME in p.read_text(errors="replace").lower()
    ]  # fmt: skip
    assert named == []


#: A seat's view in the middle of a trick: a hand, a trump and cards on the table.
MID_TRICK = (
    "import json, random\n"
    "from niwa.engine import CHANCE, load\n"
    f"state, rng = load({GAME!r}).new_game(3), random.Random(2)\n"
    "while not state.observe(0)['trick'] or state.to_move() == (CHANCE,):\n"
    "    (seat,) = state.to_move()\n"
    "    legal = state.legal_actions(seat)\n"
    "    state.apply({seat: state.sample_chance(rng) if seat == CHANCE else rng.choice(legal)})\n"
    "print(json.dumps(state.observe(0)))\n"
)

def test_the_viewer_renderer_draws_a_seats_view_in_chromium(venv: Venv, tmp_path: Path) -> None:
    view = json.loads(_ok(venv.script(MID_TRICK, tmp_path)))

    def look(driver: Any) -> tuple[int, list[str | None]]:
        rows = wait_for("the drawn table", lambda: driver.find_elements(
            By.CSS_SELECTOR, '[data-field="seat"]'))
        cards = driver.find_elements(By.CSS_SELECTOR, "g.card")
        return len(rows), [c.get_attribute("data-card") for c in cards]

    rows, shown = in_chromium(tmp_path, PLUGIN / "niwa_tsubaki" / "viewer.js", view, look)
    assert rows == 3
    assert shown == [view["trump"], *(c for _, c in view["trick"]), *view["hand"]]
