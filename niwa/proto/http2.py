"""The HTTP/2 connection both ends of a bot's gRPC calls set up the same way: the
SDK's server (:mod:`niwa.bots.server`) and the referee's client
(:mod:`niwa.referee.transport`), each with ``h2`` and HPACK of its own."""

from __future__ import annotations

import h2.config
import h2.connection
import h2.settings
import hpack

#: HTTP/2's initial flow-control window, before either side's settings.
DEFAULT_WINDOW = 65_535


def connection(
    *, client: bool, encoder: hpack.Encoder, decoder: hpack.Decoder, window: int,
    max_header_bytes: int,
) -> h2.connection.H2Connection:
    """A connection whose preface is ready to send, its windows (the stream's and the
    connection's) opened to ``window`` bytes so a whole message fits, and header
    blocks refused over ``max_header_bytes``.

    h2's header checks are off: our own headers are constants, and of the peer's only
    a few values are read, as bytes (the checks cost a third of a call's time)."""
    config = h2.config.H2Configuration(
        client_side=client, header_encoding=None,
        validate_outbound_headers=False, normalize_outbound_headers=False,
        validate_inbound_headers=False, normalize_inbound_headers=False,
    )  # fmt: skip
    conn = h2.connection.H2Connection(config)
    conn.encoder = encoder
    conn.decoder = decoder
    settings = {
        h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE: max_header_bytes,
        h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window,
    }
    if client:
        settings[h2.settings.SettingCodes.ENABLE_PUSH] = 0
    conn.local_settings = h2.settings.Settings(client=client, initial_values=settings)
    conn.initiate_connection()
    conn.increment_flow_control_window(window - DEFAULT_WINDOW)
    # Settings given as initial values are in force at once, so h2 never applies this
    # one to its HPACK decoder (it does on an acknowledged change): set it.
    decoder.max_header_list_size = max_header_bytes
    return conn
