"""Callers that send a call's headers and never its request message, over raw HTTP/2
from a chosen loopback address (gRPC's Python client cannot pick its source address).

Each connection keeps ``streams`` calls open at once: when the server ends one (a
refusal, a deadline, a drop) it opens another in its place, as an attacker renewing
its calls would
(half a second later).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0, 1, 3, 4, 6, 7
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
RENEW_S = 0.5


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return (
        struct.pack(">I", len(payload))[1:]
        + bytes([kind, flags])
        + struct.pack(">I", stream)
        + payload
    )


def literal(name: str, value: str) -> bytes:
    """An HPACK literal header field without indexing (names and values < 127 bytes)."""
    n, v = name.encode(), value.encode()
    return b"\x00" + bytes([len(n)]) + n + bytes([len(v)]) + v


class StalledConnection:
    def __init__(self, source: str, address: str, method: str, streams: int) -> None:
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), source_address=(source, 0))
        self.headers = b"".join(
            literal(k, v)
            for k, v in [
                (":method", "POST"), (":scheme", "http"), (":path", method),
                (":authority", address), ("content-type", "application/grpc"), ("te", "trailers"),
            ]
        )  # fmt: skip
        self.next_stream = 1
        self.ended = 0  # calls the server ended (refused, dropped, timed out)
        self.closed = False
        self._over: set[int] = {0}
        self._lock = threading.Lock()
        self.sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
        for _ in range(streams):
            self._open()
        self._reader = threading.Thread(target=self._read, daemon=True, name="stalled")
        self._reader.start()

    def _open(self) -> None:
        with self._lock:
            stream, self.next_stream = self.next_stream, self.next_stream + 2
            self.sock.sendall(frame(HEADERS, END_HEADERS, stream, self.headers))

    def _renew(self) -> None:
        with contextlib.suppress(OSError):
            self._open()

    def _exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            part = self.sock.recv(n - len(data))
            if not part:
                raise ConnectionError("closed")
            data += part
        return data

    def _read(self) -> None:
        try:
            while True:
                head = self._exactly(9)
                length = int.from_bytes(head[:3], "big")
                kind, flags = head[3], head[4]
                stream = int.from_bytes(head[5:], "big") & 0x7FFFFFFF
                payload = self._exactly(length)
                if kind == SETTINGS and not flags & ACK:
                    self.sock.sendall(frame(SETTINGS, ACK, 0))
                elif kind == PING and not flags & ACK:
                    self.sock.sendall(frame(PING, ACK, 0, payload))
                elif kind == GOAWAY:
                    break
                elif stream not in self._over and (
                    kind == RST_STREAM or (kind == HEADERS and flags & END_STREAM)
                ):  # trailers and then RST_STREAM may both come: renew once
                    self._over.add(stream)
                    self.ended += 1
                    # renew a moment later (at once would be a flood of its own)
                    threading.Timer(RENEW_S, self._renew).start()
        except OSError:
            pass
        finally:
            self.closed = True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self._reader.join(timeout=5)
