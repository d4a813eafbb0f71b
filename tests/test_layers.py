"""Every layer in its place, read from the source (ast): the CLI (``niwa``) is the top
layer nothing imports; the wire contract (``niwa.proto``) is a leaf; gRPC, protobuf and
the generated code (and HTTP/2) stay in the modules at the gRPC edge; ``niwa.errors``, the
exceptions' root, is the bottom layer every other may import."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[1]
#: The packages below the CLI (each ``niwa.<name>``).
LOWER = ("engine", "referee", "bots", "ladder")
#: The web pages and the replay viewer: above the ladder, below the CLI.
WEB = "web"
#: The code generated from proto/: a leaf.
WIRE = "proto"
SUBPACKAGES = frozenset({*LOWER, WEB, WIRE})
#: ``niwa.errors``: the root of every exception niwa raises, imported by every layer.
ERRORS = "errors"
#: The only modules that may import grpc, protobuf or the generated code: a bot's server,
#: the referee's client, the ladder's servicer, server, interceptor, client and the
#: conversion between its own types and the messages; and the bare gRPC stub that
#: ``niwa bench referee`` measures the referee's client against.
GRPC_EDGE = frozenset({
    "niwa/bots/server.py",
    "niwa/commands/bench_baselines.py",
    "niwa/referee/transport.py",
    "niwa/ladder/admission.py",
    "niwa/ladder/call_timer.py",
    "niwa/ladder/client.py",
    "niwa/ladder/server.py",
    "niwa/ladder/service.py",
    "niwa/ladder/wire.py",
})  # fmt: skip


def modules(*packages: str) -> list[Path]:
    """The files of ``niwa.<package>`` for each; "niwa" stands for the CLI layer: the
    files of niwa outside those subpackages."""
    found = []
    for package in packages:
        if package == "niwa":
            found += [p for p in (ROOT / "niwa").rglob("*.py")
                      if p.relative_to(ROOT / "niwa").parts[0] not in SUBPACKAGES]  # fmt: skip
        else:
            found += (ROOT / "niwa" / package).rglob("*.py")
    return sorted(found)


def imports(path: Path) -> list[str]:
    """Every module ``path`` imports, anywhere in it (inside functions too); relative
    imports are left out (they stay in their own package). ``from niwa import x``
    counts as importing ``niwa.x``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "niwa":
                found += [f"niwa.{alias.name}" for alias in node.names]
            else:
                found.append(node.module)
    return found


def top(module: str) -> str:
    """The layer a module belongs to: a subpackage's name for ``niwa.<sub>...``,
    ``niwa`` for the rest of niwa (the CLI layer), else the first name (a third party)."""
    parts = module.split(".")
    if parts[:2] == ["niwa", ERRORS]:
        return ERRORS
    if parts[0] == "niwa":
        return parts[1] if len(parts) > 1 and parts[1] in SUBPACKAGES else "niwa"
    return parts[0]


def is_wire(module: str) -> bool:
    """grpc (and its health and reflection packages), protobuf, the generated code, or
    the HTTP/2 library the referee's client speaks gRPC with."""
    return top(module).startswith("grpc") or module.startswith("google.protobuf") or (
        top(module) in (WIRE, "h2", "hpack")
    )


def offenders(paths: list[Path], bad: Callable[[Path, str], bool]) -> list[str]:
    return [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in paths
        for module in imports(path)
        if bad(path, module)
    ]


def test_nothing_below_the_cli_imports_it() -> None:
    assert modules(*LOWER), "no modules found: is ROOT the repository?"
    assert offenders(modules(*LOWER, WEB), lambda _, m: top(m) == "niwa") == []


def test_nothing_below_the_web_package_imports_it() -> None:
    assert modules(WEB), "no web modules found"
    assert offenders(modules(*LOWER), lambda _, m: top(m) == WEB) == []


def test_only_the_grpc_edge_modules_import_grpc_protobuf_or_generated_code() -> None:
    def outside_the_edge(path: Path, module: str) -> bool:
        return is_wire(module) and path.relative_to(ROOT).as_posix() not in GRPC_EDGE

    assert offenders(modules(*LOWER, WEB, "niwa"), outside_the_edge) == []


def test_every_edge_module_exists_and_is_at_the_edge() -> None:
    """The allowed list names real modules that do import the wire (no stale entries
    that would let a new module in unnoticed)."""
    for name in sorted(GRPC_EDGE):
        assert any(is_wire(m) for m in imports(ROOT / name)), name


def test_the_wire_package_imports_nothing_of_niwa() -> None:
    paths = modules(WIRE)
    assert any(p.name == "bot_pb2_grpc.py" for p in paths)

    def first_party(_: Path, module: str) -> bool:
        return module.startswith("niwa.") and top(module) != WIRE

    assert offenders(paths, first_party) == []


def test_the_errors_module_imports_nothing_of_niwa() -> None:
    """It is the bottom layer: any layer may import it without a cycle."""
    path = ROOT / "niwa" / "errors.py"
    assert offenders([path], lambda _, module: module.split(".")[0] == "niwa") == []
