"""A bot written against grpc directly, not the SDK, so it can break the protocol in
ways the SDK never would (tests/referee). Its first argument names the behaviour:

* ``status CODE``: every ``Act`` returns the gRPC status CODE (e.g. UNAVAILABLE).
* ``two-replies``: every ``Act`` sends two reply messages on the one call.
* ``fuzz SEED``: every ``Act`` answers something drawn from a generator seeded by SEED
  and the decision: raw random bytes, random JSON of random depth, random protobuf
  fields, huge or odd notes, error statuses, and sometimes a valid answer.
"""

from __future__ import annotations

import json
import os
import random
import sys
from concurrent import futures
from typing import Any

import grpc

from niwa.proto.v1 import bot_pb2

BEHAVIOUR = sys.argv[1]
ARGS = sys.argv[2:]
SERVICE = "niwa.v1.Bot"

ODD = "\u202e\u2066\x1b[31m\x07\x00\r\u0301\U0001f600\ufeff\uffff\U0010ffff"


def varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number: int, wire: int, payload: bytes) -> bytes:
    return varint(number << 3 | wire) + payload


def length_delimited(number: int, data: bytes) -> bytes:
    return field(number, 2, varint(len(data)) + data)


def random_json(rng: random.Random) -> str:
    """JSON text, often hostile; built without recursion."""
    kind = rng.randrange(10)
    if kind == 0:  # deep nesting, past Python's recursion limit half of the time
        depth = rng.choice([rng.randrange(100), rng.randrange(1100, 5000)])
        return "[" * depth + rng.choice(["", "1", '"take"']) + "]" * depth
    if kind == 1:
        depth = rng.randrange(1100, 3000)
        return '{"a":' * depth + "0" + "}" * depth
    if kind == 2:  # huge integers (Python's int/str limit is 4300 digits)
        return rng.choice(["", "-"]) + "9" * rng.choice([20, 64, 65, 4301, 5000, 20_000])
    if kind == 3:
        return rng.choice(["1e999", "-1e999", "NaN", "Infinity", "[1.5e308,2e308]", "1" * 400
                           + ".5", "0.1e-99999"])
    if kind == 4:  # escapes: lone surrogates, NUL, odd Unicode
        return rng.choice(['"\\ud800"', '["\\udc00x"]', '"\\u0000"', '"\\'])
    if kind == 5:
        return json.dumps({"k" + ODD: [ODD, rng.random()]}, ensure_ascii=rng.random() < 0.5)
    if kind == 6:  # punctuation soup
        soup = '[]{}",:0123456789e.-+tfnul\\ '
        return "".join(rng.choice(soup) for _ in range(rng.randrange(200)))
    if kind == 7:  # a truncated legal-looking value
        text = json.dumps({"take": [1, 2, {"x": "y"}]})
        return text[: rng.randrange(len(text))]
    if kind == 8:
        return json.dumps(rng.choice(["take", "pass", "hi", "lo"]))
    return json.dumps("x" * rng.randrange(70_000))


def random_fields(rng: random.Random) -> bytes:
    """Protobuf-shaped bytes: random field numbers and wire types, some of them
    ActReply's own fields with the wrong type, duplicated, or invalid UTF-8."""
    out = bytearray()
    for _ in range(rng.randrange(1, 8)):
        number = rng.choice([1, 2, 3, rng.randrange(1, 1 << 29)])
        wire = rng.choice([0, 1, 2, 5, 3, 4, 6, 7])
        if wire == 0:
            out += field(number, 0, varint(rng.randrange(-(1 << 63), 1 << 64)))
        elif wire == 1:
            out += field(number, 1, rng.randbytes(8))
        elif wire == 5:
            out += field(number, 5, rng.randbytes(4))
        elif wire == 2:
            data = rng.choice([rng.randbytes(rng.randrange(40)), b"\xff\xfe\xed",
                               b"\xed\xa0\x80", ODD.encode(), random_json(rng).encode()])
            out += length_delimited(number, data)
        else:
            out += field(number, wire, b"")
    if rng.random() < 0.3:  # a length that runs past the end
        out += field(2, 2, varint(1 << 20)) + b"abc"
    return bytes(out)


