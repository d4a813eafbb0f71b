"""The SDK's own gRPC server (h2, a thread per connection) against grpcio's client and a
raw HTTP/2 client, in a real bot process on a real Unix socket."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import h2.config
import h2.connection
import h2.events
import hpack
import pytest

from niwa.bots.server import _REPLY_HEADERS, _FieldDecoder, _trailers
from niwa.proto.hpack_cache import StaticEncoder
from niwa.proto.v1 import bot_pb2, bot_pb2_grpc
from tests.polling import PATIENCE_S, wait_for

# A bot whose act() raises on decision 1; on decision 2, says it is busy (a file) and
# waits until the test lets it go (another file); on 3 and 4 sends thinking, good and
# not JSON; on 5 sends itself SIGTERM, in the connection's thread.
_BOT = """
import os, signal, sys, threading, time
from niwa.bots.sdk import Reply, Thinking, serve

class Bot:
    name = "probe"
    version = "7"

    def start(self, game):
        print("started", game.game, game.seat, file=sys.stderr, flush=True)

    def act(self, turn):
        if turn.decision == 1:
            raise ValueError("no answer to decision 1")
        if turn.decision == 2:
            open(os.environ["BUSY"], "w").close()
            while not os.path.exists(os.environ["RELEASE"]):
                time.sleep(0.01)
        if turn.decision == 3:
            return Reply(index=0, thinking=Thinking([0.5, 0.25, 0.25], [0.6, 0.4], ["a", "b"]))
        if turn.decision == 4:
            return Reply(index=0, thinking=Thinking(pv=[object()]))
        if turn.decision == 5:
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
        return len(turn.legal_actions) - 1

    def finish(self, result):
        print("finished", list(result.places), file=sys.stderr, flush=True)

serve(Bot())
"""


@dataclass
class _Bot:
    process: subprocess.Popen[str]
    socket: str
    busy: Path
    release: Path

    def stub(self) -> tuple[grpc.Channel, bot_pb2_grpc.BotStub]:
        # A connection of its own: grpcio's channels to one address share one otherwise.
        channel = grpc.insecure_channel(f"unix:{self.socket}",
                                        options=[("grpc.use_local_subchannel_pool", 1)])
        return channel, bot_pb2_grpc.BotStub(channel)  # type: ignore[no-untyped-call]

    def stderr(self) -> str:
        self.process.terminate()
        _, err = self.process.communicate(timeout=PATIENCE_S)
        return err


@pytest.fixture
def bot(tmp_path: Path) -> Iterator[_Bot]:
    script = tmp_path / "bot.py"
    script.write_text(_BOT)
    sock = str(tmp_path / "bot.sock")
    busy, release = tmp_path / "busy", tmp_path / "release"
    env = {**os.environ, "NIWA_SOCKET": sock, "BUSY": str(busy), "RELEASE": str(release)}
    process = subprocess.Popen([sys.executable, str(script)], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "READY"
        yield _Bot(process, sock, busy, release)
    finally:
        release.touch()  # a handler still waiting ends
        if process.poll() is None:
            process.kill()
        process.communicate()


def _act(decision: int, observation: str = "{}") -> bot_pb2.ActRequest:
    return bot_pb2.ActRequest(decision=decision, seat=0, observation_json=observation,
                              legal_actions_json=['"a"', '"b"', '"c"'])  # fmt: skip


def _send_act(path: str, message: bytes, flag: int = 0,
              encoding: bytes = b"identity") -> tuple[socket.socket, h2.connection.H2Connection]:
    """An Act call over a plain HTTP/2 connection, sent whole; the socket and the
    connection's state, to read the reply or to close mid-call."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(header_encoding=None))
    conn.initiate_connection()
    conn.send_headers(1, [(b":method", b"POST"), (b":scheme", b"http"),
                          (b":path", b"/niwa.v1.Bot/Act"), (b":authority", b"bot"),
                          (b"content-type", b"application/grpc"), (b"te", b"trailers"),
                          (b"grpc-encoding", encoding)])  # fmt: skip
    conn.send_data(1, bytes([flag]) + len(message).to_bytes(4, "big") + message, end_stream=True)
    sock.sendall(conn.data_to_send())
    return sock, conn


