"""examples/java-bot: built with Debian's JDK and grpc-java, it plays a sandboxed match."""

from __future__ import annotations

from tests.kits.kit import JAVA, KitTests


class TestJavaKit(KitTests):
    kit = JAVA
    game = "miyabi"
