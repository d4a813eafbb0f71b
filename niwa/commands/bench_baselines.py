"""The floors ``niwa bench referee`` measures next to the referee's gRPC figure, in
the same run: a plain synchronous gRPC stub calling the same built-in bot over a Unix
socket (no trio, no sandbox, no referee); the referee's client and such a stub taking
turns on the same sandboxed bots' sockets; and a raw Unix-socket echo between two
processes (the kernel and two wake-ups: no gRPC at all)."""

from __future__ import annotations

import os
import random
import resource
import select
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import trio

from niwa import engine
from niwa.bots.sdk import READY_LINE, SOCKET_ENV, GameStart
from niwa.proto.v1 import bot_pb2, bot_pb2_grpc
from niwa.referee.match import BotSpec
from niwa.referee.players import Question, make_question
from niwa.referee.process_player import ProcessPlayer
from niwa.referee.sandbox import BotLimits
from niwa.referee.transport import BotClient

#: Calls made before timing starts (connection set-up, first-call costs).
WARM_UP = 20
#: How long the bot may take to print READY.
READY_TIMEOUT_S = 20.0

_ECHO = """
import socket, sys
s = socket.socket(fileno=int(sys.argv[1]))
while True:
    data = s.recv(1 << 20)
    if not data:
        break
    s.sendall(data)
"""


def act_requests(game: str, players: int, count: int, seed: int) -> list[Any]:
    """``count`` ActRequests as the referee sends them, from random playouts of
    ``game`` (one per decision of a seat, cycling through as many games as needed)."""
    return [request for _, request in act_questions(game, players, count, seed)]


def act_questions(game: str, players: int, count: int, seed: int) -> list[tuple[Question, Any]]:
    """Like :func:`act_requests`, each request with its question."""
    g = engine.load(game)
    rng = random.Random(seed)
    client = BotClient("/nonexistent", 64 << 20)  # builds requests only; never connects
    requests: list[tuple[Question, Any]] = []
    try:
        while len(requests) < count:
            state = g.new_game(players, g.info.validate(players, {}))
            step = 0
            while not state.is_over() and len(requests) < count:
                to_move = state.to_move()
                if to_move == (engine.CHANCE,):
                    state.apply({engine.CHANCE: engine.sample_chance(state, rng)})
                else:
                    joint: dict[int, Any] = {}
                    for seat in to_move:
                        q = make_question(step, seat, state, 31_000, 1000, seed)
                        requests.append((q, client.act_request(q)))
                        joint[seat] = rng.choice(q.legal_actions)
                    state.apply(joint)
                step += 1
    finally:
        client.close()
    return requests


def bare_stub_ms(requests: list[Any], calls: int) -> list[float]:
    """Milliseconds per ``Act`` of a plain synchronous stub to ``builtin:random``
    served as a plain process (``python -m niwa.bots.builtin random``) on a Unix socket."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bot.sock"
        env = {**os.environ, SOCKET_ENV: str(path)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "niwa.bots.builtin", "random"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        try:
            assert proc.stdout is not None
            ready, _, _ = select.select([proc.stdout], [], [], READY_TIMEOUT_S)
            line = proc.stdout.readline().decode().strip() if ready else ""
            if line != READY_LINE:
                raise RuntimeError(f"the bare-stub bot did not print {READY_LINE}: {line!r}")
            with grpc.insecure_channel(f"unix:{path}") as channel:
                stub = bot_pb2_grpc.BotStub(channel)  # type: ignore[no-untyped-call]
                stub.Start(bot_pb2.StartRequest(game="bench", players=1), timeout=10)
                times: list[float] = []
                for i in range(WARM_UP + calls):
                    request = requests[i % len(requests)]
                    t0 = time.perf_counter()
                    stub.Act(request, timeout=10)
                    if i >= WARM_UP:
                        times.append((time.perf_counter() - t0) * 1000)
                return times
        finally:
            proc.terminate()
            proc.wait(10)


def echo_ms(size: int, calls: int) -> list[float]:
    """Milliseconds per round trip of ``size`` bytes to an echoing child process over
    a Unix socket pair."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    proc = subprocess.Popen([sys.executable, "-c", _ECHO, str(theirs.fileno())],
                            pass_fds=[theirs.fileno()])
    theirs.close()
    payload = b"x" * max(1, size)
    times: list[float] = []
    try:
        for i in range(WARM_UP + calls):
            t0 = time.perf_counter()
            mine.sendall(payload)
            got = 0
            while got < len(payload):
                chunk = mine.recv(1 << 20)
                if not chunk:
                    raise RuntimeError("the echo process closed the socket")
                got += len(chunk)
            if i >= WARM_UP:
                times.append((time.perf_counter() - t0) * 1000)
    finally:
        mine.close()
        proc.wait(10)
    return times


