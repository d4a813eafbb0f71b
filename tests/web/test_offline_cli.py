"""``niwa replay html`` and ``niwa play --html``: one self-contained page, its inline
script allowed by hash and nothing else, bot-written text unable to end the payload's
element; unreadable or hostile replays refused with one line."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest

from niwa import engine
from niwa.cli import main
from niwa.web.offline import (
    ENTRY,
    RENDERER,
    STATIC_DIR,
    _renderer,
    bundle,
    embed_json,
    offline_html,
)
from niwa.web.replay_view import MAX_STEPS
from tests.web.matches import play

HOSTILE = "</script><script>alert(1)</script><!--"


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return play("blossom", tmp_path_factory.mktemp("offline"))


def test_replay_html_writes_one_page_with_the_payload(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "match.html"
    assert main(["replay", "html", str(replay_file), "-o", str(out)]) == 0
    page = out.read_text()
    payload = re.search(r'id="niwa-payload">(.*?)</script>', page, re.S)
    assert payload is not None
    assert json.loads(payload.group(1))["game"] == "blossom"
    assert "viewer" in capsys.readouterr().out


def test_the_page_allows_only_its_own_script_and_style_by_hash(replay_file: Path,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "match.html"
    assert main(["replay", "html", str(replay_file), "-o", str(out)]) == 0
    page = out.read_text()
    csp = re.search(r'Content-Security-Policy" content="([^"]*)"', page)
    assert csp is not None
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    assert script is not None
    digest = base64.b64encode(hashlib.sha256(script.group(1).encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}';" in csp.group(1)
    assert csp.group(1).startswith("default-src 'none';")
    assert "http" not in page.split("<script>")[0].replace("http-equiv", "")  # nothing fetched


def test_bot_written_text_cannot_end_the_payload_element() -> None:
    text = embed_json({"name": HOSTILE, "note": "\u2028&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": HOSTILE, "note": "\u2028&"}


def test_a_hostile_bot_name_adds_no_element_to_the_page(replay_file: Path) -> None:
    page = offline_html({"game": "blossom", "version": HOSTILE, "seats": [{"bot": HOSTILE}]})
    assert page.count("<script") == 2  # the payload's and the viewer's: none from the name
    assert "</script><script>alert" not in page


@pytest.mark.parametrize("game", engine.games())
def test_every_module_joins_into_one_script_with_the_games_renderer_from_its_package(
    game: str,
) -> None:
    script = bundle(ENTRY, STATIC_DIR, _renderer({"game": game, "renderer": "served"}))
    for name in ("svg.js", "viewer.js", "generic.js", RENDERER):
        assert f'__modules["{name}"] = ' in script
    assert "\nimport " not in script and "\nexport " not in script


def test_an_unreadable_replay_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "header", "schema": "niwa-replay/2"\n')
    assert main(["replay", "html", str(bad), "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not JSON" in err
    assert not (tmp_path / "x.html").exists()


def test_a_forged_step_is_a_failed_line_and_exit_1(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = replay_file.read_text().splitlines()
    i = next(i for i, line in enumerate(lines) if '"kind":"decision"' in line)
    step = json.loads(lines[i])
    step["moves"][0]["action"] = {"type": "nonsense"}
    lines[i] = json.dumps(step)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    assert main(["replay", "html", str(forged), "-o", str(tmp_path / "x.html")]) == 1
    assert "FAILED: step" in capsys.readouterr().out
    assert not (tmp_path / "x.html").exists()


def test_an_unwritable_output_is_one_line_and_exit_2(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "no-such-dir" / "x.html"
    assert main(["replay", "html", str(replay_file), "-o", str(out)]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_play_html_writes_the_viewer_without_keeping_a_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "match.html"
    args = ["play", "sakura", "--in-process", "--quiet", "--seed", "1", "--bot",
            "builtin:random", "--bot", "builtin:greedy", "--html", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "viewer:" in printed and "replay:" not in printed
    assert '"game":"sakura"' in out.read_text()


def test_a_replay_too_long_for_the_viewer_is_one_line_and_exit_2(
    replay_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header = replay_file.read_text().splitlines()[0]
    steps = (json.dumps({"kind": "chance", "index": i, "chain": "0" * 16,
                         "moves": [{"seat": -1, "action": {"card": "rose"}}]})
             for i in range(MAX_STEPS + 1))
    long = tmp_path / "long.jsonl"
    long.write_text("\n".join([header, *steps]) + "\n")
    assert main(["replay", "html", str(long), "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"at most {MAX_STEPS}" in err
    assert not (tmp_path / "x.html").exists()
