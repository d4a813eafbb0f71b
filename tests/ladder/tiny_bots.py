"""Two tiny bots for served-ladder tests, and the CLI run in-process."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from niwa.cli import main

SECRET = "sleeper-private-thought"

QUICK = """
from niwa.bots.sdk import Reply, serve


class Quick:
    name = "quick"
    version = "0.2.0"

    def start(self, game):
        pass

    def act(self, turn):
        return Reply(index=0)


if __name__ == "__main__":
    serve(Quick())
"""

SLEEPER = f"""
import sys
import time

from niwa.bots.sdk import Reply, serve


class Sleeper:
    name = "sleeper"
    version = "0.1.0"

    def start(self, game):
        pass

    def act(self, turn):
        print("{SECRET}", file=sys.stderr, flush=True)
        time.sleep(3600)
        return Reply(index=0)


if __name__ == "__main__":
    serve(Sleeper())
"""


#: The value a talking bot with thinking reports for every seat: one to look for.
THINKING_VALUE = 0.4321


def talking_bot(name: str, stderr: str, note: str, debug: str, thinking: bool = False) -> str:
    """A bot (version 1.0.0) that writes ``stderr`` on every decision and answers the
    first legal action with ``note`` and ``debug``; with ``thinking``, also all the
    share on it, a value of :data:`THINKING_VALUE` per seat and it as the variation."""
    sent = (
        f"Thinking([1.0] + [0.0] * (len(turn.legal_actions) - 1), "
        f"[{THINKING_VALUE}] * self.players, turn.legal_actions[:1])" if thinking else "None"
    )
    return f"""
import sys

from niwa.bots.sdk import Reply, Thinking, serve


class Talking:
    name = {name!r}
    version = "1.0.0"

    def start(self, game):
        self.players = game.players

    def act(self, turn):
        print({stderr!r}, file=sys.stderr, flush=True)
        return Reply(index=0, note={note!r}, debug={debug!r}, thinking={sent})


if __name__ == "__main__":
    serve(Talking())
"""


def owner_tokens(db: Path, admins: tuple[str, ...], owners: tuple[str, ...]) -> dict[str, str]:
    """Add ``owners`` and ``admins`` to the store at ``db``; their API tokens by name."""
    tokens = {}
    for who in (*owners, *admins):
        code, out = cli("ladder", "user", "add", who, "--db", str(db),
                        *(["--admin"] * (who in admins)))  # fmt: skip
        assert code == 0, out
        tokens[who] = out.split()[-1]
    return tokens


def write_bot(root: Path, name: str, version: str, code: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "{version}"\ngames = ["blossom"]\n'
        'command = ["python3", "bot.py"]\n'
    )
    (folder / "bot.py").write_text(code)
    return folder


def cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(args))
    return code, out.getvalue()
