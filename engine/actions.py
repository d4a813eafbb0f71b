"""Legal actions of one decision, matched the way the docs promise: by canonical JSON.

Bots send JSON, and Python's ``==`` would let ``1.0`` or ``true`` stand for ``1``; an
action is legal only if its canonical JSON (:func:`engine.api.canonical_json`) is exactly
that of one listed action. Games keep a :class:`LegalActions` per decision (built once:
search bots ask for the list again and again) and parse every move through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from engine.api import Action, IllegalAction, canonical_json

#: Given an action that matched nothing, the rule it breaks and why: the game's own words.
Explain = Callable[[Action], tuple[str, str]]


def action_key(action: Action) -> str | None:
    """The canonical JSON of ``action``, or None if it is not JSON at all (a set, a
    float NaN key, a cycle): such a value can never be a legal action."""
    try:
        return canonical_json(action)
    except (TypeError, ValueError):
        return None


class LegalActions:
    """One decision's legal actions, indexed by canonical JSON."""

    __slots__ = ("_actions", "_index")

    def __init__(self, actions: Iterable[Action]) -> None:
        self._actions = list(actions)
        # Built on the first lookup only: most cached lists are read, not matched.
        self._index: dict[str, Action] | None = None

    def listing(self) -> list[Action]:
        """A copy of the list, in the game's order: a caller sorting it changes nothing."""
        return list(self._actions)

    def __len__(self) -> int:
        return len(self._actions)

    def match(self, action: Action) -> Action | None:
        """The listed action whose canonical JSON is exactly that of ``action``, or None."""
        key = action_key(action)
        if key is None:
            return None
        if self._index is None:
            self._index = {canonical_json(a): a for a in self._actions}
        return self._index.get(key)

    def parse(self, action: Action, explain: Explain) -> Action:
        """The listed action ``action`` spells, else :class:`IllegalAction` with the rule
        and reason ``explain`` gives for it."""
        found = self.match(action)
        if found is None:
            rule, why = explain(action)
            raise IllegalAction(rule, why)
        return found
