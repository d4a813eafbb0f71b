"""Draining a runner: stop claiming, finish (or hand back) what is in flight, give the
lease up, exit. The request and the runner's progress travel through the store (one
``settings`` row per runner, ``drain:NODE``), so ``niwa ladder drain`` needs only what
every node has, the store's URL, and reaches a runner whatever its address.

States of the row: ``requested`` (by the command), ``draining`` (the runner took it:
no more claims, its matches in flight finish until the deadline), ``drained`` (the
runner handed back what was left, released the lease and stops).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from niwa.ladder.store import Store

REQUESTED, DRAINING, DRAINED = "requested", "draining", "drained"
#: Seconds a draining runner lets its matches in flight finish before handing the rest
#: back to the queue (for the next leader to play).
DEFAULT_DEADLINE_S = 300.0


@dataclass(frozen=True)
class Drain:
    state: str
    deadline_s: float
    in_flight: int = 0
    finished: int = 0  # matches this runner recorded while draining
    handed_back: int = 0
    leader: bool = False  # it held the lease when it took the request


def key(node: str) -> str:
    return f"drain:{node}"


def read(store: Store, node: str) -> Drain | None:
    value = store.settings.setting(key(node))
    if value is None:
        return None
    fields = json.loads(value)
    return Drain(**fields)


def write(store: Store, node: str, drain: Drain) -> None:
    store.settings.set_setting(key(node), json.dumps(asdict(drain), sort_keys=True))


def forget(store: Store, node: str) -> None:
    store.db.execute("DELETE FROM settings WHERE key = ?", (key(node),))
