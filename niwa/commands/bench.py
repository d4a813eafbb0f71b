"""``niwa bench TARGET``: measured figures for docs/benchmarks.md.

Each target lives in its own module ``niwa.commands.bench_<target>`` with
``register(subparsers)``; a target whose module is absent is simply not offered.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

from niwa.cli import UsageError, register_modules
from niwa.commands import bench_alias

TARGETS = ("engine", "referee", "ladder", "strength", "strength_replays", "search", "web", "rl")


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


def run_child(argv: list[str], first: str | None, module: str = "niwa") -> dict[str, Any]:
    """``python -m MODULE ARGV`` (a bench writing ``--json -``, or a measuring module
    writing its JSON document) in a fresh process; its JSON document. Packages in the
    folder ``first``, if given, are imported ahead of this checkout's (a baseline's,
    measured by this harness)."""
    env = dict(os.environ)
    # This checkout's packages, named explicitly: the child runs in an empty folder, since
    # `python -m` puts the working folder first on sys.path, and a checkout there would
    # shadow the baseline's packages (both sides would then measure the same code).
    here = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [first, here, env.get("PYTHONPATH")]))
    env.pop(bench_alias.ENV, None)
    if first is not None:  # niwa/__init__.py serves niwa.<name> from it (bench_alias)
        env[bench_alias.ENV] = first
    with tempfile.TemporaryDirectory(prefix="niwa-bench-run-") as empty:
        done = subprocess.run([sys.executable, "-m", module, *argv], env=env,
                              capture_output=True, text=True, check=False, cwd=empty)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
        hint = ""
        if first is not None and last.startswith("ImportError"):
            # The measuring code is this niwa's; an older checkout lacks names it uses.
            hint = (": the baseline checkout is older than this harness can drive (it "
                    "lacks a name this niwa imports); give a newer one, or run that "
                    "checkout's own `niwa bench` against this one")
        raise UsageError(f"a measuring process failed ({done.returncode}): {last}{hint}")
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def baseline_packages(checkout: Path, packages: list[str], into: Path) -> str:
    """Links ``packages`` (``engine``, ``referee``, ``bots``, ``proto``: niwa's
    subpackages) of another checkout into the folder ``into`` (for :func:`run_child`),
    after checking it has them, with the manifest that serves them as ``niwa.<name>`` in
    the child (:mod:`niwa.commands.bench_alias`). A checkout from before niwa was one
    package has them at its top level (``niwa_proto`` for ``proto``)."""
    base = checkout.resolve()
    names: dict[str, str] = {}
    for name in packages:
        old = bench_alias.OLD_NAMES[name]
        if (base / "niwa" / name / "__init__.py").is_file():
            names[name] = f"_niwa_baseline_{name}"
            (into / names[name]).symlink_to(base / "niwa" / name)
        elif (base / old / "__init__.py").is_file():
            names[name] = old
            (into / old).symlink_to(base / old)
        else:
            raise UsageError(f"--baseline {checkout} has no niwa/{name}/ package; give a "
                             "checkout of niwa, e.g. one made by `git worktree add DIR COMMIT`")
    (into / bench_alias.MANIFEST).write_text(json.dumps(names), encoding="utf-8")
    return str(into)
