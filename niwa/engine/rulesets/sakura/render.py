"""Text pictures of the garden and one-line narration of moves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from niwa.engine.api import CHANCE
from niwa.engine.rulesets.sakura.garden import GATE
from niwa.engine.rulesets.sakura.rules import distance

if TYPE_CHECKING:
    from niwa.engine.rulesets.sakura.state import SakuraState

CELL = 5
PER_ROW = 10


def painter_name(state: SakuraState, painter: int) -> str:
    return "the court painter" if painter == state.court else f"seat {painter}"


def _piece(state: SakuraState, painter: int) -> str:
    return "C" if painter == state.court else str(painter)


def path_picture(state: SakuraState) -> list[str]:
    """The path in rows of ten spaces: a label row (= bridge, T torii, * sakura, x scored
    sakura) over a piece row (E Emperor, seat digits, C court painter, . empty)."""
    g = state.garden
    board = g.board
    bridges = {q for b in board.bridges for q in b}
    at: dict[int, str] = {q: _piece(state, p) for p, q in enumerate(g.painters) if q != GATE}
    at[g.emperor] = "E"
    gate = [_piece(state, p) for p, q in enumerate(g.painters) if q == GATE]
    lines = [f"gate: {' '.join(gate) if gate else '-'}"]
    for start in range(1, board.length + 1, PER_ROW):
        labels, pieces = [], []
        for q in range(start, min(start + PER_ROW, board.length + 1)):
            mark = ""
            if q in bridges:
                mark = "="
            elif q == board.torii:
                mark = "T"
            elif q in board.sakura:
                mark = "x" if g.scored[board.sakura.index(q)] else "*"
            labels.append(f"{q}{mark}".rjust(CELL))
            pieces.append(at.get(q, ".").rjust(CELL))
        lines += ["".join(labels), "".join(pieces)]
    court = ", C court painter" if state.court is not None else ""
    lines.append(f"key: = bridge, T torii, * sakura, x scored sakura; E Emperor, 0-9 seats{court}")
    return lines


def table(state: SakuraState, seat: int | None) -> str:
    g = state.garden
    lines = [f"Sakura, {state.players} players, round {state.round}, phase {state.phase}"]
    lines += path_picture(state)
    tokens = ", ".join(f"{painter_name(state, p)} {t}" for p, t in enumerate(g.tokens))
    lines.append(f"tokens: {tokens}; supply {g.supply}")
    for record in state.scorings:
        paid = ", ".join(f"{painter_name(state, p)} +{t}" for p, t in record["awards"])
        space = g.board.sakura[record["sakura"]]
        lines.append(f"sakura on {space} scored in round {record['round']}: {paid or 'nobody'}")
    if state.supplier is not None:
        lines.append(f"seat {state.supplier} plays the court painter's card this round")
    if state.played:
        lines.append("played this round, in order:")
        for i, (p, c, status) in enumerate(state.played):
            now = state.phase == "resolve" and i == state.cursor
            mark = f" <- resolving, {state.step} step" if now else ""
            lines.append(f"  {state.cards[c].text()} by {painter_name(state, p)} [{status}]{mark}")
    if seat is not None:
        hand = ", ".join(state.cards[c].text() for c in state.hands[seat])
        lines.append(f"your hand (seat {seat}): {hand or 'empty'}")
    sizes = ", ".join(f"seat {s} {len(h)}" for s, h in enumerate(state.hands))
    lines.append(f"cards in hand: {sizes}; deck {len(state.deck)}; discard {len(state.discard)}")
    waiting = state.to_move()
    if not waiting:
        res = state.result()
        places = ", ".join(f"seat {s} place {p + 1}" for s, p in enumerate(res.places))
        lines.append(f"game over: {places}")
    elif waiting == (CHANCE,):
        lines.append("waiting for chance")
    else:
        lines.append("to move: " + ", ".join(f"seat {s}" for s in waiting))
    return "\n".join(lines)


def describe(state: SakuraState, seat: int, action: Any) -> str:
    """One sentence for ``seat`` taking ``action`` in ``state`` (before it is applied)."""
    if not isinstance(action, dict):
        return f"seat {seat} does {action!r}"
    kind = action.get("type")
    card = action.get("card")
    if seat == CHANCE:
        if kind == "reveal" and card in state.cards:
            return f"the court painter's card is {state.cards[card].text()}"
        who = state.draws[0] if state.draws else "?"
        return f"seat {who} draws a card"  # the card goes to a hidden hand
    if kind == "play" and card in state.cards:
        text = f"seat {seat} plays {state.cards[card].text()}"
        court = action.get("court_card")
        if court in state.cards:
            text += f" and {state.cards[court].text()} for the court painter"
        return text
    direction = action.get("direction")
    if kind == "emperor":
        return f"seat {seat} moves the Emperor {direction} 1"
    if kind == "painter" and state.played:
        steps = distance(state.current_card().painter)
        return f"seat {seat} moves their painter {direction} {steps}"
    return f"seat {seat} does {action!r}"
