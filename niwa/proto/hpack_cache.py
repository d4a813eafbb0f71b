"""HPACK for both ends of a bot's gRPC calls at a fraction of the cost per call.

``hpack`` is pure Python and looks every field up, logs it and encodes it again on
every call: about 40 µs of a call's CPU on the referee's side and 40-80 µs on the
bot's (docs/benchmarks.md). Yet a call's request headers are the same but for
``grpc-timeout``, and a bot's server sends the same reply headers and trailers, byte for
byte, once its HPACK table holds them. So:

* :class:`StaticEncoder` never uses the dynamic table: each field is an index into
  the static table or a literal "without indexing" (RFC 7541, 6.1 and 6.2.2), whose
  bytes do not depend on anything sent before, so each is made once and kept. The
  other side's decoder is told nothing it has to remember. The referee's client
  encodes its requests with it, and the SDK's server (niwa.bots.server) its replies.
* :class:`ReplyDecoder` keeps the headers of a block it decoded without changing its
  table, and gives them again for the same bytes while the table is still the same
  (the same entries, size and limits): the block can only decode to the same headers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import hpack
from hpack.hpack import INDEX_NONE

#: Distinct fields (or blocks) kept; past it the memo starts again (grpc-timeout's
#: value changes with the time left, so its fields come and go).
MEMO_SIZE = 64
#: Longest reply block kept: an honest server's are a few bytes once its table holds
#: them, and a hostile one's must not make the memo hold megabytes.
MEMO_BLOCK_BYTES = 256


class StaticEncoder(hpack.Encoder):
    """An HPACK encoder whose every field is independent of the connection's past."""

    def __init__(self) -> None:
        super().__init__()
        self._fields: dict[tuple[bytes, bytes], bytes] = {}

    def encode(self, headers: Iterable[Any], huffman: bool = True) -> bytes:
        block = []
        if self.header_table.resized:  # the other side changed the table's size
            block.append(self._encode_table_size_change())
            self.header_table.resized = False
        fields = self._fields
        for name, value in headers:
            key = (name, value)
            encoded = fields.get(key)
            if encoded is None:
                if len(fields) >= MEMO_SIZE:
                    fields.clear()
                encoded = fields[key] = self._field(name, value, huffman)
            block.append(encoded)
        return b"".join(block)

    def _field(self, name: bytes, value: bytes, huffman: bool) -> bytes:
        # Nothing is ever added to this encoder's dynamic table: a match is static.
        match = self.header_table.search(name, value)
        if match is None:
            return self._encode_literal(name, value, INDEX_NONE, huffman)
        index, _, perfect = match
        if perfect is not None:
            return self._encode_indexed(index)
        return self._encode_indexed_literal(index, value, INDEX_NONE, huffman)


class ReplyDecoder(hpack.Decoder):
    """An HPACK decoder that remembers blocks that left its table as it was."""

    def __init__(self, max_header_list_size: int = hpack.hpack.DEFAULT_MAX_HEADER_LIST_SIZE):
        super().__init__(max_header_list_size)
        self._blocks: dict[tuple[bytes, bool], tuple[tuple[Any, ...], list[Any]]] = {}

    def _state(self) -> tuple[Any, ...]:
        """What a block's meaning depends on. The newest entry is compared by
        identity: the memo holds it, so no other entry can take its place unnoticed."""
        table = self.header_table
        entries = table.dynamic_entries
        return (table.maxsize, table._current_size, len(entries),
                entries[0] if entries else None,
                self.max_header_list_size, self.max_allowed_table_size)  # fmt: skip

    def decode(self, data: bytes, raw: bool = False) -> Iterable[Any]:
        key = (bytes(data), raw)
        state = self._state()
        kept = self._blocks.get(key)
        if kept is not None and kept[0] == state:
            return list(kept[1])
        headers = list(super().decode(data, raw))
        if len(key[0]) <= MEMO_BLOCK_BYTES and self._state() == state:
            if len(self._blocks) >= MEMO_SIZE:
                self._blocks.clear()
            self._blocks[key] = (state, headers)
            return list(headers)
        return headers
