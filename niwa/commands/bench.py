"""``niwa bench TARGET``: measured figures for docs/benchmarks.md.

Each target lives in its own module ``niwa.commands.bench_<target>`` with
``register(subparsers)``; a target whose module is absent is simply not offered.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from niwa.cli import register_modules

TARGETS = ("engine", "referee", "ladder", "strength", "search", "web")


def register(sub: Any) -> None:
    parser = sub.add_parser("bench", help="run a benchmark and print its figures")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)
    register_modules(targets, "niwa.commands.bench_", TARGETS)


def add_json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json",
        metavar="FILE",
        help="also write the figures as one JSON document (a single object) to FILE; "
        "- writes it to stdout and the text table to stderr",
    )


def text_out(args: argparse.Namespace) -> TextIO:
    """Where the text table goes: stderr when the JSON document takes stdout."""
    return sys.stderr if getattr(args, "json", None) == "-" else sys.stdout


def write_json(args: argparse.Namespace, document: dict[str, Any]) -> None:
    """The figures as one JSON document, if ``--json`` asked for them."""
    target = getattr(args, "json", None)  # a Namespace built by hand may lack it
    if target is None:
        return
    text = json.dumps(document, indent=1, allow_nan=False) + "\n"
    if target == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        Path(target).write_text(text, encoding="utf-8")
