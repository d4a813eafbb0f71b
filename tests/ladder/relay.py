"""A TCP relay that reaches the ladder from a chosen loopback address, so that a real
gRPC client (which cannot pick its source address) counts as another peer.

Every connection accepted on the relay's own port is paired with a new connection to
the target made from ``source``; bytes are copied both ways until either side ends.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class Relay:
    def __init__(self, source: str, target: str) -> None:
        host, port = target.rsplit(":", 1)
        self.source, self.target = source, (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True, name="relay").start()

    def _accept(self) -> None:
        while True:
            try:
                inner, _ = self.listener.accept()
            except OSError:  # closed
                return
            outer = socket.create_connection(self.target, source_address=(self.source, 0))
            with self._lock:
                self._sockets += [inner, outer]
            for a, b in ((inner, outer), (outer, inner)):
                threading.Thread(target=self._copy, args=(a, b), daemon=True).start()

    @staticmethod
    def _copy(a: socket.socket, b: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := a.recv(65536):
                b.sendall(data)
        with contextlib.suppress(OSError):
            b.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        self.listener.close()
        with self._lock:
            for s in self._sockets:
                with contextlib.suppress(OSError):
                    s.close()
