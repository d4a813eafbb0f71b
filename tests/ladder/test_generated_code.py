"""The generated gRPC code for the ladder API is exactly what ladder.proto gives today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
GENERATED = ("ladder_pb2.py", "ladder_pb2.pyi", "ladder_pb2_grpc.py")


def test_regenerating_from_ladder_proto_changes_nothing(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"--python_out={tmp_path}", f"--pyi_out={tmp_path}", f"--grpc_python_out={tmp_path}",
         str(ROOT / "proto/niwa/v1/ladder.proto")],
        check=True,
    )  # fmt: skip
    for name in GENERATED:
        fresh = (tmp_path / "niwa/v1" / name).read_text()
        kept = (ROOT / "niwa/v1" / name).read_text()
        assert fresh == kept, (
            f"niwa/v1/{name} is stale: python -m grpc_tools.protoc -Iproto --python_out=. "
            "--pyi_out=. --grpc_python_out=. proto/niwa/v1/ladder.proto"
        )
