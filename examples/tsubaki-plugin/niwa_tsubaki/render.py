"""Text pictures and move sentences, built from an observation only (so they can show
nothing the viewer may not see)."""

from __future__ import annotations

from collections.abc import Mapping

from niwa.engine import CHANCE, JSON, Action, canonical_json

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def table(obs: Mapping[str, JSON]) -> str:
    n = obs["players"]
    trump = obs["trump"]
    head = (
        f"Tsubaki round {obs['round'] + 1}/{obs['rounds']}, {obs['hand_size']} card(s),"
        f" dealer seat {obs['dealer']}, phase {obs['phase']}"
    )
    lines = [head, f"trumps: {SUIT_NAMES[trump[1]] + ' (' + trump + ')' if trump else '-'}"]
    for s in range(n):
        bid = obs["bids"][s]
        lines.append(
            f"seat {s}: score {obs['scores'][s]}, bid {'-' if bid is None else bid},"
            f" tricks {obs['tricks_won'][s]}, {obs['hand_counts'][s]} card(s)"
        )
    if obs["trick"]:
        lines.append("trick: " + " ".join(f"{s}:{c}" for s, c in obs["trick"]))
    if obs.get("hand") is not None:
        lines.append(f"your hand (seat {obs['seat']}): {' '.join(obs['hand']) or '-'}")
    if obs["phase"] == "over":
        lines.append("game over: " + ", ".join(f"seat {s} {p}" for s, p in
                                              enumerate(obs["scores"])))
    return "\n".join(lines)


def describe(obs: Mapping[str, JSON], seat: int, action: Action) -> str:
    """A sentence for ``seat`` taking ``action`` in the state ``obs`` (public) shows."""
    if seat == CHANCE:
        n, dealt = obs["players"], sum(obs["hand_counts"])
        if dealt < n * obs["hand_size"]:
            return f"a card is dealt to seat {(obs['dealer'] + 1 + dealt) % n}"
        card = action["card"]
        return f"{card} is turned up: {SUIT_NAMES[card[1]]} are trumps"
    if isinstance(action, dict) and "bid" in action:
        return f"seat {seat} bids {action['bid']}"
    if isinstance(action, dict) and "card" in action:
        return f"seat {seat} plays {action['card']}"
    return f"seat {seat} tries {canonical_json(action)}, which is no move (tsubaki.md §9)"
