"""The referee's HPACK encoder and decoder say what hpack's own would (niwa.proto.hpack_cache)."""

from __future__ import annotations

import hpack

from niwa.proto.hpack_cache import ReplyDecoder, StaticEncoder

HEADERS = [
    (b":method", b"POST"), (b":scheme", b"http"), (b":path", b"/niwa.v1.Bot/Act"),
    (b":authority", b"bot"), (b"te", b"trailers"), (b"content-type", b"application/grpc"),
]  # fmt: skip


def test_request_blocks_decode_to_the_headers_given_call_after_call() -> None:
    encoder, decoder = StaticEncoder(), hpack.Decoder()
    for timeout in (b"1500m", b"1499m", b"1500m", b"7m"):
        headers = [*HEADERS, (b"grpc-timeout", timeout)]
        assert list(decoder.decode(encoder.encode(headers), raw=True)) == headers


def test_request_blocks_leave_the_bots_table_empty() -> None:
    encoder, decoder = StaticEncoder(), hpack.Decoder()
    for timeout in (b"1500m", b"1499m"):
        decoder.decode(encoder.encode([*HEADERS, (b"grpc-timeout", timeout)]), raw=True)
    assert len(decoder.header_table.dynamic_entries) == 0


def test_a_table_size_change_is_signalled_in_the_next_block() -> None:
    encoder, decoder = StaticEncoder(), hpack.Decoder()
    encoder.header_table_size = 1024
    block = encoder.encode(HEADERS)
    assert block[0] & 0xE0 == 0x20  # a dynamic table size update comes first
    assert list(decoder.decode(block, raw=True)) == HEADERS
    assert decoder.header_table.maxsize == 1024


def test_a_repeated_reply_block_decodes_as_hpacks_decoder_does() -> None:
    server, ours, plain = hpack.Encoder(), ReplyDecoder(), hpack.Decoder()
    replies = [[(b":status", b"200"), (b"content-type", b"application/grpc")]] * 3
    for headers in replies:
        block = server.encode(headers)
        assert list(ours.decode(block, raw=True)) == list(plain.decode(block, raw=True))


def test_the_same_bytes_after_the_table_changed_are_decoded_anew() -> None:
    server, ours = hpack.Encoder(), ReplyDecoder()
    x, y = [(b"x-one", b"1")], [(b"y-two", b"2")]
    ours.decode(server.encode(x), raw=True)
    first = server.encode(x)  # x is now the newest entry: index 62
    assert list(ours.decode(first, raw=True)) == x
    ours.decode(server.encode(y), raw=True)
    again = server.encode(y)  # y is now at index 62: the same bytes
    assert again == first
    assert list(ours.decode(again, raw=True)) == y


def test_a_long_reply_block_is_decoded_but_not_kept() -> None:
    server, ours = hpack.Encoder(), ReplyDecoder()
    headers = [(b"x-long", b"v" * 400)]
    block = server.encode([(name, value, True) for name, value in headers])  # never indexed
    assert list(ours.decode(block, raw=True)) == headers
    assert ours._blocks == {}
