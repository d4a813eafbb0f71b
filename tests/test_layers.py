"""Every layer in its place, read from the source (ast): the CLI (``niwa``) is the top
layer nothing imports; the wire contract (``niwa_proto``) is a leaf; gRPC, protobuf and
the generated code (and HTTP/2) stay in the modules at the gRPC edge; and a sandboxed Python bot
finds every package the SDK needs among those the sandbox mounts."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

from niwa.referee.sandbox import NIWA_PACKAGES

ROOT = Path(__file__).parents[1]
#: The packages below the CLI.
LOWER = ("engine", "referee", "bots", "ladder")
#: The web pages and the replay viewer: above the ladder, below the CLI.
WEB = "web"
FIRST_PARTY = frozenset({*LOWER, WEB, "niwa", "niwa_proto"})
#: The only modules that may import grpc, protobuf or the generated code: a bot's server,
#: the referee's client, the ladder's servicer, server, interceptor, client and the
#: conversion between its own types and the messages; and the bare gRPC stub that
#: ``niwa bench referee`` measures the referee's client against.
GRPC_EDGE = frozenset({
    "niwa/bots/server.py",
    "niwa/commands/bench_baselines.py",
    "niwa/referee/transport.py",
    "niwa/ladder/admission.py",
    "niwa/ladder/client.py",
    "niwa/ladder/server.py",
    "niwa/ladder/service.py",
    "niwa/ladder/wire.py",
})  # fmt: skip


def modules(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def imports(path: Path) -> list[str]:
    """Every module ``path`` imports, anywhere in it (inside functions too); relative
    imports are left out (they stay in their own package)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
    return found


def top(module: str) -> str:
    return module.split(".")[0]


def is_wire(module: str) -> bool:
    """grpc (and its health and reflection packages), protobuf, the generated code, or
    the HTTP/2 library the referee's client speaks gRPC with."""
    return top(module).startswith("grpc") or module.startswith("google.protobuf") or (
        top(module) in ("niwa_proto", "h2", "hpack")
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
    paths = modules("niwa_proto")
    assert any(p.name == "bot_pb2_grpc.py" for p in paths)

    def first_party(_: Path, module: str) -> bool:
        return top(module) in FIRST_PARTY - {"niwa_proto"}

    assert offenders(paths, first_party) == []


def test_a_sandboxed_bot_finds_what_the_sdk_imports_among_the_mounted_packages() -> None:
    """The SDK, engine and wire code, and of ``niwa`` what a bot may use (its package
    file and the RL adapters, mounted for bots like examples/openspiel-bot), import
    nothing of niwa's the sandbox leaves out."""
    usable = [p for p in modules(*NIWA_PACKAGES)
              if p.parent != ROOT / "niwa" or p.name == "__init__.py"]  # fmt: skip
    usable = [p for p in usable if "commands" not in p.parts and "series" not in p.parts]
    assert any(p.parent.name == "adapters" for p in usable)

    def not_mounted(_: Path, module: str) -> bool:
        return top(module) in FIRST_PARTY and top(module) not in NIWA_PACKAGES

    assert offenders(usable, not_mounted) == []


#: The RL adapters (``niwa/adapters``, the optional extra ``niwa[rl]``): of niwa they use
#: the engine and the bots only (a game and what plays it), and they alone import the RL
#: frameworks, so nothing else needs the extra installed (numpy is not one: the ladder's
#: fit uses it too, and it is a dependency of niwa itself).
ADAPTERS = "niwa/adapters"
ADAPTERS_MAY_IMPORT = frozenset({"engine", "bots"})
RL_PACKAGES = frozenset({"pettingzoo", "gymnasium", "pyspiel", "open_spiel"})


def test_the_adapters_import_only_the_engine_and_the_bots_of_niwa() -> None:
    paths = sorted((ROOT / ADAPTERS).rglob("*.py"))
    assert paths, "no adapter modules found"

    def outside(_: Path, module: str) -> bool:
        if module == "niwa.adapters" or module.startswith("niwa.adapters."):
            return False
        return top(module) in FIRST_PARTY and top(module) not in ADAPTERS_MAY_IMPORT

    assert offenders(paths, outside) == []


def test_only_the_adapters_import_the_rl_frameworks() -> None:
    def outside(path: Path, module: str) -> bool:
        inside = path.relative_to(ROOT).as_posix().startswith(f"{ADAPTERS}/")
        return top(module) in RL_PACKAGES and not inside

    assert offenders(modules(*LOWER, WEB, "niwa"), outside) == []


#: Imports that stay inside a function, and why: each loads something optional or slow
#: that the module's other callers never need. Nothing else imports inside a function
#: (no import deferred to break a cycle).
DEFERRED = frozenset({
    ("niwa/bots/sdk.py", "niwa.bots.server"),  # grpc only when a bot serves, so tests and tools need none
    ("niwa/ladder/db.py", "psycopg"),  # the optional PostgreSQL driver
    ("niwa/ladder/executors.py", "niwa.ladder.ray_executor"),  # Ray, optional (niwa[ray])
    ("niwa/commands/bench_ladder.py", "niwa.commands.bench_ladder_ray"),  # the same
    # the referee's guardian waits for its referee's death with no import but the stdlib
    ("niwa/referee/guardian.py", "niwa.referee.leftovers"),
    ("niwa/ladder/kept_fit.py", "ladder"),  # niwa.ladder.mle's numpy only where a board is fitted
    ("niwa/engine/testing/suite.py", "pytest"),  # the engine itself never needs pytest
})  # fmt: skip


def test_no_module_imports_inside_a_function_but_the_listed_optional_ones() -> None:
    found = set()
    for path in modules(*LOWER, WEB, "niwa"):
        tree = ast.parse(path.read_text(), str(path))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                found |= {(str(path.relative_to(ROOT)), name) for name in names}
    assert found <= DEFERRED, sorted(found - DEFERRED)
