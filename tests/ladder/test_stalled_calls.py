"""Callers that send headers and stall, and large anonymous bodies, against a real
ladder served over gRPC: honest callers keep being served, and the ladder's memory stays
within the documented bound. Latency and memory figures are printed (``-s``) as a
measurement; only success and the memory bound are asserted."""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import pytest

from niwa.ladder import client, server
from niwa.ladder.admission import ApiLimits
from niwa.ladder.store import Store
from niwa.proto.v1 import ladder_pb2 as pb
from niwa.proto.v1 import ladder_pb2_grpc as pb_grpc
from tests.ladder.relay import Relay
from tests.ladder.serving import start_ladder
from tests.ladder.stalling import StalledConnection
from tests.polling import PATIENCE_S, wait_for

LIST_BOTS = "/niwa.v1.Ladder/ListBots"
STALLERS = 200
ADDRESSES = [f"127.0.0.{n}" for n in range(2, 10)]  # 8 addresses, 25 stalled calls each
#: Stalled calls that may wait at once (16 per address); the rest are refused and renew.
WAITING = ApiLimits().waiting_per_peer * len(ADDRESSES)


@pytest.fixture
def address(store: Store, tmp_path: Path) -> Iterator[str]:
    running, port = server.start(str(tmp_path / "ladder.db"), None, "127.0.0.1:0")
    yield f"127.0.0.1:{port}"
    running.stop(None).wait()


def stall(address: str) -> list[StalledConnection]:
    """200 stalled calls: per address 5 connections of 5 calls."""
    return [
        StalledConnection(source, address, LIST_BOTS, streams=5)
        for source in ADDRESSES
        for _ in range(STALLERS // len(ADDRESSES) // 5)
    ]


def honest_calls(
    address: str, callers: int, each: int, until: Callable[[], bool] = lambda: True
) -> list[float]:
    """``callers`` clients of their own, each making anonymous ListBots calls one after
    another: at least ``each``, and on until ``until()``; the seconds each call took (a
    refused call fails the test)."""

    def one_client() -> list[float]:
        with grpc.insecure_channel(address, options=client.OPTIONS) as channel:
            stub = pb_grpc.LadderStub(channel)  # type: ignore[no-untyped-call]
            took: list[float] = []
            while len(took) < each or not until():
                start = time.perf_counter()
                stub.ListBots(pb.ListBotsRequest(), timeout=PATIENCE_S)
                took.append(time.perf_counter() - start)
            return took

    with ThreadPoolExecutor(callers) as pool:
        return [t for took in pool.map(lambda _: one_client(), range(callers)) for t in took]


def report(what: str, took: list[float]) -> None:
    ms = sorted(t * 1000 for t in took)
    print(
        f"\n{what}: {len(ms)} calls, median {statistics.median(ms):.1f} ms, "
        f"p95 {ms[int(len(ms) * 0.95) - 1]:.1f} ms, max {ms[-1]:.1f} ms, "
        f"load average {os.getloadavg()[0]:.2f}"
    )


def test_honest_calls_are_served_while_200_stalled_calls_renew(address: str) -> None:
    stalled = stall(address)
    try:
        # the stallers are in place: the ladder has started dropping and refusing them
        wait_for(
            "the ladder to drop or refuse the stalled calls beyond its waiting places",
            lambda: sum(c.ended for c in stalled) >= STALLERS - WAITING,
        )
        # honest calls go on while the waiting stalled calls reach their receive
        # deadline and are renewed, twice over
        end = time.monotonic() + 2 * ApiLimits().receive_timeout_s + 1
        took = honest_calls(address, 4, 25, until=lambda: time.monotonic() > end)
        report("anonymous ListBots beside 200 stalled calls", took)
        assert len(took) >= 100
        assert not any(c.closed for c in stalled)  # they kept stalling to the end
    finally:
        for c in stalled:
            c.close()


def test_a_stalled_call_holds_no_call_slot(address: str) -> None:
    """200 stalled calls, more than the anonymous call budget (64): all 64 anonymous call
    slots stay free for honest calls made at once. The honest calls come from four
    addresses of their own, 16 each (the per-address budget), through relays."""
    limits = ApiLimits()
    sources = [f"127.0.0.{n}" for n in range(10, 10 + limits.calls // limits.calls_per_peer)]
    relays = [Relay(source, address) for source in sources]
    stalled = stall(address)
    try:
        wait_for("a stalled call to be refused", lambda: sum(c.ended for c in stalled) > 0)
        with ThreadPoolExecutor(limits.calls) as pool:
            took = list(
                pool.map(
                    lambda n: honest_calls(relays[n % len(relays)].address, 1, 1)[0],
                    range(limits.calls),
                )
            )
        report(f"{limits.calls} concurrent anonymous ListBots beside 200 stalled calls", took)
        assert len(took) == limits.calls
    finally:
        for c in stalled:
            c.close()
        for r in relays:
            r.close()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


#: The bound docs/security.md states for 16 concurrent 30 MiB anonymous requests.
BIG_BODIES_BOUND_MIB = 64


def test_16_big_anonymous_requests_grow_the_ladder_by_at_most_the_documented_bound(
    tmp_path: Path,
) -> None:
    proc, address = start_ladder(tmp_path / "ladder.db", tmp_path / "ladder.log")
    try:
        with grpc.insecure_channel(address, options=client.OPTIONS) as channel:
            stub = pb_grpc.LadderStub(channel)  # type: ignore[no-untyped-call]
            stub.ListBots(pb.ListBotsRequest(), timeout=PATIENCE_S)  # warmed up
        before = rss_kib(proc.pid)
        peak = [before]
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.05):
                peak[0] = max(peak[0], rss_kib(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        big = pb.ListBotsRequest(game="g" * (30 << 20))
        codes = []

        def send() -> None:
            with grpc.insecure_channel(address, options=client.OPTIONS) as channel:
                stub = pb_grpc.LadderStub(channel)  # type: ignore[no-untyped-call]
                try:
                    stub.ListBots(big, timeout=PATIENCE_S)
                    codes.append(grpc.StatusCode.OK)
                except grpc.RpcError as e:
                    codes.append(e.code())

        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda _: send(), range(16)))
        time.sleep(0.5)  # a sample after the last refusal
        done.set()
        sampler.join()
        after = rss_kib(proc.pid)
        grown = (peak[0] - before) / 1024
        print(
            f"\nladder RSS: {before / 1024:.0f} MiB before, peak {peak[0] / 1024:.0f} MiB "
            f"(+{grown:.0f}), {after / 1024:.0f} MiB after 16 x 30 MiB anonymous ListBots"
        )
        assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 16
        assert grown <= BIG_BODIES_BOUND_MIB
    finally:
        proc.terminate()
        proc.wait(PATIENCE_S)
