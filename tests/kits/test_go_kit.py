"""examples/go-bot: built offline with Debian's Go and grpc-go, it plays a sandboxed match."""

from __future__ import annotations

from tests.kits.kit import GO, KitTests


class TestGoKit(KitTests):
    kit = GO
    game = "sakura"
