"""Between the ladder's own types (``niwa.ladder.views``) and the ``niwa.v1`` messages: used
by the servicer (``niwa.ladder.service``) and the client (``niwa.ladder.client``) only.

The conversion goes by field name, both ways, so a field added to a message and its
view travels without code here; tests/ladder/test_wire.py checks that every view has
exactly its message's fields.
"""

from __future__ import annotations

import dataclasses
import typing
from functools import cache
from typing import Any, TypeVar

from google.protobuf.message import Message

V = TypeVar("V")
M = TypeVar("M", bound=Message)


def to_message(view: Any, message: type[M]) -> M:
    """``view`` (a dataclass of ``niwa.ladder.views``) as ``message``; nested views become
    nested messages (protobuf builds those from the dicts ``asdict`` makes)."""
    return message(**dataclasses.asdict(view))


@cache
def _field_types(view: Any) -> dict[str, Any]:
    hints = typing.get_type_hints(view)
    return {f.name: hints[f.name] for f in dataclasses.fields(view)}


def from_message(view: type[V], message: Message) -> V:
    """``message`` as the dataclass ``view``: repeated fields become tuples, nested
    messages nested views."""
    kind: Any = view  # a dataclass type; Any for the cache and the recursion
    values: dict[str, Any] = {}
    for name, hint in _field_types(kind).items():
        value = getattr(message, name)
        if typing.get_origin(hint) is tuple:
            item = typing.get_args(hint)[0]
            value = tuple(from_message(item, v) if _is_view(item) else v for v in value)
        elif _is_view(hint):
            value = from_message(hint, value)
        values[name] = value
    return view(**values)


def _is_view(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint)
