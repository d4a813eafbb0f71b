"""``niwa new-game NAME``: start a game of your own as a plug-in distribution."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from niwa.cli import UsageError
from niwa.scaffold import ScaffoldError, make

EPILOG = """\
The new folder is a distribution of its own (pyproject.toml, the package, its rules page,
tests). It holds a small complete game to change: install it and it runs at once.

next steps:
  cd NAME-plugin && pip install -e . && pytest tests
  niwa play NAME --bot builtin:random --bot builtin:mcts

docs/adding-a-game.md walks through each file and hook."""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "new-game",
        help="start a new game: a plug-in distribution that passes the conformance suite",
        description="Writes DIR/NAME-plugin/: a game plug-in for niwa (package niwa_NAME, "
        "entry point niwa.games) holding a small complete game, its rules page and tests.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", metavar="NAME",
                   help="the game's name: lowercase letters and digits (e.g. hanafuda)")
    p.add_argument("--dir", type=Path, default=Path("."),
                   help="where to write NAME-plugin/ (default: the current folder)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        target = make(args.name, args.dir)
    except ScaffoldError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {target}/ (package niwa_{args.name}, rules {args.name}.md)")
    print("next:")
    print(f"  cd {target} && pip install -e . && pytest tests")
    print(f"  niwa play {args.name} --bot builtin:random --bot builtin:mcts")
    return 0
