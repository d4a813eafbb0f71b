"""The generated gRPC code in niwa/proto/v1 is exactly what the .proto files give today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
REGENERATE = (
    "python -m grpc_tools.protoc -Iniwa_proto/v1=proto/niwa/v1 --python_out=. --pyi_out=. "
    "--grpc_python_out=. niwa/proto/v1/{name}.proto"
)


@pytest.mark.parametrize("name", ["bot", "ladder"])
def test_regenerating_from_the_proto_changes_nothing(name: str, tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-Iniwa_proto/v1={ROOT / 'proto/niwa/v1'}",
         f"--python_out={tmp_path}", f"--pyi_out={tmp_path}", f"--grpc_python_out={tmp_path}",
         f"niwa/proto/v1/{name}.proto"],
        check=True,
    )  # fmt: skip
    for generated in (f"{name}_pb2.py", f"{name}_pb2.pyi", f"{name}_pb2_grpc.py"):
        fresh = (tmp_path / "niwa/proto/v1" / generated).read_text()
        kept = (ROOT / "niwa/proto/v1" / generated).read_text()
        assert fresh == kept, f"niwa/proto/v1/{generated} is stale: {REGENERATE.format(name=name)}"


@pytest.mark.parametrize(
    "copy",
    [
        f"examples/{kit}/proto/niwa/v1/bot.proto"
        for kit in ("js-bot", "cpp-bot", "go-bot", "java-bot")
    ],
)
def test_example_bots_ship_the_same_proto(copy: str) -> None:
    assert (ROOT / copy).read_bytes() == (ROOT / "proto/niwa/v1/bot.proto").read_bytes()
