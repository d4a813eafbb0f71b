"""``niwa new-game NAME``: the plug-in it writes installs into a fresh venv, passes its
own tests (niwa's conformance suite among them) on first run, and plays a sandboxed
match; mistakes in the name or the folder are one line naming the fix."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from niwa.cli import main
from niwa.engine import registry
from tests.plugin.fresh_venv import Venv, fresh_venv, ok
from tests.plugin.renderer_page import in_chromium
from tests.polling import wait_for

NAME = "hanafuda"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    parent = tmp_path_factory.mktemp("scaffold")
    assert main(["new-game", NAME, "--dir", str(parent)]) == 0
    return parent / f"{NAME}-plugin"


@pytest.fixture(scope="module")
def venv(written: Path, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    return fresh_venv(tmp_path_factory.mktemp("fresh-venv"), written)


def test_the_plugin_has_its_package_rules_page_tests_and_entry_point(written: Path) -> None:
    files = {p.relative_to(written).as_posix() for p in written.rglob("*") if p.is_file()}
    package = f"niwa_{NAME}"
    assert {"pyproject.toml", "README.md", f"{NAME}.md", "tests/test_rules.py",
            f"{package}/__init__.py", f"{package}/state.py", f"{package}/game.py",
            f"{package}/actions.py", f"{package}/heuristic.py", f"{package}/viewer.js",
            f"{package}/py.typed"} <= files  # fmt: skip
    assert f'{NAME} = "{package}:GAME"' in (written / "pyproject.toml").read_text()
    leftovers = [f for f in files if "__" + "NAME__" in (written / f).read_text()]
    assert leftovers == [], "placeholders left in the written files"


def test_every_rules_citation_in_the_plugin_names_a_section_of_its_page(written: Path) -> None:
    page = (written / f"{NAME}.md").read_text()
    sections = set(re.findall(r"^## (\d+)\.", page, re.MULTILINE))
    cited = {m for p in written.rglob("*.py")
             for m in re.findall(rf"{NAME}\.md §(\d+)|§(\d+)", p.read_text())
             for m in m if m}  # fmt: skip
    assert cited and cited <= sections


def test_the_plugins_own_tests_pass_on_first_run(venv: Venv) -> None:
    out = ok(venv.run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=venv.plugin))
    passed = re.search(r"(\d+) passed", out)
    assert passed and int(passed.group(1)) >= 100 and "failed" not in out, out


def test_the_new_game_plays_a_sandboxed_match_to_the_end(venv: Venv, tmp_path: Path) -> None:
    replay = tmp_path / "match.jsonl"
    ok(venv.run(
        "-m", "niwa", "play", NAME, "--bot=builtin:random", "--bot=builtin:mcts",
        "--seed", "3", "--time", "5s+120s", "--replay", str(replay), cwd=tmp_path,
    ))  # fmt: skip
    lines = [json.loads(line) for line in replay.read_text().splitlines()]
    assert lines[0]["game"] == NAME and lines[0]["sandbox"] is True
    result = lines[-1]
    assert result["kind"] == "result" and result["decisions"] == 3  # §2: hands of 3
    assert {s["status"] for s in result["seats"]} == {"ok"}


def test_the_game_is_registered_in_the_fresh_venv_only(venv: Venv, tmp_path: Path) -> None:
    out = ok(venv.script("from niwa.engine import registry; print(registry.games())", tmp_path))
    assert NAME in out and NAME not in registry.games()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Hanafuda", "cannot name a game: use 2 to 30 lowercase letters and digits"),
        ("x", "cannot name a game"),
        ("hana-fuda", "cannot name a game"),
        ("sakura", "a game named 'sakura' is already registered: pick another name"),
    ],
)
def test_a_bad_name_is_one_line_naming_the_fix(
    name: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new-game", name, "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("niwa new-game: error: ") and message in err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / f"{NAME}-plugin").mkdir()
    (tmp_path / f"{NAME}-plugin" / "mine.txt").write_text("keep me")
    assert main(["new-game", NAME, "--dir", str(tmp_path)]) == 2
    assert "already exists: remove it, or pass --dir elsewhere" in capsys.readouterr().err
    assert (tmp_path / f"{NAME}-plugin" / "mine.txt").read_text() == "keep me"



def test_a_dir_that_does_not_exist_yet_is_made(tmp_path: Path) -> None:
    assert main(["new-game", NAME, "--dir", str(tmp_path / "games" / "mine")]) == 0
    assert (tmp_path / "games" / "mine" / f"{NAME}-plugin" / "pyproject.toml").is_file()


def test_a_dir_that_is_a_file_is_refused_naming_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "games").write_text("")
    assert main(["new-game", NAME, "--dir", str(tmp_path / "games")]) == 2
    assert "is a file, not a folder: pass --dir a folder" in capsys.readouterr().err

FIRST_ROUND = (
    "import json, random\n"
    "from niwa.engine import CHANCE, load\n"
    f"state, rng = load({NAME!r}).new_game(3), random.Random(2)\n"
    "while state.observe(0)['shown'] is None:\n"
    "    if state.to_move() == (CHANCE,):\n"
    "        state.apply({CHANCE: state.sample_chance(rng)})\n"
    "    else:\n"
    "        state.apply({s: rng.choice(state.legal_actions(s)) for s in state.to_move()})\n"
    "print(json.dumps(state.observe(0)))\n"
)


def test_its_viewer_renderer_draws_a_seats_view_in_chromium(
    venv: Venv, written: Path, tmp_path: Path
) -> None:
    view = json.loads(ok(venv.script(FIRST_ROUND, tmp_path)))

    def look(driver: Any) -> list[str]:
        rows = wait_for("the drawn seats", lambda: driver.find_elements(
            By.CSS_SELECTOR, "[data-seat]"))
        hand = driver.find_element(By.CSS_SELECTOR, '[data-field="hand"]')
        return [r.text for r in rows] + [hand.text]

    texts = in_chromium(tmp_path, written / f"niwa_{NAME}" / "viewer.js", view, look)
    assert texts[0].startswith(f"seat 0: score {view['scores'][0]}")
    assert f"showed {view['shown'][2]}" in texts[2]
    assert texts[-1] == "your hand: " + " ".join(str(c) for c in view["hand"])
