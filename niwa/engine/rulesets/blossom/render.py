"""Text rendering of a Blossom table and one-line descriptions of moves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from niwa.engine.api import CHANCE
from niwa.engine.rulesets.blossom.rules import KIND_INDEX, KINDS, NAMES
from niwa.engine.rulesets.blossom.scoring import arrange_points, flower_value

if TYPE_CHECKING:
    from niwa.engine.rulesets.blossom.state import BlossomState


def _cards(counts: list[int]) -> str:
    parts = [
        f"{NAMES[k]}×{counts[i]}" if counts[i] > 1 else NAMES[k]
        for i, k in enumerate(KINDS)
        if counts[i]
    ]
    return ", ".join(parts) if parts else "-"


def _a(kind: str) -> str:
    """The kind's name with its article: "a rose", "an anemone"."""
    name = NAMES[kind]
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def render(state: BlossomState, seat: int | None) -> str:
    """The table as ``seat`` sees it: hidden cards are shown only to their owner."""
    lines = []
    head = f"Blossom, {state.n} players · deck {sum(state.deck)}"
    if any(state.removed):
        head += f" · {sum(state.removed)} removed unseen"
    if state.phase == "play":
        head += f" · turn {state.turns}: seat {state.current}, action {state.actions_done + 1} of 2"
    elif state.phase == "over":
        head += " · game over"
    else:
        head += f" · {state.phase}"
    if state.end_triggered and state.phase != "over":
        head += " · 66 reached: last round"
    lines.append(head)
    lines.append(f"garden: {_cards(state.garden)}")
    for s in range(state.n):
        mark = " (dealer)" if s == state.dealer else ""
        you = " (you)" if s == seat else ""
        if s == seat:
            hand = f"hand [{_cards(state.hands[s])}]"
            down = f"down [{_cards(state.downs[s])}]"
        else:
            hand = f"hand {sum(state.hands[s])}"
            down = f"down {sum(state.downs[s])}"
        lines.append(
            f"seat {s}{mark}{you}: {state.scores[s]:>3} pts · {hand} · "
            f"yard up [{_cards(state.ups[s])}] {down}"
        )
    return "\n".join(lines)


def describe(state: BlossomState, seat: int, action: Any) -> str:
    """One sentence for ``seat`` taking ``action`` in ``state`` (before it is applied)."""
    if seat == CHANCE:
        target = state.queue[0] if state.queue else None
        if target == "dealer":
            return f"seat {action['dealer']} is the dealer and starts"
        if target == "remove":
            return "a card is removed unseen"
        if target == "garden":
            return f"{_a(action['card'])} is dealt to the garden"
        return f"seat {target} receives a card from the deck"
    kind = action.get("type") if isinstance(action, dict) else None
    who = f"seat {seat}"
    if kind == "mulligan":
        return f"{who} returns {len(action['cards'])} card(s) for the mulligan"
    if kind == "feed_down":
        return f"{who} feeds {len(action['cards'])} card(s) face down into the yard"
    if kind == "feed_up":
        return f"{who} feeds {_a(action['card'])} face up into the yard"
    if kind == "flip":
        return f"{who} turns up {', '.join(NAMES[c] for c in action['cards'])}"
    if kind == "arrange":
        k = KIND_INDEX[action["kind"]]
        if action["kind"] == "cherry":
            if action["mode"] == "draw":
                return f"{who} arranges a cherry for 0 points to draw cards"
            return f"{who} arranges a cherry for 6 points"
        value = flower_value(k, state.ups, [sum(d) for d in state.downs], state.garden)
        pts = arrange_points(value, action["count"])
        name = NAMES[action["kind"]]
        return f"{who} arranges {action['count']} {name} ({value} each) for {pts} points"
    if kind == "draw":
        if action["from"] == "deck":
            return f"{who} draws from the deck"
        return f"{who} draws {_a(action['kind'])} from the garden"
    if kind == "cherry_draw":
        return f"{who} draws a card for the cherry"
    if kind == "cherry_take":
        return f"{who} takes {_a(action['kind'])} from the garden for the cherry"
    if kind == "cherry_stop":
        return f"{who} stops drawing; the cherry goes to the garden"
    return f"{who} plays {action!r}"
