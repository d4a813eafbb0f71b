"""The parts of a snapshot that every call shares: read-only JSON containers, the
canonical encoder that writes their text once, and holes that text fills.

A placed tile never changes, so its JSON is built once and the same objects go into
every later snapshot and observation (and those of the state's clones): copying each
tile on every call made ``to_json`` and ``observe`` grow with the tiles on the board.
Shared objects must not be edited, or every later snapshot would carry the edit; these
containers refuse it with a ``TypeError`` instead. They are a ``dict`` and a ``list``
to everything that reads them (``==``, ``json.dumps``, ``isinstance``), and a copy of
them (``copy.copy``, ``copy.deepcopy``, pickling) is a plain, editable one.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Final, NoReturn

#: ``engine.canonical_json``'s spelling with its ``JSONEncoder`` made once: ``json.dumps``
#: with options makes one per call, about a µs that each small piece would pay.
encode: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False
).encode


def hole(index: int) -> str:
    """A string that stands for kept text ``index`` in a value given to :data:`encode`;
    no string of a snapshot holds the character NUL it starts with."""
    return f"\0{index}"


#: A hole as :data:`encode` spells it ("\u0000" and the index, in quotes).
_SPELLED_HOLE = re.compile(r'"\\u0000(\d+)"')


def fill(text: str, pieces: list[str]) -> str:
    """``text`` with each hole's spelling replaced by its piece of kept text."""
    parts = _SPELLED_HOLE.split(text)
    parts[1::2] = [pieces[int(i)] for i in parts[1::2]]
    return "".join(parts)


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(
        f"this {type(self).__name__} is shared by every snapshot of the game and cannot be "
        "changed; edit a copy (copy.deepcopy)"
    )


class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self) -> tuple[type, tuple[dict[str, Any]]]:
        return dict, (dict(self),)


class FrozenList(list[Any]):
    """A ``list`` that refuses every change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce__(self) -> tuple[type, tuple[list[Any]]]:
        return list, (list(self),)
