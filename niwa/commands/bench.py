"""``niwa bench TARGET``: measured figures for docs/benchmarks.md.

Each target lives in its own module ``niwa.commands.bench_<target>`` with
``register(subparsers)``; a target whose module is absent is simply not offered.
"""

from __future__ import annotations

from typing import Any

from niwa.cli import register_modules

TARGETS = ("engine", "referee", "ladder", "strength")


def register(sub: Any) -> None:
    parser = sub.add_parser("bench", help="run a benchmark and print its figures")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", required=True)
    register_modules(targets, "niwa.commands.bench_", TARGETS)
