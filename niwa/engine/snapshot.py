"""The one snapshot envelope every game's ``to_json`` returns, and its checks.

A snapshot is ``{"game", "rules", "data", "state"}``: the game's name, its rules version,
the SHA-256 of the rules data files it was made with (board, deck, tile set), and the
game's own fields. ``from_json`` unwraps it with :meth:`SnapshotFormat.unwrap`, which
refuses a snapshot of another game, rules version or data set with a
:class:`SnapshotError` that names both sides and the fix.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, TypeVar

from niwa.engine.api import JSON
from niwa.errors import EngineError

KEYS = ("game", "rules", "data", "state")

T = TypeVar("T")


class SnapshotError(EngineError, ValueError):
    """A snapshot this installation cannot load; the message says why and what to do."""


def data_digest(package: str, names: Iterable[str]) -> str:
    """SHA-256 over the named files of ``package``'s ``data/`` folder (name and bytes of
    each, in sorted order): any edit to the rules data changes it."""
    h = hashlib.sha256()
    folder = files(package).joinpath("data")
    for name in sorted(names):
        body = folder.joinpath(name).read_bytes()
        h.update(f"{name}\0{len(body)}\0".encode())
        h.update(body)
    return h.hexdigest()


@dataclass(frozen=True)
class SnapshotFormat:
    """What a game's snapshots are stamped with: name, rules version, data digest."""

    game: str
    rules: str
    data: str

    def wrap(self, state: dict[str, JSON]) -> dict[str, JSON]:
        return {"game": self.game, "rules": self.rules, "data": self.data, "state": state}

    def load(
        self, snapshot: Any, fields: Collection[str], build: Callable[[dict[str, JSON]], T]
    ) -> T:
        """Unwrap ``snapshot``, check its state has exactly ``fields``, and ``build`` the
        state from them; a field of the wrong type or shape becomes a SnapshotError."""
        state = self.unwrap(snapshot)
        missing = sorted(set(fields) - set(state))
        extra = sorted(set(state) - set(fields))
        if missing or extra:
            parts = [f"missing {', '.join(missing)}"] if missing else []
            parts += [f"unexpected {', '.join(extra)}"] if extra else []
            raise SnapshotError(
                f"malformed {self.game} snapshot state ({'; '.join(parts)}): "
                "write snapshots with State.to_json and do not edit them"
            )
        try:
            return build(state)
        except SnapshotError:
            raise
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            raise SnapshotError(
                f"malformed {self.game} snapshot state: a field has the wrong type or value "
                f"({type(e).__name__}: {e}); write snapshots with State.to_json and do not "
                "edit them"
            ) from e

    def unwrap(self, snapshot: Any) -> dict[str, JSON]:
        """The game's fields of ``snapshot``, after checking the envelope."""
        if not isinstance(snapshot, Mapping):
            raise SnapshotError(
                f"a {self.game} snapshot is a JSON object with keys {', '.join(KEYS)}, "
                f"not {type(snapshot).__name__}"
            )
        missing = [k for k in KEYS if k not in snapshot]
        extra = sorted(str(k) for k in snapshot if k not in KEYS)
        if missing or extra:
            parts = [f"missing {', '.join(missing)}"] if missing else []
            parts += [f"unexpected {', '.join(extra)}"] if extra else []
            raise SnapshotError(
                f"not a {self.game} snapshot ({'; '.join(parts)}): expected exactly the keys "
                f"{', '.join(KEYS)}, as State.to_json writes them"
            )
        for key in ("game", "rules", "data"):
            if not isinstance(snapshot[key], str):
                raise SnapshotError(
                    f"snapshot key {key!r} must be a string, not {type(snapshot[key]).__name__}"
                )
        if not isinstance(snapshot["state"], Mapping):
            raise SnapshotError(
                f"snapshot key 'state' must be an object, not {type(snapshot['state']).__name__}"
            )
        if snapshot["game"] != self.game:
            raise SnapshotError(
                f"this is a snapshot of {snapshot['game']!r}, not of {self.game!r}: "
                f"load it with engine.load({snapshot['game']!r})"
            )
        if snapshot["rules"] != self.rules or snapshot["data"] != self.data:
            raise SnapshotError(
                f"this snapshot was made with {self.game} rules {snapshot['rules']} and data "
                f"sha256 {snapshot['data'][:12]}; installed: rules {self.rules} and data sha256 "
                f"{self.data[:12]}. Load it with the niwa version that made it, or replay the "
                "game's actions from the start with this one"
            )
        return dict(snapshot["state"])
