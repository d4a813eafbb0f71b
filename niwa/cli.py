"""``niwa``: one console command, one sub-command module per area (niwa/commands/)."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import sys
from collections.abc import Sequence
from typing import Any

from niwa import config
from niwa.errors import CommandError
from niwa.referee.text import printable

# Each module has register(subparsers) and sets args.run(args) -> exit code.
COMMANDS = (
    "play", "replay", "match", "tournament", "bench", "ladder", "new_game", "bot", "train",
)
#: The longest error line printed (a message may quote untrusted text).
ERROR_SHOWN = 2000


class UsageError(CommandError):
    """A bad argument found after parsing: printed as one line, exit code 2."""


def register_modules(sub: Any, prefix: str, names: Sequence[str]) -> None:
    """Let each module ``prefix + name`` add its sub-command; an absent one is skipped."""
    for name in names:
        try:
            module = importlib.import_module(prefix + name)
        except ModuleNotFoundError as e:
            if e.name != prefix + name:
                raise
            continue
        module.register(sub)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given the arguments, only the command they name is
    imported (a command's module brings in its own dependencies: the web server, the
    ladder's store, numpy), so ``niwa play`` does not pay for ``niwa ladder``'s."""
    parser = argparse.ArgumentParser(
        prog="niwa", description="Tournaments and ladders for game-playing bots."
    )
    parser.add_argument("--version", action="version", version=f"niwa {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    register_modules(sub, "niwa.commands.", _named(argv) or COMMANDS)
    return parser


def _named(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The module of the command ``argv`` starts with, if it names one; otherwise none
    (no command, ``--help``, a misspelt one: all are registered, for the full list)."""
    if not argv or argv[0].startswith("-"):
        return ()
    module = argv[0].replace("-", "_")
    return (module,) if module in COMMANDS and module.replace("_", "-") == argv[0] else ()


def _version() -> str:
    """The installed distribution's version (what pip installed, not a copy in the code)."""
    try:
        return importlib.metadata.version("niwa")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed: pip install -e .)"


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        config.apply(parser, argv, args)  # the file's keys, under the command line's flags
        code: int = args.run(args)
    # may quote a bot's name or a file's bytes: escaped, one line
    except (UsageError, config.ConfigError) as e:
        print(f"niwa {args.command}: error: {printable(str(e), ERROR_SHOWN)}", file=sys.stderr)
        return 2
    except CommandError as e:  # the arguments were fine; what they named was not
        print(f"niwa {args.command}: error: {printable(str(e), ERROR_SHOWN)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `niwa replay show F | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
