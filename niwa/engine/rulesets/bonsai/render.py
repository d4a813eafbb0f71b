"""Text pictures of the table and one-line narration of moves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from niwa.engine import CHANCE
from niwa.engine.rulesets.bonsai.rules import (
    CARD_KINDS,
    GOALS,
    POT,
    POT_FLIPPED,
    SLOTS,
    TILES,
    coords,
)
from niwa.engine.rulesets.bonsai.seat import Seat
from niwa.engine.rulesets.bonsai.tree import Tree

if TYPE_CHECKING:
    from niwa.engine.rulesets.bonsai.state import BonsaiState

GLYPH = {0: "Wo", 1: "Le", 2: "Fl", 3: "Fr"}
POT_GLYPH = "~~"
FACE_UP = frozenset({"growth", "tool"})  # beside the Seishi; the rest go face down (RB)
LEGEND = "Wo wood  Le leaf  Fl flower  Fr fruit  ~~ pot; cells (u, v): bud (0, 0), u+2 is right"


def card_name(kind: str | None) -> str:
    if kind is None:
        return "(empty)"
    card = CARD_KINDS[kind]
    if card.type == "tool":
        return "Tool (+2 capacity)"
    if card.type == "growth" and card.tile is not None:
        return f"Growth ({TILES[card.tile]})"
    if card.type == "master":
        return "Master (" + " + ".join("any" if t is None else TILES[t] for t in card.tiles) + ")"
    if card.type == "helper" and card.tile is not None:
        return f"Helper (any + {TILES[card.tile]})"
    return f"Parchment ({card.points} per {card.per})"


def _card_list(kinds: list[str]) -> str:
    """Card names with counts, in the order first taken: "Growth (leaf) x2; Tool (+2 ...)"."""
    counts: dict[str, int] = {}
    for kind in kinds:
        counts[kind] = counts.get(kind, 0) + 1
    return "; ".join(card_name(k) + (f" x{n}" if n > 1 else "") for k, n in counts.items())


def tree_picture(tree: Tree, flipped: bool = False) -> list[str]:
    """The bonsai and its pot as rows of text, top row first; 2 columns per unit of u."""
    pot = POT_FLIPPED if flipped else POT
    cells = {coords(c): GLYPH[t] for c, t in tree.items()}
    cells.update({coords(c): POT_GLYPH for c in pot})
    us = [u for u, _ in cells]
    vs = [v for _, v in cells]
    umin, umax = min(us), max(us)
    lines = []
    for v in range(max(vs), min(vs) - 1, -1):
        row = [" "] * (2 * (umax - umin) + 2)
        for (u, vv), glyph in cells.items():
            if vv == v:
                col = 2 * (u - umin)
                row[col : col + 2] = glyph
        lines.append(f"{v:>4} | " + "".join(row).rstrip())
    ruler = [" "] * (2 * (umax - umin) + 4)
    for u in range(umin, umax + 1):
        if u % 4 == 0:
            label = str(u)
            col = 2 * (u - umin)
            ruler[col : col + len(label)] = label
    lines.append("   u | " + "".join(ruler).rstrip())
    return lines


def render(state: BonsaiState, seat: int | None = None) -> str:
    """The whole table: the shared part, each seat's side, then how the game stands."""
    who = "spectator" if seat is None else f"seat {seat}"
    out = [f"Bonsai, {state.players} player(s), seen by {who}; phase {state.phase}"]
    out += _table_lines(state)
    scores = state.scores()
    for i, me in enumerate(state.seats):
        mark = " <- to move" if i == state.current and state.phase != "over" else ""
        out += ["", f"seat {i}: {scores[i]['total']} points{mark}", *_seat_lines(me)]
    out.append(LEGEND)
    out += _standing_lines(state)
    return "\n".join(out)


def _table_lines(state: BonsaiState) -> list[str]:
    """The deck, the four board slots with their tiles, open goals and discards."""
    deck = f"deck {state.deck_size()} card(s)"
    if state.phase == "over":
        deck += ", game over"
    elif state.end_triggered:
        deck += f", last round ({state.turns_left} more turn(s) after this one)"
    out = [deck]
    for i, kind in enumerate(state.board):
        slot = SLOTS[i]
        extra = [TILES[t] for t in slot.take] + (
            ["/".join(TILES[t] for t in slot.choice)] if slot.choice else []
        )
        bonus = f" + {' and '.join(extra)}" if extra else ""
        out.append(f"  slot {i + 1}: {card_name(kind)}{bonus}")
    if state.goals_open:
        goals = ", ".join(f"{g} ({GOALS[g].points})" for g in state.goals_open)
        out.append(f"goals on the table: {goals}")
    if state.discards:
        out.append(f"discard pile: {len(state.discards)} card(s)")
    return out


