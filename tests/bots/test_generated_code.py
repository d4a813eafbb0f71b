"""The generated gRPC code in niwa/v1 is exactly what bot.proto gives today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
GENERATED = ("bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py")


def test_regenerating_from_bot_proto_changes_nothing(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"--python_out={tmp_path}", f"--pyi_out={tmp_path}", f"--grpc_python_out={tmp_path}",
         str(ROOT / "proto/niwa/v1/bot.proto")],
        check=True,
    )
    for name in GENERATED:
        fresh = (tmp_path / "niwa/v1" / name).read_text()
        kept = (ROOT / "niwa/v1" / name).read_text()
        assert fresh == kept, f"niwa/v1/{name} is stale: regenerate it (see niwa/v1/__init__.py)"


@pytest.mark.parametrize("copy", ["examples/js-bot/proto/niwa/v1/bot.proto"])
def test_example_bots_ship_the_same_proto(copy: str) -> None:
    assert (ROOT / copy).read_bytes() == (ROOT / "proto/niwa/v1/bot.proto").read_bytes()
