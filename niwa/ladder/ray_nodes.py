"""The Ray cluster's nodes as the runner sees them: a gauge of the alive ones, and one
log event when a node joins or is lost (not one per match that Ray re-runs)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import structlog

from niwa.ladder import metrics

#: Seconds between two looks at Ray's node table (a call to its control store).
LOOK_EVERY_S = 5.0


def _label(node: dict[str, Any]) -> str:
    return f"{node.get('NodeManagerAddress', '?')}:{str(node.get('NodeID', ''))[:8]}"


class NodeWatch:
    def __init__(self) -> None:
        self.log = structlog.get_logger("niwa.ladder")
        self._alive: dict[str, str] | None = None  # node id -> label; None: not looked yet
        self._looked = -LOOK_EVERY_S

    def now_and_then(self, nodes: Callable[[], Iterable[dict[str, Any]]]) -> None:
        """:meth:`look` at ``nodes()`` if the last look is :data:`LOOK_EVERY_S` old."""
        if time.monotonic() - self._looked >= LOOK_EVERY_S:
            self._looked = time.monotonic()
            self.look(nodes())

    def look(self, nodes: Iterable[dict[str, Any]]) -> None:
        """Compare Ray's node table (``ray.nodes()``) with the last one seen."""
        alive = {str(n["NodeID"]): _label(n) for n in nodes if n.get("Alive")}
        metrics.RAY_NODES.set(len(alive))
        before, self._alive = self._alive, alive
        if before is None:
            return
        for node_id in before.keys() - alive.keys():
            metrics.RAY_NODES_LOST.inc()
            self.log.warning(
                "ray_node_lost", ray_node=before[node_id], alive=len(alive),
                effect="Ray re-runs its matches on the other nodes",
            )  # fmt: skip
        for node_id in alive.keys() - before.keys():
            self.log.info("ray_node_joined", ray_node=alive[node_id], alive=len(alive))