def fuzz_act(request: bot_pb2.ActRequest, context: grpc.ServicerContext) -> bytes:
    rng = random.Random(f"{ARGS[0]}/{request.decision}")
    legal = list(request.legal_actions_json)
    kind = rng.randrange(10)
    if kind == 0:
        return bot_pb2.ActReply(index=rng.randrange(len(legal))).SerializeToString()
    if kind == 1:
        action = json.dumps(json.loads(rng.choice(legal)), indent=rng.choice([None, 1]))
        return bot_pb2.ActReply(action_json=action, note=ODD).SerializeToString()
    if kind == 2:
        return rng.randbytes(rng.randrange(300))
    if kind in (3, 4):
        return bot_pb2.ActReply(action_json=random_json(rng)).SerializeToString()
    if kind == 5:
        return random_fields(rng)
    if kind == 6:  # odd or huge notes (under and over the 1 MiB message limit)
        size = rng.choice([1, 200, 5000, 900_000, 1_100_000])
        note = "".join(rng.choice(ODD) for _ in range(min(size, 5000)))
        note = (note * (size // max(len(note), 1) + 1))[:size]
        return bot_pb2.ActReply(index=0, note=note).SerializeToString()
    if kind == 7:
        index = rng.choice([-1, len(legal), (1 << 31) - 1, -(1 << 31)])
        return bot_pb2.ActReply(index=index).SerializeToString()
    if kind == 8:
        # not UNKNOWN: that says the handler threw, a crash (the seat would go out)
        code = rng.choice([c for c in list(grpc.StatusCode)[1:] if c.name != "UNKNOWN"])
        context.abort(code, rng.choice(["", ODD, "x" * 5000]))
    return rng.choice([b"", b"\x08", bot_pb2.ActReply(index=0).SerializeToString() * 2])


def status_act(request: bot_pb2.ActRequest, context: grpc.ServicerContext) -> bot_pb2.ActReply:
    context.abort(grpc.StatusCode[ARGS[0]], f"{ARGS[0]} on purpose")
    raise AssertionError("unreachable")


def two_replies(request: bot_pb2.ActRequest, context: grpc.ServicerContext) -> Any:
    yield bot_pb2.ActReply(index=0)
    yield bot_pb2.ActReply(index=1)


def unary(handler: Any, request: Any, reply: Any = None) -> grpc.RpcMethodHandler:
    serialize = reply.SerializeToString if reply is not None else (lambda b: b)
    return grpc.unary_unary_rpc_method_handler(handler, request.FromString, serialize)


def main() -> None:
    if BEHAVIOUR == "fuzz":
        act = unary(fuzz_act, bot_pb2.ActRequest)
    elif BEHAVIOUR == "status":
        act = unary(status_act, bot_pb2.ActRequest, bot_pb2.ActReply)
    elif BEHAVIOUR == "two-replies":
        act = grpc.unary_stream_rpc_method_handler(
            two_replies, bot_pb2.ActRequest.FromString, bot_pb2.ActReply.SerializeToString
        )
    else:
        raise SystemExit(f"unknown behaviour {BEHAVIOUR}")
    handlers = {
        "Start": unary(lambda r, c: bot_pb2.StartReply(name="raw"), bot_pb2.StartRequest,
                       bot_pb2.StartReply),
        "Act": act,
        "Finish": unary(lambda r, c: bot_pb2.FinishReply(), bot_pb2.FinishRequest,
                        bot_pb2.FinishReply),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    server.add_insecure_port(f"unix:{os.environ['NIWA_SOCKET']}")
    server.start()
    print("READY", flush=True)
    server.wait_for_termination()


main()
