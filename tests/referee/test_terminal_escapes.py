"""Bot-written text reaches the terminal escaped: ``niwa.referee.text.printable``, and the
real commands (``niwa play``, ``niwa replay show|verify|ask``) with a sandboxed bot
whose notes, debug text, stderr and crash carry escape sequences, CR, backspace and
bidi overrides."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.engine import canonical_json
from niwa.referee import replay, sandbox
from niwa.referee.replay import check as replay_check
from niwa.referee.text import printable

#: Clear the screen, retitle the window, return to column 0, reverse the text, erase.
EVIL = "\x1b[2J\x1b]0;owned\x07\rfake row\u202eevil\u2066\x08\x9b31m"
RAW = ["\x1b", "\x07", "\r", "\u202e", "\u2066", "\x08", "\x9b"]

BOT = f'''
import os
import sys
from niwa.bots.sdk import Reply, serve

EVIL = {EVIL!r}


class Evil:
    answered = 0

    def act(self, turn):
        self.answered += 1
        if self.answered > 3:
            sys.stderr.write(EVIL + "\\n")
            sys.stderr.flush()
            os._exit(3)  # CRASHED, with this on stderr
        return Reply(index=0, note=EVIL, debug=EVIL + "\\n" + EVIL)


serve(Evil())
'''


def _assert_escaped(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"raw {ch!r} reached the terminal"


# -- printable ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\rb\nc\td", "a\\rb\\nc\\td"),
        ("back\x08space\x7f", "back\\x08space\\x7f"),
        ("\x9b2J", "\\x9b2J"),  # C1 CSI
        ("abc\u202edef", "abc\\u202edef"),  # right-to-left override
        ("\u2066x\u2069", "\\u2066x\\u2069"),  # isolates
        ("zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"),
        ("line\u2028sep", "line\\u2028sep"),
        ("hangul\u3164filler", "hangul\\u3164filler"),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("lone\udcff", "lone\\udcff"),
    ],
)
def test_printable_escapes_what_drives_or_hides(raw: str, shown: str) -> None:
    assert printable(raw) == shown


def test_printable_keeps_ordinary_text_of_any_script() -> None:
    text = "alpha-2 v1.0 日本語 Ünïcödé émoji 🌸 العربية"
    assert printable(text) == text


def test_printable_cuts_to_the_limit_without_splitting_an_escape() -> None:
    assert printable("abcdefgh", 5) == "abcd…"
    assert printable("\x1b\x1b\x1b", 6) == "\\x1b…"
    assert printable("abc", 3) == "abc"
    assert all(len(printable(EVIL * 3, n)) <= n for n in range(1, 60))


# -- the commands, with a real sandboxed bot -----------------------------------------


@pytest.fixture(scope="module")
def evil_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    d = tmp_path_factory.mktemp("evil") / "evil-bot"
    d.mkdir(mode=0o755)
    (d / "bot.py").write_text(BOT)
    (d / "bot.toml").write_text(
        'name = "evil"\nversion = "1"\ngames = ["*"]\ncommand = ["python3", "bot.py"]\n'
    )
    for f in d.iterdir():
        f.chmod(0o644)
    for p in (d, *d.parents[:2]):
        p.chmod(0o755)  # the sandbox runs the bot as another uid
    sandbox.bwrap()
    return d


@pytest.fixture(scope="module")
def played(
    evil_bot: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str, str]:
    """``niwa play`` (narrated) of the evil bot against random; its replay, out, err."""
    path = tmp_path_factory.mktemp("evil-replay") / "m.jsonl"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["play", "blossom", "--bot", str(evil_bot), "--bot", "builtin:random",
                     "--seed", "4", "--replay", str(path), "--debug"])
    assert code == 1, err.getvalue()  # the bot directory crashed
    return path, out.getvalue(), err.getvalue()


def test_the_match_recorded_the_raw_text(played: tuple[Path, str, str]) -> None:
    """The replay keeps what the bot wrote (it is data); only printing escapes it."""
    path, _, _ = played
    r = replay.read(path)
    assert r.result is not None and r.result.seats[0].reason == "CRASHED"
    assert EVIL in {m.note for s in r.steps for m in s.moves}
    assert EVIL in r.result.seats[0].stderr_tail
    assert replay_check.verify(r) == len(r.steps)  # a real sandboxed crash verifies


def test_play_narration_result_and_logs_escape_the_bot_text(
    played: tuple[Path, str, str],
) -> None:
    _, out, err = played
    _assert_escaped(out)
    _assert_escaped(err)
    assert f"# {printable(EVIL)}" in out  # the note, visible as what it is
    assert f"        debug| {printable(EVIL)}\n        debug| {printable(EVIL)}\n" in out


def test_replay_show_escapes_notes_and_details(
    played: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (names with control characters are refused when the header is read: below)
    path, _, _ = played
    lines = path.read_text().splitlines()
    result = json.loads(lines[-1])
    result["seats"][0]["detail"] = EVIL
    result["seats"][0]["reason"] = EVIL
    lines[-1] = canonical_json(result)
    forged = tmp_path / "names.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    for argv in (["show", str(forged)], ["show", str(forged), "--at", "20"]):
        assert main(["replay", *argv]) == 0
        out, err = capsys.readouterr()
        _assert_escaped(out + err)
        assert printable(EVIL) in out or "--at" in argv  # (one step shows no result)


@pytest.mark.parametrize("command", ["verify", "show"])
def test_a_header_name_with_escapes_is_refused_in_one_escaped_line(
    command: str, played: tuple[Path, str, str], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    path, _, _ = played
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["seats"][1].update(bot=EVIL, name=EVIL, version=EVIL)
    lines[0] = canonical_json(header)
    forged = tmp_path / "v.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    assert main(["replay", command, str(forged)]) == 2
    out, err = capsys.readouterr()
    _assert_escaped(out + err)
    # the first of the seat's fields read refuses it (bot, name and version are all text)
    assert "field 'seats[1]." in err and err.count("\n") == 1


def test_replay_verify_quotes_a_differing_name(
    played: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _, _ = played
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["seats"][1]["name"] = "renamed"  # a built-in's name: verify quotes it
    lines[0] = canonical_json(header)
    forged = tmp_path / "v.jsonl"
    forged.write_text("\n".join(lines) + "\n")
    assert main(["replay", "verify", str(forged)]) == 1
    out, _ = capsys.readouterr()
    assert "header seats[1].name: expected random" in out


def test_replay_ask_escapes_the_recorded_and_the_new_note(
    played: tuple[Path, str, str], evil_bot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _, _ = played
    r = replay.read(path)
    at = next(s.index for s in r.steps if s.moves[0].seat == 0 and s.moves[0].note)
    assert main(["replay", "ask", str(path), "--at", str(at), "--bot", str(evil_bot)]) == 0
    out, err = capsys.readouterr()
    _assert_escaped(out + err)
    assert out.count(printable(EVIL)) == 4  # the note recorded and now, two debug lines


def test_an_error_quoting_a_file_is_one_escaped_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"kind": "header", "schema": EVIL}) + "\n")
    assert main(["replay", "show", str(path)]) == 2
    err = capsys.readouterr().err
    _assert_escaped(err)
    assert err.count("\n") == 1
