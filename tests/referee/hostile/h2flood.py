"""A bot that speaks HTTP/2 itself (no gRPC library) and, before each valid ``Act``
reply, sends a flood of one kind of frame (tests/referee/test_frame_floods.py).

Usage: ``h2flood.py KIND [COUNT]``, COUNT frames (220,000 unless given) of KIND:

* ``data-empty``: empty DATA frames on the call's stream;
* ``data-tiny``: DATA frames of one byte: PADDED, a pad length of 0, no data;
* ``unknown``: frames of an unassigned type (0xfa), which HTTP/2 says to ignore;
* ``ping``: PINGs, each of which the client must acknowledge;
* ``settings``: empty SETTINGS frames, each acknowledged too;
* ``informational``: 1xx header blocks (``:status 100``) before the real headers;
* ``window-update``: connection WINDOW_UPDATEs of 1 byte;
* ``priority``: PRIORITY frames for the call's stream;
* ``continuation``: the reply's header block followed by empty CONTINUATION frames;
* ``none``: no flood (the same server, honest).

Start and Finish are answered without a flood. A reader thread parses what the client
sends and never writes, so a client acknowledging the flood cannot deadlock it.
"""

from __future__ import annotations

import os
import queue
import socket
import sys
import threading

import hpack

from niwa.proto.v1 import bot_pb2

KIND = sys.argv[1]
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 220_000
DATA, HEADERS, PRIORITY, SETTINGS, PING, WINDOW_UPDATE, CONTINUATION = 0, 1, 2, 4, 6, 8, 9
END_STREAM, END_HEADERS, PADDED = 0x1, 0x4, 0x8
# Header blocks spelled without HPACK's dynamic table: the client's decoder stays in step.
STATUS_200 = b"\x88"
STATUS_100 = b"\x08\x03100"
GRPC_TYPE = b"\x0f\x10\x10application/grpc"
GRPC_OK = b"\x00\x0bgrpc-status\x010"


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    head = len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big")
    return head + payload


def flood(sid: int) -> bytes:
    """One frame of the flood (the continuation flood is spelled in ``reply``)."""
    if KIND == "data-empty":
        return frame(DATA, 0, sid)
    if KIND == "data-tiny":
        return frame(DATA, PADDED, sid, b"\x00")
    if KIND == "unknown":
        return frame(0xFA, 0, 0)
    if KIND == "ping":
        return frame(PING, 0, 0, b"floodpng")  # 8 bytes of opaque data
    if KIND == "settings":
        return frame(SETTINGS, 0, 0)
    if KIND == "informational":
        return frame(HEADERS, END_HEADERS, sid, STATUS_100)
    if KIND == "window-update":
        return frame(WINDOW_UPDATE, 0, 0, (1).to_bytes(4, "big"))
    if KIND == "priority":
        return frame(PRIORITY, 0, sid, (0).to_bytes(4, "big") + b"\x0f")
    raise SystemExit(f"unknown flood {KIND}")


def reply(path: str) -> bytes:
    if path.endswith("/Start"):
        return bot_pb2.StartReply(name=f"h2flood-{KIND}").SerializeToString()
    if path.endswith("/Act"):
        return bot_pb2.ActReply(index=0).SerializeToString()
    return bot_pb2.FinishReply().SerializeToString()


def answer(sock: socket.socket, sid: int, path: str) -> None:
    flooding = path.endswith("/Act") and KIND != "none"
    if flooding and KIND == "continuation":
        sock.sendall(frame(HEADERS, 0, sid, STATUS_200 + GRPC_TYPE))
        empty = frame(CONTINUATION, 0, sid)
        for start in range(0, COUNT, 4096):
            sock.sendall(empty * min(4096, COUNT - start))
        sock.sendall(frame(CONTINUATION, END_HEADERS, sid))
    else:
        # 1xx blocks come before the response's headers; DATA only after them.
        if KIND != "informational":
            sock.sendall(frame(HEADERS, END_HEADERS, sid, STATUS_200 + GRPC_TYPE))
        if flooding:
            one = flood(sid)
            for start in range(0, COUNT, 4096):
                sock.sendall(one * min(4096, COUNT - start))
        if KIND == "informational":
            sock.sendall(frame(HEADERS, END_HEADERS, sid, STATUS_200 + GRPC_TYPE))
    message = reply(path)
    body = b"\x00" + len(message).to_bytes(4, "big") + message
    sock.sendall(frame(DATA, 0, sid, body) + frame(HEADERS, END_HEADERS | END_STREAM, sid, GRPC_OK))


def read(sock: socket.socket, out: queue.Queue[tuple[int, bytes | str]]) -> None:
    """Parse the client's frames; queue acknowledgements, window updates and calls."""
    decoder = hpack.Decoder()
    buffer, block, paths, preface = b"", b"", {}, 24  # the client's b"PRI * HTTP/2.0..."
    while data := sock.recv(1 << 16):
        buffer += data
        if preface:
            skipped = min(preface, len(buffer))
            buffer, preface = buffer[skipped:], preface - skipped
        while len(buffer) >= 9 and len(buffer) >= 9 + int.from_bytes(buffer[:3], "big"):
            size = int.from_bytes(buffer[:3], "big")
            kind, flags, sid = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big")
            payload, buffer = buffer[9 : 9 + size], buffer[9 + size :]
            if kind == SETTINGS and not flags & 1:
                out.put((0, frame(SETTINGS, 1, 0)))
            elif kind in (HEADERS, CONTINUATION):
                block += payload  # the referee sends no padding or priority
                if flags & END_HEADERS:
                    paths[sid] = dict(decoder.decode(block, raw=True)).get(b":path", b"").decode()
                    block = b""
            elif kind == DATA and size:
                increment = size.to_bytes(4, "big")
                out.put((0, frame(WINDOW_UPDATE, 0, 0, increment)))
                out.put((0, frame(WINDOW_UPDATE, 0, sid, increment)))
            if kind == DATA and flags & END_STREAM:
                out.put((sid, paths.pop(sid, "")))


def serve(sock: socket.socket) -> None:
    work: queue.Queue[tuple[int, bytes | str]] = queue.Queue()
    threading.Thread(target=read, args=(sock, work), daemon=True).start()
    try:
        sock.sendall(frame(SETTINGS, 0, 0))
        while True:
            sid, item = work.get()
            if isinstance(item, bytes):
                sock.sendall(item)
            else:
                answer(sock, sid, item)
    except OSError:  # the referee closed the connection (it refused the flood)
        sock.close()


def main() -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.environ["NIWA_SOCKET"])
    listener.listen()
    print("READY", flush=True)
    while True:
        sock, _ = listener.accept()
        threading.Thread(target=serve, args=(sock,), daemon=True).start()


main()
