"""Building a starter kit (examples/<lang>-bot) into a temporary bot directory, and
what its tests check on a sandboxed match of it against ``builtin:random``."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from niwa.cli import main
from niwa.referee import replay

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: A cold build on a busy two-core machine (Go compiles Debian's gRPC sources once).
BUILD_TIMEOUT_S = 900


@dataclass(frozen=True)
class Kit:
    folder: str  # under examples/
    name: str  # bot.toml's name
    commands: tuple[str, ...]  # the toolchain's programs
    files: tuple[str, ...]  # the libraries it builds against
    packages: str  # what `apt-get install` needs, for the skip message

    def build(self, out: Path) -> Path:
        """``build.sh out``: ``out`` becomes a bot directory the sandbox uid can read.
        Skips, naming the packages, when the toolchain is not installed."""
        missing = [c for c in self.commands if shutil.which(c) is None]
        missing += [f for f in self.files if not Path(f).exists()]
        if missing:
            pytest.skip(f"examples/{self.folder} needs its toolchain: apt-get install "
                        f"{self.packages} (missing: {', '.join(missing)})")  # fmt: skip
        done = subprocess.run(
            [str(EXAMPLES / self.folder / "build.sh"), str(out)],
            capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            pytest.fail(f"examples/{self.folder}/build.sh failed: {done.stderr.strip()[-3000:]}")
        out.chmod(0o755)  # pytest makes its folders 0700; the bot's own uid must enter
        return out


def play(bot: Path, game: str, path: Path) -> Path:
    """A sandboxed match of ``bot`` (seat 0) against ``builtin:random``, its replay kept."""
    argv = ["play", game, "--bot", str(bot), "--bot", "builtin:random", "--seed", "5",
            "--replay", str(path), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    return path


class KitTests:
    """What every kit's test file checks; a subclass names its kit and a game."""

    kit: Kit
    game: str

    @pytest.fixture(scope="class")
    @classmethod
    def built(cls, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
        """The kit built into a temporary bot directory, and the replay of its match."""
        root = tmp_path_factory.mktemp(cls.kit.folder)
        bot = cls.kit.build(root / "bot")
        return bot, play(bot, cls.game, root / "match.jsonl")

    def test_its_sandboxed_match_against_random_has_every_move_ok(
        self, built: tuple[Path, Path]
    ) -> None:
        r = replay.read(built[1])
        assert r.header.sandbox and [s.name for s in r.header.seats] == [self.kit.name, "random"]
        assert r.result is not None and {s.status for s in r.result.seats} == {"ok"}
        moves = [m for s in r.steps for m in s.moves if m.seat == 0]
        assert moves and {m.status for m in moves} == {"OK"}

    def test_its_thinking_is_kept_in_each_of_its_moves(self, built: tuple[Path, Path]) -> None:
        r = replay.read(built[1])
        states = {s.index: before for s, before, _ in replay.states(r)}
        for step in r.steps:
            for m in (m for m in step.moves if m.seat == 0):
                n = len(states[step.index].legal_actions(0))
                assert m.thinking is not None, m.debug[-120:]  # a dropped one says why there
                assert m.thinking.shares == [round(1 / n, 4)] * n
                assert m.thinking.pv == [m.action]

    def test_its_replay_verifies(
        self, built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert main(["replay", "verify", str(built[1])]) == 0
        assert "every hash and the result match" in capsys.readouterr().out

    def test_asked_again_it_gives_the_recorded_answer(
        self, built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
    ) -> None:
        bot, path = built
        at = next(s.index for s in replay.read(path).steps if any(m.seat == 0 for m in s.moves))
        argv = ["replay", "ask", str(path), "--at", str(at), "--seat", "0", "--bot", str(bot)]
        assert main(argv) == 0
        assert capsys.readouterr().out.rstrip().endswith("same answer")

CPP = Kit(
    "cpp-bot", "cpp-example",
    commands=("g++", "pkg-config", "protoc", "grpc_cpp_plugin"),
    files=("/usr/include/grpcpp/grpcpp.h", "/usr/include/nlohmann/json.hpp"),
    packages="g++ pkg-config libgrpc++-dev protobuf-compiler protobuf-compiler-grpc "
    "nlohmann-json3-dev",
)  # fmt: skip
GO = Kit(
    "go-bot", "go-example",
    commands=("go", "protoc"),
    files=("/usr/share/gocode/src/google.golang.org/grpc",
           "/usr/share/gocode/src/github.com/golang/protobuf/protoc-gen-go"),
    packages="golang-go golang-google-grpc-dev golang-goprotobuf-dev protobuf-compiler",
)  # fmt: skip
JAVA = Kit(
    "java-bot", "java-example",
    commands=("javac", "jar", "java", "protoc", "grpc_java_plugin"),
    files=tuple(f"/usr/share/java/{j}.jar" for j in (
        "grpc-netty", "netty-codec-http2", "perfmark-api", "protobuf", "gson",
        "geronimo-annotation-1.3-spec")),
    packages="openjdk-17-jdk-headless libgrpc-java libnetty-java libperfmark-java "
    "libprotobuf-java libgoogle-gson-java libgeronimo-annotation-1.3-spec-java "
    "protobuf-compiler protobuf-compiler-grpc-java-plugin",
)  # fmt: skip
