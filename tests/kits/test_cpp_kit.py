"""examples/cpp-bot: built with Debian's g++ and libgrpc++, it plays a sandboxed match."""

from __future__ import annotations

from tests.kits.kit import CPP, KitTests


class TestCppKit(KitTests):
    kit = CPP
    game = "blossom"
