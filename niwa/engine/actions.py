"""Legal actions of one decision, matched the way the docs promise: as canonical JSON.

Bots send JSON, and Python's ``==`` would let ``1.0`` or ``true`` stand for ``1``; an
action is legal only if its canonical JSON (:func:`niwa.engine.api.canonical_json`) is exactly
that of one listed action. Games keep a :class:`LegalActions` per decision (built once:
search bots ask for the list again and again) and parse every move through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from niwa.engine.api import Action, IllegalAction

#: Given an action that matched nothing, the rule it breaks and why: the game's own words.
Explain = Callable[[Action], tuple[str, str]]


def same_json(a: Any, b: Any) -> bool:
    """For two values already ``==``: whether their canonical JSON is the same, i.e. they
    have the same JSON types all the way down (``1``, ``1.0`` and ``true`` are all ``==``).
    Walked by hand rather than serialised: apply runs this on every move."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        for k, v in a.items():
            if not same_json(v, b[k]):
                return False
    elif type(a) is list:
        for x, y in zip(a, b, strict=True):
            if not same_json(x, y):
                return False
    return True


class LegalActions:
    """One decision's legal actions, looked up by their canonical JSON."""

    __slots__ = ("_actions",)

    def __init__(self, actions: Iterable[Action]) -> None:
        self._actions = list(actions)

    def listing(self) -> list[Action]:
        """A copy of the list, in the game's order: a caller sorting it changes nothing."""
        return list(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def match(self, action: Action) -> Action | None:
        """The listed action whose canonical JSON is exactly that of ``action``, or None.

        Same JSON implies ``==``, so ``==`` (in C) finds the candidates and
        :func:`same_json` confirms the types; a value that is not JSON at all (a set, a
        tuple) is ``==`` to no listed action."""
        for listed in self._actions:
            # ``is``: an in-process bot hands back one of the listed objects themselves.
            if listed is action or (listed == action and same_json(listed, action)):
                return listed
        return None

    def parse(self, action: Action, explain: Explain) -> Action:
        """The listed action ``action`` spells, else :class:`IllegalAction` with the rule
        and reason ``explain`` gives for it."""
        found = self.match(action)
        if found is None:
            rule, why = explain(action)
            raise IllegalAction(rule, why)
        return found
