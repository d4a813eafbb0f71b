"""Ray's node table compared look by look (niwa.ladder.ray_nodes): a lost node is one event,
however many looks see it gone. Node tables are written here as ``ray.nodes()`` returns
them; the Ray executor's tests run the real cluster."""

from __future__ import annotations

from typing import Any

from prometheus_client import REGISTRY

from niwa.ladder.ray_nodes import NodeWatch
from tests.captured_logs import every_event


def node(node_id: str, alive: bool = True) -> dict[str, Any]:
    return {"NodeID": node_id * 8, "NodeManagerAddress": f"10.0.0.{node_id}", "Alive": alive}


def test_a_lost_node_is_logged_once() -> None:
    watch = NodeWatch()
    with every_event() as events:
        watch.look([node("1"), node("2")])
        watch.look([node("1"), node("2", alive=False)])
        watch.look([node("1"), node("2", alive=False)])
        watch.look([node("1")])
    lost = [e for e in events if e["event"] == "ray_node_lost"]
    assert [e["ray_node"] for e in lost] == ["10.0.0.2:22222222"]


def test_the_first_look_logs_no_change_and_sets_the_gauge() -> None:
    watch = NodeWatch()
    with every_event() as events:
        watch.look([node("1"), node("2"), node("3", alive=False)])
    assert events == []
    assert REGISTRY.get_sample_value("niwa_ray_nodes") == 2


def test_a_node_that_joins_later_is_logged_once() -> None:
    watch = NodeWatch()
    with every_event() as events:
        watch.look([node("1")])
        watch.look([node("1"), node("2")])
        watch.look([node("1"), node("2")])
    assert [e["event"] for e in events] == ["ray_node_joined"]