#: What :class:`SameSocket` counts: each client's own CPU and its bots' CPU.
CPU_KEYS = ("referee_client", "referee_bots", "stub_client", "stub_bots")


@dataclass
class SameSocket:
    """Milliseconds per ``Act`` on the same sandboxed bots' sockets: the referee's
    client (``niwa.referee.transport``, as a match calls it) and a plain synchronous gRPC
    stub, taking turns call by call; and the CPU seconds each client's calls cost, on
    the calling side (this whole process: grpcio's threads too) and in the bots
    (their cgroups)."""

    referee: list[float]
    stub: list[float]
    cpu: dict[str, float] = field(default_factory=lambda: dict.fromkeys(CPU_KEYS, 0.0))

    def cpu_us(self) -> dict[str, float]:
        """Each CPU total per call, in µs."""
        calls = {"referee": len(self.referee), "stub": len(self.stub)}
        return {k: v / max(1, calls[k.split("_")[0]]) * 1e6 for k, v in self.cpu.items()}



def _process_cpu() -> float:
    """CPU seconds of this whole process (every thread), user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def same_socket_ms(game: str, players: int, calls: int, seed: int) -> SameSocket:
    """Start ``players`` sandboxed ``builtin:random`` bots as a match does (never held
    back between calls: both clients meet the same awake bots), then ask them in turn,
    as a match asks its seats, each request once through the referee's client and once
    through the stub (which goes first alternates)."""
    questions = act_questions(game, players, 200, seed)
    info = engine.load(game).info
    manifest = BotSpec.parse("builtin:random").manifest()
    result = SameSocket([], [])
    async with trio.open_nursery() as nursery:
        seats = [
            ProcessPlayer(
                manifest=manifest, bot_dir=None, seat=k, match_id="bench-same-socket",
                sandbox=True, limits=BotLimits(), startup_timeout_s=10.0, log_dir=None,
                nursery=nursery, freeze_idle=False,
            )
            for k in range(players)
        ]  # fmt: skip
        channels: list[grpc.Channel] = []
        try:
            for k, seat in enumerate(seats):
                await seat.start(GameStart(info.name, info.version, k, players, {}, 5000, 0, k), 10)
            clients = [seat.client for seat in seats]
            for client in clients:
                assert client is not None
                # the stub's channel reaches the same socket the referee's client does
                channels.append(grpc.insecure_channel(
                    f"unix:{client.target}", options=[("grpc.use_local_subchannel_pool", 1)]
                ))  # fmt: skip
            stubs = [bot_pb2_grpc.BotStub(c) for c in channels]  # type: ignore[no-untyped-call]
            for i in range(WARM_UP + calls):
                question, request = questions[i % len(questions)]
                k = i % players
                client = clients[k]
                assert client is not None
                for turn in (i % 2, 1 - i % 2):
                    bot0, cpu0 = seats[k].cpu_seconds(), _process_cpu()
                    t0 = time.perf_counter()
                    if turn == 0:
                        await client.act(question, 10.0, request)
                    else:
                        stubs[k].Act(request, timeout=10)
                    t1 = time.perf_counter()
                    cpu1, bot1 = _process_cpu(), seats[k].cpu_seconds()
                    if i >= WARM_UP:
                        side = "referee" if turn == 0 else "stub"
                        (result.referee if turn == 0 else result.stub).append((t1 - t0) * 1000)
                        result.cpu[f"{side}_client"] += cpu1 - cpu0
                        if bot0 is not None and bot1 is not None:
                            result.cpu[f"{side}_bots"] += bot1 - bot0
        finally:
            for channel in channels:
                channel.close()
            for seat in seats:
                await seat.close()
    return result