def _seat_lines(me: Seat) -> list[str]:
    """One player's supply, cards, goal tiles and bonsai (two in the Emperor challenge)."""
    supply = ", ".join(f"{me.supply[t]} {TILES[t]}" for t in range(4) if me.supply[t])
    out = [f"  supply ({sum(me.supply)}/{me.capacity()}): {supply or 'empty'}"]
    face_up = [c for c in me.cards if CARD_KINDS[c].type in FACE_UP]
    pile = [c for c in me.cards if CARD_KINDS[c].type not in FACE_UP]
    if face_up:
        out.append("  face up: " + _card_list(face_up))
    if pile:
        out.append("  face-down pile: " + _card_list(pile))
    if me.claimed or me.renounced:
        out.append(f"  goals claimed: {me.claimed}, renounced: {me.renounced}")
    for b, (tree, flipped) in enumerate(zip(me.trees, me.flips, strict=True)):
        if len(me.trees) > 1:
            active = " (active)" if b == me.active else ""
            out.append(f"  bonsai {b + 1}{active}:")
        out += ["  " + line for line in tree_picture(tree, flipped)]
    return out


def _standing_lines(state: BonsaiState) -> list[str]:
    """The final ranking once the game is over; in solo, whether it is won (§8)."""
    out = []
    if state.phase == "over" and not state.solo:
        places = state.result().places
        ranking = sorted(range(state.players), key=lambda i: places[i])
        out.append("final: " + ", ".join(f"{places[i] + 1}. seat {i}" for i in ranking))
    if state.solo:
        won = "won" if state.solo_won() else "not won (yet)"
        what = "Emperor challenge" if state.emperor else f"level {state.options['soloLevel']}"
        out.append(f"solo, {what}: {won}")
    return out


def describe(state: BonsaiState, seat: int, action: Any) -> str:
    kind = action.get("type") if isinstance(action, dict) else None
    if seat == CHANCE:
        return _describe_chance(state, action)
    me = f"seat {seat}"
    if kind == "meditate":
        return f"{me} meditates: {_meditation(state, action)}"
    if kind == "cultivate":
        if state.solo and state.board[3] is not None:
            return f"{me} cultivates, discarding {card_name(state.board[3])}"
        return f"{me} cultivates"
    if kind == "place":
        u, v = action["cell"]
        return f"{me} places a {action['tile']} tile at ({u}, {v})"
    if kind == "end_placing":
        return f"{me} ends placing"
    if kind == "choose_tile":
        return f"{me} takes a {action['tile']} tile for the Master's wild tile"
    if kind in ("claim", "renounce"):
        g = GOALS[action["goal"]]
        verb = "claims" if kind == "claim" else "renounces"
        return f"{me} {verb} the {g.colour} {g.style} goal ({g.level}, {g.points} points)"
    if kind == "discard":
        return f"{me} discards a {action['tile']} tile"
    if kind == "remove":
        u, v = action["cell"]
        return f"{me} removes the tile at ({u}, {v}) so wood can grow again"
    if kind == "flip_pot":
        return f"{me} flips the pot"
    return f"{me} plays {action!r}"


def _describe_chance(state: BonsaiState, action: Any) -> str:
    if action.get("type") == "goals":
        return "the goal colours are " + ", ".join(action["colours"])
    if state.burn:
        return f"the top card, {card_name(action['card'])}, is revealed and discarded"
    return f"{card_name(action['card'])} is revealed on the board"


def _meditation(state: BonsaiState, action: Any) -> str:
    """What a Meditate takes, and in solo what it discards or burns (bonsai.md §8)."""
    i = action["slot"] - 1
    tiles = [TILES[t] for t in SLOTS[i].take] + ([action["tile"]] if "tile" in action else [])
    with_tiles = f" with {' and '.join(tiles)}" if tiles else ""
    solo = ""
    if state.solo and i > 0 and state.board[i - 1] is not None:
        solo = f", discarding {card_name(state.board[i - 1])}"
    elif state.solo and i == 0 and state.deck_size():
        solo = ", burning the top deck card"
    return f"takes {card_name(state.board[i])} from slot {i + 1}{with_tiles}{solo}"