def _read_reply(sock: socket.socket, conn: h2.connection.H2Connection) -> dict[bytes, bytes]:
    """The reply's headers and trailers together (what came before the server closed)."""
    fields: dict[bytes, bytes] = {}
    while data := sock.recv(65536):
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived | h2.events.TrailersReceived):
                fields.update(event.headers)
            if isinstance(event, h2.events.StreamEnded):
                return fields
        sock.sendall(conn.data_to_send())
    return fields


def test_grpcio_s_client_gets_start_act_and_finish_answered(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel:
        started = stub.Start(bot_pb2.StartRequest(game="blossom", seat=1, players=2),
                             timeout=PATIENCE_S)  # fmt: skip
        reply = stub.Act(_act(0), timeout=PATIENCE_S)
        stub.Finish(bot_pb2.FinishRequest(scores=[1.0, 0.0], places=[1, 2], seat=1),
                    timeout=PATIENCE_S)  # fmt: skip
    assert (started.name, started.version) == ("probe", "7")
    assert reply.WhichOneof("choice") == "index" and reply.index == 2
    err = bot.stderr()
    assert "started blossom 1" in err and "finished [1, 2]" in err


def test_an_exception_in_act_is_status_unknown_with_its_line_and_a_traceback(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel, pytest.raises(grpc.RpcError) as raised:
        stub.Act(_act(1), timeout=PATIENCE_S)
    assert raised.value.code() == grpc.StatusCode.UNKNOWN  # type: ignore[attr-defined]
    assert raised.value.details() == "ValueError: no answer to decision 1"  # type: ignore[attr-defined]
    err = bot.stderr()
    assert "Traceback (most recent call last)" in err and "ValueError: no answer" in err


def test_a_replys_thinking_reaches_the_client_as_its_message(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel:
        reply = stub.Act(_act(3), timeout=PATIENCE_S)
    assert list(reply.thinking.shares) == [0.5, 0.25, 0.25]
    assert list(reply.thinking.values) == [0.6, 0.4]
    assert list(reply.thinking.pv_json) == ['"a"', '"b"']


def test_a_thinking_that_does_not_encode_is_left_out_with_a_line_on_stderr(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel:
        reply = stub.Act(_act(4), timeout=PATIENCE_S)
    assert reply.index == 0 and not reply.HasField("thinking")
    assert "niwa: thinking left out of the reply: TypeError: " in bot.stderr()


def test_a_sigterm_taken_by_a_connections_thread_stops_the_bot(bot: _Bot) -> None:
    # The kernel may hand a SIGTERM to any thread; the main thread, waiting for the
    # next connection, must still learn of it (under load the bot outlived it).
    channel, stub = bot.stub()
    with channel, contextlib.suppress(grpc.RpcError):  # answered, or ended by the stop
        stub.Act(_act(5), timeout=PATIENCE_S)
    assert bot.process.wait(timeout=PATIENCE_S) == 0


def test_an_unknown_method_is_unimplemented(bot: _Bot) -> None:
    channel, _ = bot.stub()
    with channel, pytest.raises(grpc.RpcError) as raised:
        channel.unary_unary("/niwa.v1.Bot/Resign")(b"", timeout=PATIENCE_S)
    assert raised.value.code() == grpc.StatusCode.UNIMPLEMENTED  # type: ignore[attr-defined]
    assert "/niwa.v1.Bot/Resign" in raised.value.details()  # type: ignore[attr-defined]


def test_a_request_over_4_mib_is_resource_exhausted_and_the_bot_serves_on(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel:
        with pytest.raises(grpc.RpcError) as raised:
            stub.Act(_act(0, "[" + "0," * (2 << 20) + "0]"), timeout=PATIENCE_S)
        assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        assert "over the bot's limit" in raised.value.details()  # type: ignore[attr-defined]
        assert stub.Act(_act(0), timeout=PATIENCE_S).index == 2


def test_a_request_of_almost_4_mib_is_answered(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel:
        reply = stub.Act(_act(0, "[" + "0," * (1 << 20) + "0]"), timeout=PATIENCE_S)
    assert reply.index == 2


def test_a_compressed_request_is_unimplemented_with_the_reason(bot: _Bot) -> None:
    sock, conn = _send_act(bot.socket, _act(0).SerializeToString(), flag=1, encoding=b"gzip")
    with sock:
        fields = _read_reply(sock, conn)
    assert fields[b"grpc-status"] == b"12"
    assert b"compressed request (gzip)" in fields[b"grpc-message"]


def test_a_client_that_leaves_mid_call_does_not_stop_the_bot(bot: _Bot) -> None:
    sock, _ = _send_act(bot.socket, _act(2).SerializeToString())
    wait_for("the bot to be inside act()", bot.busy.exists)
    sock.close()
    bot.release.touch()
    channel, stub = bot.stub()
    with channel:
        assert stub.Act(_act(0), timeout=PATIENCE_S).index == 2
    assert bot.process.poll() is None


def test_a_new_connection_is_answered_while_a_call_on_another_is_still_in_act(bot: _Bot) -> None:
    stuck_channel, stuck = bot.stub()
    channel, stub = bot.stub()
    with stuck_channel, channel:
        pending = stuck.Act.future(_act(2), timeout=PATIENCE_S)
        wait_for("the bot to be inside act()", bot.busy.exists)
        assert stub.Act(_act(0), timeout=PATIENCE_S).index == 2
        assert not pending.done()
        bot.release.touch()
        assert pending.result().index == 2


def test_sigterm_stops_the_bot(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel:
        stub.Act(_act(0), timeout=PATIENCE_S)
    bot.process.terminate()
    assert bot.process.wait(timeout=PATIENCE_S) == 0


def test_sigterm_ends_a_call_still_in_act_at_once(bot: _Bot) -> None:
    channel, stub = bot.stub()
    with channel:
        pending = stub.Act.future(_act(2), timeout=PATIENCE_S)
        wait_for("the bot to be inside act()", bot.busy.exists)
        bot.process.terminate()
        with pytest.raises(grpc.RpcError) as raised:
            pending.result()
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    assert bot.process.wait(timeout=PATIENCE_S) == 0


_REQUEST = [(b":method", b"POST"), (b":scheme", b"http"), (b":path", b"/niwa.v1.Bot/Act"),
            (b":authority", b"bot"), (b"te", b"trailers"),
            (b"content-type", b"application/grpc")]  # fmt: skip


def test_the_request_decoder_reads_the_referee_s_blocks_as_hpack_does() -> None:
    ours, theirs, encoder = _FieldDecoder(), hpack.Decoder(), StaticEncoder()
    for timeout in (b"1234m", b"99m", b"1234m", b"\xff\x00"):  # kept fields and new ones
        block = encoder.encode([*_REQUEST, (b"grpc-timeout", timeout)])
        assert ours.decode(block, raw=True) == list(theirs.decode(block, raw=True))


def test_the_request_decoder_reads_blocks_that_index_their_fields_as_hpack_does() -> None:
    ours, theirs, encoder = _FieldDecoder(), hpack.Decoder(), hpack.Encoder()
    for call in range(4):  # grpcio's way: fields added to the table, then referred to
        block = encoder.encode([*_REQUEST, (b"grpc-timeout", b"%dm" % call)],
                               huffman=call % 2 == 0)  # fmt: skip
        assert ([tuple(h) for h in ours.decode(block, raw=True)]
                == [tuple(h) for h in theirs.decode(block, raw=True)])  # fmt: skip


def test_the_reply_encoder_s_kept_blocks_decode_to_their_headers_after_a_table_resize() -> None:
    encoder, decoder = StaticEncoder(), hpack.Decoder()
    fields = [*_REPLY_HEADERS, *_trailers(b"2", "ValueError: 100% wrong\né")]
    first = encoder.encode(fields)
    encoder.header_table_size = 256  # the client's SETTINGS_HEADER_TABLE_SIZE
    resized = encoder.encode(fields)
    again = encoder.encode(fields)
    for block in (first, resized, again):
        assert [tuple(h) for h in decoder.decode(block, raw=True)] == [tuple(f) for f in fields]
    assert again == first != resized
    assert dict(fields)[b"grpc-message"] == b"ValueError: 100%25 wrong%0A%C3%A9"
