"""examples/cpp-bot: built with Debian's g++ and libgrpc++, it plays a sandboxed match,
and a ladder accepts the built folder (its binary keeps its executable bit)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from niwa.cli import main
from tests.kits.kit import CPP, KitTests
from tests.ladder.serving import start_ladder


class TestCppKit(KitTests):
    kit = CPP
    game = "blossom"

    def test_a_ladder_accepts_the_built_folder_after_its_validation_match(
        self, built: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        db = tmp_path / "ladder.db"
        assert main(["ladder", "user", "add", "alice", "--db", str(db)]) == 0
        token = capsys.readouterr().out.split()[-1]
        proc, address = start_ladder(db, tmp_path / "ladder.log", "--game", self.game)
        try:
            argv = ["ladder", "submit", str(built[0]), "--server", address, "--token", token]
            code = main(argv)
            out = capsys.readouterr().out
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait()
        assert code == 0 and f"({self.kit.name}@1.0.0, {self.game}): accepted" in out, out
